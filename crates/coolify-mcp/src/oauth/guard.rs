//! What every sign-in route answers with or refuses before its handler runs: the `Host` check
//! (the same allow-list as `/mcp`, DNS-rebinding protection) and the anti-framing headers (the
//! consent form must never be framed by another site: clickjacking).
//!
//! Invariants:
//! - a request whose `Host` is missing, malformed or not on the list is 403 and reaches no
//!   handler; a listed name without a port allows every port;
//! - every answer carries `Content-Security-Policy: frame-ancestors 'none'`,
//!   `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// `host[:port]` names a request may carry in `Host`.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts(pub Vec<String>);

/// (lowercase host without brackets, port)
fn authority(value: &str) -> Option<(String, Option<u16>)> {
    let parsed = value.trim().parse::<axum::http::uri::Authority>().ok()?;
    let host = parsed
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    Some((host, parsed.port_u16()))
}

impl AllowedHosts {
    /// Whether a `Host` header value is on the list.
    pub fn allows(&self, host_header: &str) -> bool {
        let Some((host, port)) = authority(host_header) else {
            return false;
        };
        // A listed name that is no valid authority (a bare IPv6 address such as `::1`) counts
        // as a host without a port, as rmcp's check for `/mcp` takes it.
        let listed = |a: &String| {
            authority(a).or_else(|| {
                let bare = a.trim().trim_start_matches('[').trim_end_matches(']');
                (!bare.is_empty()).then(|| (bare.to_ascii_lowercase(), None))
            })
        };
        self.0.iter().filter_map(listed).any(|(h, p)| {
            h == host
                && match p {
                    Some(p) => port == Some(p),
                    None => true,
                }
        })
    }
}

/// Middleware: refuse a foreign `Host`, then add the anti-framing headers.
pub async fn guard(
    State(hosts): State<Arc<AllowedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    let mut response = if host.is_some_and(|h| hosts.allows(h)) {
        next.run(request).await
    } else {
        (
            StatusCode::FORBIDDEN,
            axum::Json(serde_json::json!({
                "error": "forbidden_host",
                "error_description": "the Host header is not one this server answers to; add it to COOLIFY_MCP_ALLOWED_HOSTS (or use MCP_PUBLIC_URL's host)",
            })),
        )
            .into_response()
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors 'none'"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
