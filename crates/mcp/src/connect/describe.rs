//! A failed exchange as a sentence for people: the transport's own message and its causes,
//! without the Rust type names rmcp's `Display` puts first; an HTTP failure says where and why
//! (the URL without secrets, the status and the start of the body). And, before that, its
//! meaning as a typed error when it has one ([`classify_http`]): a call not resent after the
//! server restarted, needs-auth, needs more scope, a failed sign-in, refused credentials.

use rmcp::transport::DynamicTransportError;
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

use super::challenge::challenge_scope;
use super::restart;
use crate::error::{AuthFailure, GrantKind, McpError};

/// A transport error as a sentence: the transport's own message and its causes, without the
/// transport's (Rust) type name that rmcp's `Display` puts first.
pub(crate) fn describe_transport_error(error: &DynamicTransportError) -> String {
    if let Some(http) = error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        return describe_http_error(http);
    }
    describe_chain(error.error.as_ref())
}

/// Whether the server refused a request of an established session with 400 Bad Request —
/// what server-everything answers a session it no longer knows (it restarted): the connection
/// is no use any more, and the server has to be started afresh. A 400 to a request without a
/// session (one bad request, or a stateless 2026-07-28 exchange) is not this.
pub(crate) fn is_bad_request(error: &DynamicTransportError) -> bool {
    matches!(
        error.error.downcast_ref::<StreamableHttpError<reqwest::Error>>(),
        Some(StreamableHttpError::UnexpectedServerResponse(text))
            if text.starts_with("HTTP 400") && text.contains(super::post::SESSION_REJECTED)
    )
}

/// An HTTP error of rmcp's client as a sentence.
pub(crate) fn describe_http_error(error: &StreamableHttpError<reqwest::Error>) -> String {
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
        // The session mark is for `is_bad_request`; the body says what the server thinks.
        let text = text.replacen(super::post::SESSION_REJECTED, "", 1);
        return match text.split_once(": ") {
            // A 4xx: the server refused this request (the status and the first
            // 200 bytes of the body).
            Some((status, body)) if status.starts_with("HTTP 4") => format!(
                "the server rejected the request with {status}: {}",
                restart::cut(body, restart::ERROR_TEXT_MAX)
            ),
            Some((status, body)) if status.starts_with("HTTP ") => format!(
                "the server answered {status}: {}",
                restart::cut(body, restart::ERROR_TEXT_MAX)
            ),
            _ => restart::cut(&text, restart::ERROR_TEXT_MAX),
        };
    }
    describe_chain(error)
}

/// The meaning of a failed HTTP send: a call not resent after the server restarted
/// (`restart.rs`); needs-auth / needs more scope / a failed sign-in for an OAuth server; for a
/// server with its own credentials, that they were refused.
pub(crate) fn classify_http(
    server: &str,
    error: &DynamicTransportError,
    oauth: bool,
) -> Option<McpError> {
    if let Some(http) = error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
        && restart::is_server_restarted(http)
    {
        return Some(McpError::Transport {
            server: server.to_owned(),
            message: "the server restarted (its session ended), so the call was not retried: \
                      it may or may not have run"
                .to_owned(),
        });
    }
    classify_http_error(server, error.error.as_ref(), oauth)
}

/// [`classify_http`] of an HTTP error as the transport returned it.
pub(crate) fn classify_http_error(
    server: &str,
    error: &(dyn std::error::Error + 'static),
    oauth: bool,
) -> Option<McpError> {
    let mapped = classify_auth(server, error)?;
    if oauth {
        return Some(mapped);
    }
    let status = match mapped {
        McpError::NeedsAuth { .. } => "401 Unauthorized",
        McpError::NeedsScope { .. } => "403 Forbidden",
        other => return Some(other),
    };
    Some(McpError::Transport {
        server: server.to_owned(),
        message: format!(
            "the server answered {status}: it does not accept the credentials of this entry \
             (\"bearerTokenEnv\" or the Authorization header); check them"
        ),
    })
}

/// The auth meaning of a failed HTTP exchange (`error` is what the transport returned, as rmcp
/// boxed it), as the error the caller should see; `None` when it has none.
fn classify_auth(server: &str, error: &(dyn std::error::Error + 'static)) -> Option<McpError> {
    let http = error.downcast_ref::<StreamableHttpError<reqwest::Error>>()?;
    let server = server.to_owned();
    match http {
        StreamableHttpError::AuthRequired(_) => Some(McpError::NeedsAuth { server }),
        StreamableHttpError::InsufficientScope(e) => {
            let scope = e
                .required_scope
                .clone()
                .or_else(|| challenge_scope(&e.www_authenticate_header))
                .unwrap_or_else(|| "(not named)".to_owned());
            Some(McpError::NeedsScope { server, scope })
        }
        StreamableHttpError::Io(io) => {
            let failure = io.get_ref()?.downcast_ref::<AuthFailure>()?.clone();
            Some(McpError::SignIn { server, failure })
        }
        StreamableHttpError::Auth(AuthError::AuthorizationRequired) => {
            Some(McpError::NeedsAuth { server })
        }
        StreamableHttpError::Auth(e) => Some(McpError::SignIn {
            server,
            failure: AuthFailure::Token {
                endpoint: "the token endpoint".to_owned(),
                answer: e.to_string(),
                grant: GrantKind::Refresh,
            },
        }),
        _ => None,
    }
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

#[cfg(test)]
#[path = "describe_tests.rs"]
mod tests;
