//! What the HTTP transport refuses before a request reaches MCP: the connection loop with its
//! header deadline, the body cap and receive deadline, and the bearer check.
//!
//! Below `http` (which builds the router and calls [`serve`]); imports nothing from the crate.
//!
//! Invariants:
//! - every accepted connection has `TCP_NODELAY` set;
//! - a client has [`HEADER_TIMEOUT`] from its first byte to send the whole request head, and
//!   [`RECEIVE_TIMEOUT`] to send the body; the deadlines run on tokio's clock, so a test with
//!   paused time moves them without waiting;
//! - a body over [`MAX_BODY_BYTES`] (announced or streamed) is 413
//!   `{"error":"payload_too_large"}`; nothing of it reaches rmcp;
//! - the `Authorization` scheme compares case-insensitively; the token in constant time; a
//!   refusal never echoes what was presented.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 5 * 1024 * 1024;
/// From a connection's first byte of a request to the end of its head.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(15);
/// From the end of the head to the end of the body.
pub const RECEIVE_TIMEOUT: Duration = Duration::from_secs(30);

/// The peer address of the connection a request came on (a request extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddr(pub SocketAddr);

/// Accept connections until `stop` is cancelled; HTTP/1.1 with the header deadline. Open
/// connections finish their current request after `stop` (graceful).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    stop: CancellationToken,
) -> std::io::Result<()> {
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of descriptors or a reset before accept: keep serving the others.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = stop.cancelled() => return Ok(()),
        };
        // Answers go out as soon as they are written: without this, a response written in two
        // segments waits for the client's delayed ACK (Nagle; ~40 ms per call for Node).
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone().layer(axum::Extension(PeerAddr(peer))));
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let conn = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                () = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
}

fn json_error(status: StatusCode, error: &str) -> Response {
    (status, axum::Json(serde_json::json!({ "error": error }))).into_response()
}

/// Middleware: buffer the body within [`MAX_BODY_BYTES`] and [`RECEIVE_TIMEOUT`].
pub async fn limit_body(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let announced = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return json_error(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    }
    let collected = tokio::time::timeout(
        RECEIVE_TIMEOUT,
        Limited::new(body, MAX_BODY_BYTES).collect(),
    )
    .await;
    let bytes = match collected {
        Err(_) => return json_error(StatusCode::REQUEST_TIMEOUT, "request_timeout"),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return json_error(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
        }
        Ok(Err(_)) => return json_error(StatusCode::BAD_REQUEST, "bad_request"),
        Ok(Ok(c)) => c.to_bytes(),
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The token of an `Authorization: Bearer <token>` header, the scheme in any case.
pub fn bearer_token(request: &Request) -> Option<&str> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim_start_matches(' '))
        .filter(|t| !t.is_empty())
}

/// Compare in time independent of where the first difference is.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_auth(value: &str) -> Request {
        Request::builder()
            .header(header::AUTHORIZATION, value)
            .body(Body::empty())
            .unwrap_or_default()
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        for v in ["Bearer abc", "bearer abc", "BEARER abc", "bEaReR  abc"] {
            assert_eq!(bearer_token(&with_auth(v)), Some("abc"), "{v}");
        }
        for v in ["Basic abc", "Bearer", "Bearer ", "Bearerabc"] {
            assert_eq!(bearer_token(&with_auth(v)), None, "{v}");
        }
    }
}
