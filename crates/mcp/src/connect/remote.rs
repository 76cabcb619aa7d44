//! Connecting to a remote server: streamable HTTP, legacy HTTP+SSE, and the fallback from the
//! first to the second for an entry without `type` whose `initialize` POST is refused with
//! 400, 404 or 405 (what an SSE-only server answers).

use std::time::Duration;

use rmcp::service::ClientInitializeError;

use super::negotiate::Plan;
use super::{ConnectOptions, Connection, StartError, auth, handshake, http, startup_timeout};
use crate::client_handler::Handler;
use crate::error::McpError;

pub(super) async fn connect_http(
    name: &str,
    (startup, plan): (Duration, Plan),
    handler: Handler,
    spec: &coyote_protocol::HttpSpec,
    options: &ConnectOptions,
) -> Result<Connection, StartError> {
    let transport = http::transport(
        name,
        spec,
        options.max_message_bytes,
        &options.auth,
        handler.generations(),
    )
    .await?;
    match transport {
        http::HttpTransport::Plain(transport) => {
            handshake(name, (startup, plan), handler, transport, None).await
        }
        http::HttpTransport::OAuth(transport, server_auth) => {
            handshake(name, (startup, plan), handler, transport, Some(server_auth)).await
        }
    }
}

/// A legacy HTTP+SSE server: the GET of the event stream (bounded by the startup timeout, plus
/// the login timeout when a sign-in may run), then the usual handshake.
pub(super) async fn connect_sse(
    name: &str,
    (startup, plan): (Duration, Plan),
    handler: Handler,
    spec: &coyote_protocol::HttpSpec,
    options: &ConnectOptions,
) -> Result<Connection, StartError> {
    let open_deadline = match &options.auth.options.sign_in {
        auth::SignIn::Interactive(_) if auth::uses_oauth(spec) => {
            startup + options.auth.options.login_timeout
        }
        _ => startup,
    };
    let opened = tokio::time::timeout(
        open_deadline,
        http::sse_transport(name, spec, options.max_message_bytes, &options.auth),
    )
    .await
    .map_err(|_| StartError::from(startup_timeout(name, startup)))??;
    let oauth = opened.auth.is_some();
    let result = handshake(
        name,
        (startup, plan),
        handler,
        opened.transport,
        opened.auth,
    )
    .await;
    result
        .map(|mut connection| {
            connection.transport = Some("sse");
            connection
        })
        .map_err(|mut failed| {
            // A POST the server refused says more than the error response standing in for it.
            if let Some(error) = opened.errors.take()
                && !matches!(failed.error, McpError::Timeout { .. })
            {
                failed.error = http::sse_error(name, &error, oauth);
            }
            failed
        })
}

/// Whether the streamable-HTTP `initialize` POST was answered 400, 404 or 405 (rmcp words a
/// non-JSON error answer as `HTTP <status>: <body>`).
pub(super) fn refused_post(error: &ClientInitializeError) -> bool {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let ClientInitializeError::TransportError { error, .. } = error else {
        return false;
    };
    let Some(StreamableHttpError::UnexpectedServerResponse(text)) = error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    else {
        return false;
    };
    ["HTTP 400", "HTTP 404", "HTTP 405"]
        .iter()
        .any(|status| text.starts_with(status))
}
