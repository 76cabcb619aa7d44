//! The seam between the MCP layer and the Coolify REST client.
//!
//! Tools, resources and the confirmation pre-flights speak to Coolify only through
//! [`Backend`]: one JSON request at a time, raw (unsanitized) JSON back. Masking is applied
//! by the caller through `sanitize`, so every surface shares one policy. Invariants:
//! - paths are [`Path`] values that `backend_impl` turns into `coolify_api::ApiPath`, which
//!   percent-encodes every segment, so an id such as `../servers` or `x?reveal=true` can
//!   never change the request path (a deliberate deviation from the reference server);
//! - a backend is created lazily per instance on first use, so boot does no network or
//!   TLS work.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use crate::config::InstanceSpec;

/// A boxed future, so [`Backend`] stays object-safe without an async-trait dependency.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// HTTP methods the tools use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpMethod {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `PATCH`.
    Patch,
    /// `DELETE`.
    Delete,
}

impl HttpMethod {
    /// The method's name as sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }
}

/// One segment of a request path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// Chosen by code.
    Lit(&'static str),
    /// Supplied by a caller: always exactly one encoded segment.
    Id(String),
}

/// How a query value is encoded, as the reference encodes that parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryStyle {
    /// `URLSearchParams` (most parameters): a space is `+`.
    Form,
    /// `encodeURIComponent` (`/deploy?tag=`, the Hetzner token uuid): a space is `%20`.
    Component,
}

/// One query parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The parameter name (chosen by code).
    pub key: &'static str,
    /// The unencoded value.
    pub value: String,
    /// How the value is encoded on the wire.
    pub style: QueryStyle,
}

/// A path below `/api/v1` plus its query, built segment by segment so an id can never
/// change the route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// The path segments below `/api/v1`, in order.
    pub segments: Vec<Seg>,
    /// Query pairs, in order; values are encoded when written.
    pub query: Vec<Query>,
}

impl Path {
    /// A path whose first segment is `first`.
    pub fn new(first: &'static str) -> Self {
        Self {
            segments: vec![Seg::Lit(first)],
            query: Vec::new(),
        }
    }
    /// Appends a fixed segment.
    pub fn lit(mut self, segment: &'static str) -> Self {
        self.segments.push(Seg::Lit(segment));
        self
    }
    /// Append a caller-supplied id. It is percent-decoded once first: the reference puts ids
    /// into the path raw and Coolify decodes them once, so `app%2Dapi` means `app-api` there
    /// too. The decoded id is then encoded as exactly one segment (and refused by
    /// `coolify-api` if it would change the path, e.g. `..%2Fservers`).
    pub fn id(mut self, id: &str) -> Self {
        let decoded = percent_encoding::percent_decode_str(id).decode_utf8_lossy();
        self.segments.push(Seg::Id(decoded.into_owned()));
        self
    }
    /// Append `key=value` (form-encoded) when `value` is `Some`.
    pub fn query_opt(mut self, key: &'static str, value: Option<String>) -> Self {
        if let Some(value) = value {
            self.query.push(Query {
                key,
                value,
                style: QueryStyle::Form,
            });
        }
        self
    }
    /// Append `key=value` encoded like `encodeURIComponent`.
    pub fn query_component(mut self, key: &'static str, value: &str) -> Self {
        self.query.push(Query {
            key,
            value: value.to_string(),
            style: QueryStyle::Component,
        });
        self
    }
    /// Append several optional pairs in order.
    pub fn with_query(self, pairs: Vec<(&'static str, Option<String>)>) -> Self {
        pairs.into_iter().fold(self, |p, (k, v)| p.query_opt(k, v))
    }
}

impl fmt::Display for Path {
    /// The encoded path and query, e.g. `/applications/app-api/logs?lines=50`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.segments {
            f.write_str("/")?;
            match s {
                Seg::Lit(l) => f.write_str(l)?,
                Seg::Id(id) => f.write_str(&encode_segment(id))?,
            }
        }
        for (i, q) in self.query.iter().enumerate() {
            write!(
                f,
                "{}{}={}",
                if i == 0 { '?' } else { '&' },
                q.key,
                utf8_percent_encode(&q.value, SEGMENT)
            )?;
        }
        Ok(())
    }
}

/// One request relative to `{base}/api/v1`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    /// The HTTP method.
    pub method: HttpMethod,
    /// The path and query below `/api/v1`.
    pub path: Path,
    /// The JSON body, if any.
    pub body: Option<Value>,
}

impl ApiRequest {
    /// A `GET` of `path`.
    pub fn get(path: Path) -> Self {
        Self {
            method: HttpMethod::Get,
            path,
            body: None,
        }
    }
    /// A request with any method and optional JSON body.
    pub fn new(method: HttpMethod, path: Path, body: Option<Value>) -> Self {
        Self { method, path, body }
    }
}

/// A failed Coolify request. `message` is the complete user-facing text (upstream message,
/// field errors and hint), never containing the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// The HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// The complete user-facing text.
    pub message: String,
    /// Coolify could not be reached (connection failure or timeout): no answer at all.
    pub unreachable: bool,
}

impl ApiError {
    /// An error with `status` (if any) and the user-facing `message`.
    pub fn new(status: Option<u16>, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            unreachable: false,
        }
    }

    /// An error for a Coolify that could not be reached at all.
    pub fn unreachable(message: impl Into<String>) -> Self {
        Self {
            unreachable: true,
            ..Self::new(None, message)
        }
    }
}

/// The Coolify API as the MCP layer needs it.
pub trait Backend: Send + Sync + 'static {
    /// Send one request; 2xx bodies come back as JSON (`{}` for empty, a string for text).
    fn send(&self, request: ApiRequest) -> BoxFuture<'_, Result<Value, ApiError>>;
    /// `GET /version` as trimmed text (cached by the implementation).
    fn version(&self) -> BoxFuture<'_, Result<String, ApiError>>;
    /// `POST` with the legacy `GET` fallback.
    fn post_with_get_fallback(&self, path: Path) -> BoxFuture<'_, Result<Value, ApiError>>;
}

/// Builds the backend of one instance on first use.
pub type BackendFactory = Arc<dyn Fn(&InstanceSpec) -> Arc<dyn Backend> + Send + Sync>;

/// Everything except RFC 3986 unreserved characters is encoded, so `/`, `?`, `#`, `%` and
/// `.` sequences inside an id cannot alter the route.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'~')
    .remove(b'.');

/// Encode one caller-supplied path segment. A segment consisting only of dots is encoded too (`.` → `%2E`)
/// so `..` cannot be normalised away by a proxy.
pub fn encode_segment(segment: &str) -> String {
    if !segment.is_empty() && segment.bytes().all(|b| b == b'.') {
        return segment.bytes().map(|_| "%2E").collect();
    }
    utf8_percent_encode(segment, SEGMENT).to_string()
}

impl fmt::Display for ApiRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method.as_str(), self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_cannot_escape_the_path() {
        let p = |id: &str| Path::new("applications").id(id).to_string();
        assert_eq!(p("../servers"), "/applications/..%2Fservers");
        assert_eq!(p(".."), "/applications/%2E%2E");
        assert_eq!(p("x?reveal=true"), "/applications/x%3Freveal%3Dtrue");
        // Decoded once, as Coolify decodes the reference's raw path.
        assert_eq!(p("app%2Dapi"), "/applications/app-api");
        assert_eq!(p("50%25"), "/applications/50%25");
        assert_eq!(p("..%2Fservers"), "/applications/..%2Fservers");
        let q = Path::new("deploy").with_query(vec![
            ("uuid", Some("a b".into())),
            ("x", None),
            ("force", Some("false".into())),
        ]);
        assert_eq!(q.to_string(), "/deploy?uuid=a%20b&force=false");
    }
}
