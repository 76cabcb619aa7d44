//! The HTTP core: one [`CoolifyClient`] per Coolify instance.
//!
//! Owns the base URL, the token source, the extra headers, timeouts, the `/version` cache and
//! the GET/POST legacy-fallback cache. Invariants:
//! - every request goes to `{base}/api/v1{ApiPath}`; paths are only built by [`ApiPath`], so no
//!   id can escape its segment;
//! - headers: `Content-Type: application/json` and `Authorization: Bearer <token>` always, then
//!   the extra headers (Cloudflare Access pair first, then generic headers, later names replace
//!   earlier ones case-insensitively); extra `authorization`/`content-type` are dropped;
//! - every request has a timeout (default [`DEFAULT_REQUEST_TIMEOUT`]);
//! - a 401 triggers one forced token re-read, and exactly one retry only when the token
//!   changed — never a retry for anything else (it could double-fire a state change);
//! - responses: empty body → `{}`; JSON when the content type is missing or mentions json
//!   (raw text kept on a parse failure); otherwise the text as a JSON string. Bodies are
//!   returned raw (unsanitized, key order kept): masking is the MCP server's job;
//! - error messages never contain the token (scrubbed), the token is never logged.

mod builder;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

pub use builder::{ClientBuilder, DEFAULT_TIMEOUT_SETTING};
pub(crate) use builder::{extra_headers, normalize_base_url};

use crate::error::ApiError;
use crate::hints::{compose_status_message, plain_status_message};
use crate::path::ApiPath;
use crate::token::{Refresh, TokenSource, TokenSpec};

/// Default whole-request timeout. The reference has none; a hung Coolify must not
/// hang a tool call forever.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Default TCP/TLS connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// HTTP methods the Coolify API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HttpMethod {
    /// GET
    Get,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
}

impl HttpMethod {
    /// The wire name, e.g. `"GET"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
            Self::Delete => "DELETE",
        }
    }

    fn to_reqwest(self) -> reqwest::Method {
        match self {
            Self::Get => reqwest::Method::GET,
            Self::Post => reqwest::Method::POST,
            Self::Put => reqwest::Method::PUT,
            Self::Patch => reqwest::Method::PATCH,
            Self::Delete => reqwest::Method::DELETE,
        }
    }
}

/// Endpoints that Coolify v4.2 moved from GET to POST (GET-only before): tried POST first,
/// falling back to GET on a method rejection, with the choice remembered per client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LegacyEndpoint {
    /// `/servers/{uuid}/validate`
    ServersValidate,
    /// `/enable`
    ApiEnable,
    /// `/disable`
    ApiDisable,
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    base_url: String,
    token: TokenSource,
    headers: HeaderMap,
    request_timeout: Duration,
    timeout_setting: String,
    version: Mutex<Option<String>>,
    legacy_get: Mutex<HashSet<LegacyEndpoint>>,
}

/// A client for one Coolify instance. Cheap to clone (shared state behind an `Arc`).
#[derive(Debug, Clone)]
pub struct CoolifyClient {
    inner: Arc<Inner>,
}

impl CoolifyClient {
    /// Start building a client for `base_url` (the instance root, without `/api/v1`; one
    /// trailing `/` is stripped).
    pub fn builder(base_url: impl Into<String>, token: TokenSpec) -> ClientBuilder {
        ClientBuilder::new(base_url.into(), token)
    }

    /// The normalized base URL (no trailing `/`, no `/api/v1`). Contains no token.
    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    /// Send a request and return the raw body (see the module docs for parsing rules).
    /// A 401 with a token file that changed on re-read is retried exactly once.
    pub async fn send(
        &self,
        method: HttpMethod,
        path: &ApiPath,
        body: Option<&Value>,
    ) -> Result<Value, ApiError> {
        match self
            .attempt(method, path, body, StatusMessages::Composed)
            .await
        {
            Err(err)
                if err.status() == Some(401) && self.inner.token.refresh() == Refresh::Changed =>
            {
                tracing::debug!(method = method.as_str(), path = %path.path(), "401; token file changed, retrying once");
                self.attempt(method, path, body, StatusMessages::Composed)
                    .await
            }
            other => other,
        }
    }

    /// `GET` shorthand for [`send`](Self::send).
    pub async fn get(&self, path: &ApiPath) -> Result<Value, ApiError> {
        self.send(HttpMethod::Get, path, None).await
    }

    /// `POST` shorthand; `body: None` sends no body.
    pub async fn post(&self, path: &ApiPath, body: Option<&Value>) -> Result<Value, ApiError> {
        self.send(HttpMethod::Post, path, body).await
    }

    /// `PATCH` shorthand.
    pub async fn patch(&self, path: &ApiPath, body: &Value) -> Result<Value, ApiError> {
        self.send(HttpMethod::Patch, path, Some(body)).await
    }

    /// `DELETE` shorthand.
    pub async fn delete(&self, path: &ApiPath) -> Result<Value, ApiError> {
        self.send(HttpMethod::Delete, path, None).await
    }

    /// `GET /version`, trimmed, cached for the life of the client after the first success.
    /// No 401 retry (parity); a non-2xx error reads `HTTP <status>: <reason>`.
    pub async fn version(&self) -> Result<String, ApiError> {
        if let Some(cached) = self.cached_version() {
            return Ok(cached);
        }
        let path = ApiPath::new("version");
        let body = self
            .attempt(HttpMethod::Get, &path, None, StatusMessages::Plain)
            .await?;
        let version = match body {
            Value::String(text) => text.trim().to_owned(),
            // A JSON-typed answer (e.g. `"4.1.2"` or a number) still carries the version.
            other => other
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| other.to_string()),
        };
        *self.inner.version.lock().unwrap_or_else(|p| p.into_inner()) = Some(version.clone());
        Ok(version)
    }

    /// The version cached by a successful [`version`](Self::version), if any.
    pub fn cached_version(&self) -> Option<String> {
        self.inner
            .version
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// POST with the legacy GET fallback: try POST (or the remembered GET); on a
    /// method rejection (405 or the routing catch-all 404) retry once with the other method.
    /// A 500 never retries. When both are rejected the POST error is reported, otherwise the
    /// GET error.
    pub async fn post_with_legacy_get_fallback(
        &self,
        key: LegacyEndpoint,
        path: &ApiPath,
    ) -> Result<Value, ApiError> {
        if self.legacy_prefers_get(key) {
            match self.send(HttpMethod::Get, path, None).await {
                Err(err) if err.is_method_rejected() => self.set_legacy_get(key, false),
                other => return other,
            }
        }
        let post_err = match self.send(HttpMethod::Post, path, None).await {
            Err(err) if err.is_method_rejected() => err,
            other => return other,
        };
        match self.send(HttpMethod::Get, path, None).await {
            Ok(value) => {
                self.set_legacy_get(key, true);
                Ok(value)
            }
            Err(get_err) if get_err.is_method_rejected() => Err(post_err),
            Err(get_err) => Err(get_err),
        }
    }

    fn legacy_prefers_get(&self, key: LegacyEndpoint) -> bool {
        self.inner
            .legacy_get
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&key)
    }

    fn set_legacy_get(&self, key: LegacyEndpoint, prefer_get: bool) {
        let mut set = self
            .inner
            .legacy_get
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if prefer_get {
            set.insert(key);
        } else {
            set.remove(&key);
        }
    }

    async fn attempt(
        &self,
        method: HttpMethod,
        path: &ApiPath,
        body: Option<&Value>,
        messages: StatusMessages,
    ) -> Result<Value, ApiError> {
        let inner = &self.inner;
        let url = self.url(path)?;
        let token = inner.token.current();
        let mut request = inner
            .http
            .request(method.to_reqwest(), url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .headers(inner.headers.clone());
        // The token goes in last-but-one and is marked sensitive so it never shows in debug
        // output of the request.
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", token.0))
            .map_err(|_| ApiError::TokenNotSendable)?;
        auth.set_sensitive(true);
        request = request.header(reqwest::header::AUTHORIZATION, auth);
        if let Some(body) = body {
            request = request.body(serde_json::to_vec(body).unwrap_or_default());
        }
        let response = request
            .send()
            .await
            .map_err(|e| self.transport_error(method, path, e))?;
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let bytes = response.bytes().await.map_err(|e| {
            if e.is_timeout() {
                self.timeout_error(method, path)
            } else {
                ApiError::Body {
                    path: path.path(),
                    reason: e.to_string(),
                }
            }
        })?;
        let text = String::from_utf8_lossy(&bytes);
        let value = parse_body(&text, &content_type);
        tracing::debug!(method = method.as_str(), path = %path.path(), status = status.as_u16(), "coolify request");
        if status.is_success() {
            return Ok(value);
        }
        let reason = status.canonical_reason().unwrap_or("");
        let message = match messages {
            StatusMessages::Composed => {
                compose_status_message(status.as_u16(), reason, &path.to_string(), &value)
            }
            StatusMessages::Plain => plain_status_message(status.as_u16(), reason),
        };
        Err(ApiError::Status {
            status: status.as_u16(),
            path: path.path(),
            message: scrub(&message, &token.0),
            body: value,
        })
    }

    fn url(&self, path: &ApiPath) -> Result<reqwest::Url, ApiError> {
        let raw = format!("{}/api/v1{}", self.inner.base_url, path.path());
        let mut url = reqwest::Url::parse(&raw).map_err(|e| ApiError::Url {
            path: path.path(),
            reason: e.to_string(),
        })?;
        // Already encoded per parameter (form or component style); `set_query` keeps
        // existing `%XX` escapes as they are.
        url.set_query(path.encoded_query().as_deref());
        Ok(url)
    }

    fn transport_error(&self, method: HttpMethod, path: &ApiPath, err: reqwest::Error) -> ApiError {
        if err.is_timeout() {
            self.timeout_error(method, path)
        } else {
            ApiError::Connect {
                base_url: self.inner.base_url.clone(),
                source: err.without_url(),
            }
        }
    }

    fn timeout_error(&self, method: HttpMethod, path: &ApiPath) -> ApiError {
        ApiError::Timeout {
            base_url: self.inner.base_url.clone(),
            method: method.as_str().to_owned(),
            path: path.path(),
            after: self.inner.request_timeout,
            setting: self.inner.timeout_setting.clone(),
        }
    }
}

/// Which message a non-2xx answer gets.
#[derive(Debug, Clone, Copy)]
enum StatusMessages {
    /// `message` + validation errors + hint (every endpoint but `/version`).
    Composed,
    /// `HTTP <status>: <reason>` (`/version`, as in the reference).
    Plain,
}

/// Parses a body as the reference server does.
fn parse_body(text: &str, content_type: &str) -> Value {
    if text.is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    if content_type.is_empty() || content_type.contains("json") {
        serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
    } else {
        Value::String(text.to_owned())
    }
}

/// Replace any occurrence of the token in an upstream-derived message.
pub(crate) fn scrub(message: &str, token: &str) -> String {
    if token.is_empty() {
        message.to_owned()
    } else {
        message.replace(token, "***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_parsing_follows_the_reference() {
        assert_eq!(parse_body("", "text/plain"), serde_json::json!({}));
        assert_eq!(parse_body("{\"a\":1}", ""), serde_json::json!({"a": 1}));
        assert_eq!(
            parse_body("not json", "application/json"),
            serde_json::json!("not json")
        );
        assert_eq!(
            parse_body("4.1.2", "text/plain; charset=utf-8"),
            serde_json::json!("4.1.2")
        );
    }
}
