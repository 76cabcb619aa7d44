//! A failed exchange as a sentence for people: the transport's own message and its causes,
//! without the Rust type names rmcp's `Display` puts first; an HTTP failure says where and why
//! (the URL without secrets, the status and the start of the body).

use rmcp::transport::DynamicTransportError;

use super::restart;

/// A transport error as a sentence: the transport's own message and its causes, without the
/// transport's (Rust) type name that rmcp's `Display` puts first.
pub(crate) fn describe_transport_error(error: &DynamicTransportError) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    if let Some(http) = error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        return describe_http_error(http);
    }
    describe_chain(error.error.as_ref())
}

/// An HTTP error of rmcp's client as a sentence.
pub(crate) fn describe_http_error(
    error: &rmcp::transport::streamable_http_client::StreamableHttpError<reqwest::Error>,
) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    // An HTTP request that failed: say where and why, with the cause rmcp's wrapper hides.
    if let StreamableHttpError::Client(e) = error {
        let url = e
            .url()
            .map(|u| coyote_protocol::redact_url(u.as_str()))
            .unwrap_or_else(|| "the server".to_owned());
        let mut cause: &dyn std::error::Error = e;
        while let Some(next) = cause.source() {
            cause = next;
        }
        return if e.is_timeout() {
            format!("no answer from {url} in time")
        } else if e.is_connect() {
            format!("cannot connect to {url} ({cause})")
        } else {
            format!("the request to {url} failed ({cause})")
        };
    }
    // "HTTP 400 Bad Request: <body>": the status and the start of the body.
    if let StreamableHttpError::UnexpectedServerResponse(text) = error {
        return match text.split_once(": ") {
            // A 4xx: the server refused this request (issue 15: the status and the first
            // 200 bytes of the body).
            Some((status, body)) if status.starts_with("HTTP 4") => format!(
                "the server rejected the request with {status}: {}",
                restart::cut(body, restart::ERROR_TEXT_MAX)
            ),
            Some((status, body)) if status.starts_with("HTTP ") => format!(
                "the server answered {status}: {}",
                restart::cut(body, restart::ERROR_TEXT_MAX)
            ),
            _ => restart::cut(text, restart::ERROR_TEXT_MAX),
        };
    }
    describe_chain(error)
}

/// An error and its causes, each said once.
fn describe_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = current {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = e.source();
    }
    parts.join(": ")
}
