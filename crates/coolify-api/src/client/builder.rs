//! Building a [`CoolifyClient`]: base-URL normalization and checks, the extra headers
//! (Cloudflare Access pair first, later names replace earlier ones case-insensitively,
//! `Authorization`/`Content-Type` reserved), timeouts, TLS and the HTTP client.
//!
//! Invariant: [`ClientBuilder::build`] is the only place a `CoolifyClient` is made, and it
//! makes every check that can be made before the first request (base URL, header names and
//! values, the token file, TLS).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::{CoolifyClient, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, Inner};
use crate::error::BuildError;
use crate::token::{TokenSource, TokenSpec};

/// Builder for [`CoolifyClient`]; see [`CoolifyClient::builder`].
#[derive(Debug)]
pub struct ClientBuilder {
    base_url: String,
    token: TokenSpec,
    cloudflare: Option<(String, String)>,
    headers: Vec<(String, String)>,
    request_timeout: Duration,
    timeout_setting: String,
    connect_timeout: Duration,
}

/// The setting a timeout error names when the builder was not told another one.
pub const DEFAULT_TIMEOUT_SETTING: &str = "COOLIFY_REQUEST_TIMEOUT";

impl ClientBuilder {
    /// No extra headers, default timeouts.
    pub(super) fn new(base_url: String, token: TokenSpec) -> Self {
        Self {
            base_url,
            token,
            cloudflare: None,
            headers: Vec::new(),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            timeout_setting: DEFAULT_TIMEOUT_SETTING.to_owned(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }

    /// Send the Cloudflare Access pair (`CF-Access-Client-Id` / `CF-Access-Client-Secret`) on
    /// every request. Generic [`header`](Self::header)s win on a name collision.
    pub fn cloudflare_access(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.cloudflare = Some((client_id.into(), client_secret.into()));
        self
    }

    /// Add an extra header (`--header "K: V"`). A later header with the same name
    /// (case-insensitive) replaces an earlier one. `Authorization` and `Content-Type` are
    /// reserved and dropped with a warning.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Whole-request timeout (default [`DEFAULT_REQUEST_TIMEOUT`]).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The configuration setting that sets the request timeout, named by timeout errors so
    /// they say what to raise (default `COOLIFY_REQUEST_TIMEOUT`; a fleet entry passes
    /// `COOLIFY_INSTANCES[i].request_timeout`).
    pub fn timeout_setting(mut self, setting: impl Into<String>) -> Self {
        self.timeout_setting = setting.into();
        self
    }

    /// Connect timeout (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Validate everything and build the client. Reads the token file once.
    pub fn build(self) -> Result<CoolifyClient, BuildError> {
        let base_url = normalize_base_url(&self.base_url)?;
        let token = TokenSource::new(self.token)?;
        let headers = extra_headers(self.cloudflare, self.headers)?;
        let _ = rustls::crypto::ring::default_provider().install_default();
        // Our own rustls config, so the system roots are read on the first https handshake
        // instead of here (see `tls`): plain-http instances never pay for them.
        let tls = lazy_tls::client_config().map_err(|e| BuildError::Http(e.to_string()))?;
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls.config)
            .timeout(self.request_timeout)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|e| BuildError::Http(e.to_string()))?;
        Ok(CoolifyClient {
            inner: Arc::new(Inner {
                http,
                base_url,
                token,
                headers,
                request_timeout: self.request_timeout,
                timeout_setting: self.timeout_setting,
                version: Mutex::new(None),
                legacy_get: Mutex::new(HashSet::new()),
            }),
        })
    }
}

pub(crate) fn normalize_base_url(raw: &str) -> Result<String, BuildError> {
    let trimmed = raw.strip_suffix('/').unwrap_or(raw);
    let url = reqwest::Url::parse(trimmed).map_err(|e| BuildError::BaseUrl {
        reason: e.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BuildError::BaseUrl {
            reason: format!("scheme {:?} is not http or https", url.scheme()),
        });
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(BuildError::BaseUrl {
            reason: "credentials in the URL are not supported".to_owned(),
        });
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(BuildError::BaseUrl {
            reason: "a query or fragment is not allowed".to_owned(),
        });
    }
    Ok(trimmed.to_owned())
}

pub(crate) fn extra_headers(
    cloudflare: Option<(String, String)>,
    headers: Vec<(String, String)>,
) -> Result<HeaderMap, BuildError> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    if let Some((id, secret)) = cloudflare {
        pairs.push(("CF-Access-Client-Id".to_owned(), id));
        pairs.push(("CF-Access-Client-Secret".to_owned(), secret));
    }
    pairs.extend(headers);
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        let lower = name.trim().to_ascii_lowercase();
        if lower == "authorization" || lower == "content-type" {
            tracing::warn!(header = %name, "custom header ignored: reserved by the Coolify client");
            continue;
        }
        let header_name =
            HeaderName::from_bytes(lower.as_bytes()).map_err(|_| BuildError::Header {
                name: name.clone(),
                reason: "bad name",
            })?;
        let mut header_value =
            HeaderValue::from_str(value.trim()).map_err(|_| BuildError::Header {
                name: name.clone(),
                reason: "bad value",
            })?;
        header_value.set_sensitive(true);
        // insert (not append): a later header with the same name replaces the earlier one.
        map.insert(header_name, header_value);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_is_normalized_and_checked() {
        assert_eq!(
            normalize_base_url("http://127.0.0.1:3000/").unwrap(),
            "http://127.0.0.1:3000"
        );
        assert!(matches!(
            normalize_base_url("ftp://x"),
            Err(BuildError::BaseUrl { .. })
        ));
        assert!(matches!(
            normalize_base_url("not a url"),
            Err(BuildError::BaseUrl { .. })
        ));
    }

    #[test]
    fn later_headers_replace_earlier_and_reserved_are_dropped() {
        let map = extra_headers(
            Some(("id".into(), "secret".into())),
            vec![
                ("cf-access-client-id".into(), "override".into()),
                ("Authorization".into(), "nope".into()),
                ("X-A".into(), " 1 ".into()),
            ],
        )
        .unwrap();
        assert_eq!(map.len(), 3);
        assert_eq!(map["cf-access-client-id"], "override");
        assert_eq!(map["cf-access-client-secret"], "secret");
        assert_eq!(map["x-a"], "1");
        assert!(map.get("authorization").is_none());
    }
}
