//! Raw, side-effect-free probes of a Coolify instance: one `GET /api/v1<path>` that reports
//! what came back (status, `Location`, a bounded body) instead of interpreting it. Used by
//! `coolify-mcp doctor` (reachability, token, version, abilities, api-shape) and by the HTTP
//! transport's proof of access (a user's own token checked against `/teams/current`).
//!
//! Invariants:
//! - GET only, redirects are never followed (a Cloudflare Access login page is reported as the
//!   redirect it is), and every probe is bounded by the prober's timeout;
//! - the bearer token of a probe is used for that one request and never stored or formatted:
//!   an error message is built from the failure kind and the URL, which holds no credentials
//!   (the base URL refuses userinfo);
//! - at most [`MAX_PROBE_BODY`] bytes of a body are kept.

use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue, LOCATION};

use crate::error::BuildError;

/// Bytes of a probe's body that are kept; the rest is dropped unread.
pub const MAX_PROBE_BODY: usize = 64 * 1024;

/// Which credential a probe sends.
#[derive(Clone, Copy)]
pub enum ProbeAuth<'a> {
    /// No `Authorization` header (reachability).
    Anonymous,
    /// `Authorization: Bearer <token>`; the token is used for this request only.
    Bearer(&'a str),
}

impl std::fmt::Debug for ProbeAuth<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProbeAuth::Anonymous => f.write_str("Anonymous"),
            ProbeAuth::Bearer(_) => f.write_str("Bearer(<redacted>)"),
        }
    }
}

/// What one probe got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeResponse {
    /// The HTTP status.
    pub status: u16,
    /// The `Location` header of a redirect, if any.
    pub location: Option<String>,
    /// The body as UTF-8 (lossy), at most [`MAX_PROBE_BODY`] bytes.
    pub body: String,
}

impl ProbeResponse {
    /// The body parsed as JSON, if it is JSON.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.body).ok()
    }
}

/// Why a probe got no HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// No answer within the prober's timeout.
    #[error("no answer within {} s from {url}", timeout.as_secs())]
    Timeout {
        /// The URL probed (no credentials).
        url: String,
        /// The timeout that expired.
        timeout: Duration,
    },
    /// The connection could not be made or broke.
    #[error("cannot connect to {url} ({reason})")]
    Connect {
        /// The URL probed (no credentials).
        url: String,
        /// The transport's reason, without the token.
        reason: String,
    },
}

/// Probes one Coolify instance: its base URL and extra headers (Cloudflare Access, `--header`).
#[derive(Debug, Clone)]
pub struct Prober {
    http: reqwest::Client,
    base_url: String,
    headers: HeaderMap,
    timeout: Duration,
}

impl Prober {
    /// A prober for `base_url` (the instance root) sending `headers` on every probe, each probe
    /// bounded by `timeout`.
    pub fn new(
        base_url: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
    ) -> Result<Self, BuildError> {
        let base_url = crate::client::normalize_base_url(base_url)?;
        let headers = crate::client::extra_headers(None, headers)?;
        let _ = rustls::crypto::ring::default_provider().install_default();
        let tls = lazy_tls::client_config().map_err(|e| BuildError::Http(e.to_string()))?;
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls.config)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .build()
            .map_err(|e| BuildError::Http(e.to_string()))?;
        Ok(Self {
            http,
            base_url,
            headers,
            timeout,
        })
    }

    /// The normalized base URL.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `GET {base}/api/v1{path}` (`path` starts with `/`), redirects not followed.
    pub async fn get(&self, path: &str, auth: ProbeAuth<'_>) -> Result<ProbeResponse, ProbeError> {
        let url = format!("{}/api/v1{path}", self.base_url);
        let mut request = self
            .http
            .get(&url)
            .headers(self.headers.clone())
            .header(ACCEPT, "application/json");
        if let ProbeAuth::Bearer(token) = auth {
            let mut value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                ProbeError::Connect {
                    url: url.clone(),
                    reason: "the token contains characters HTTP headers cannot carry".into(),
                }
            })?;
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        let failed = |e: reqwest::Error| {
            if e.is_timeout() {
                ProbeError::Timeout {
                    url: url.clone(),
                    timeout: self.timeout,
                }
            } else {
                ProbeError::Connect {
                    url: url.clone(),
                    reason: root_cause(&e),
                }
            }
        };
        let mut response = request.send().await.map_err(failed)?;
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            let room = MAX_PROBE_BODY - body.len();
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if body.len() >= MAX_PROBE_BODY {
                break;
            }
        }
        Ok(ProbeResponse {
            status,
            location,
            body: String::from_utf8_lossy(&body).into_owned(),
        })
    }
}

/// The innermost error's text (e.g. "Connection refused (os error 111)"), which names neither
/// the URL's credentials (there are none) nor the token.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}
