//! The HTTP plumbing both providers share: building the reqwest client (after installing the
//! rustls `ring` provider, idempotently), sending one request with the bounded retry, mapping
//! non-2xx responses to typed errors, and reading bodies under the idle timeout.
//!
//! Invariants: every await on the network has a timeout; a retry only ever happens before the
//! caller has seen a byte of a successful response; error details are excerpts scrubbed of the
//! configured API key. A server that cannot be reached is not retried; a connection the server
//! closed with no response at all (typically a kept-alive connection it had just dropped, as
//! llama.cpp's server does after an error response) is retried at once on a new connection,
//! within the same bounded count.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use coyote_protocol::{ApiKey, ProviderConfig};
use futures::StreamExt;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;

use crate::credential::Credential;
use crate::error::{LlmError, TimeoutPhase};
use crate::error_body::ErrorInfo;
use crate::framing::Framing;
use crate::retry::{RetryClock, RetryPolicy, retry_after};
use crate::stream::{EventStream, WireParser, framed_event_stream};
use crate::types::Message;
use crate::validate::validate_conversation;

/// Most of an error body we read (the useful part is the first few hundred bytes).
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// Most of a non-streamed response we accept.
pub(crate) const MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// Installs rustls' `ring` crypto provider for the process unless one is installed already.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Shared state of one provider instance.
#[derive(Debug)]
pub(crate) struct HttpCore {
    pub provider: String,
    client: reqwest::Client,
    credential: Credential,
    pub idle_timeout: Duration,
    response_timeout: Duration,
    connect_timeout: Duration,
    retry: RetryPolicy,
    clock: Arc<dyn RetryClock>,
}

/// How the retry loop treats one failed attempt.
enum Attempt {
    Retry {
        error: LlmError,
        wait: Option<Duration>,
    },
    Fail(LlmError),
}

impl HttpCore {
    pub fn new(
        config: &ProviderConfig,
        retry: RetryPolicy,
        clock: Arc<dyn RetryClock>,
    ) -> Result<Self, LlmError> {
        let base = url::Url::parse(&config.api_base).map_err(|e| {
            LlmError::config(
                &config.name,
                format!("`api_base` {:?} is not a URL ({e})", config.api_base),
            )
        })?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(LlmError::config(
                &config.name,
                format!(
                    "`api_base` {:?} must start with http:// or https://",
                    config.api_base
                ),
            ));
        }
        install_crypto_provider();
        // The system roots are read on the first https handshake, not here (tls.rs).
        let tls = lazy_tls::client_config()
            .map_err(|e| LlmError::config(&config.name, format!("cannot set up TLS: {e}")))?;
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls.config)
            .connect_timeout(config.timeouts.connect)
            .build()
            .map_err(|e| {
                LlmError::config(&config.name, format!("cannot build the HTTP client: {e}"))
            })?;
        Ok(HttpCore {
            provider: config.name.clone(),
            client,
            credential: Credential::new(config.api_key.clone(), config.key_command.clone()),
            idle_timeout: config.timeouts.idle,
            response_timeout: config.timeouts.response,
            connect_timeout: config.timeouts.connect,
            retry,
            clock,
        })
    }

    /// The key for the next request (runs `key_command` when its cached output is old).
    pub async fn key(&self) -> Result<Option<ApiKey>, LlmError> {
        self.credential.key(&self.provider).await
    }

    /// Wall-clock now, from the injected clock (SigV4 signs it).
    pub fn now(&self) -> std::time::SystemTime {
        self.clock.now()
    }

    /// A header value holding a secret: marked sensitive so it never shows in debug output.
    pub fn secret_header(&self, value: String) -> Result<HeaderValue, LlmError> {
        let mut header = HeaderValue::from_str(&value).map_err(|_| {
            LlmError::config(
                &self.provider,
                "the API key contains characters not allowed in an HTTP header",
            )
        })?;
        header.set_sensitive(true);
        Ok(header)
    }

    /// The request body of a turn, encoded, once the conversation passed
    /// [`validate_conversation`] (a provider's `send` starts here).
    pub fn encode_turn(&self, messages: &[Message], body: &Value) -> Result<Bytes, LlmError> {
        validate_conversation(messages)?;
        serde_json::to_vec(body).map(Bytes::from).map_err(|e| {
            LlmError::protocol(&self.provider, format!("cannot encode the request: {e}"))
        })
    }

    /// POSTs `body` and decodes the answer, framed by `framing`, with `parser`.
    pub async fn post_framed<P: WireParser>(
        &self,
        (url, headers): (&str, HeaderMap),
        body: Bytes,
        framing: Framing,
        parser: P,
    ) -> Result<EventStream, LlmError> {
        let response = self.post_json(url, headers, body).await?;
        Ok(framed_event_stream(
            &self.provider,
            response.bytes_stream(),
            framing,
            parser,
            self.idle_timeout,
        ))
    }

    /// POSTs `body` and reads the whole answer (at most [`MAX_RESPONSE_BYTES`]).
    pub async fn post_whole(
        &self,
        url: &str,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<Bytes, LlmError> {
        let response = self.post_json(url, headers, body).await?;
        self.read_body(response, MAX_RESPONSE_BYTES).await
    }

    /// POSTs `body` as JSON, retrying 429/transient 5xx per the policy; returns the 2xx response
    /// with its body unread.
    pub async fn post_json(
        &self,
        url: &str,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<reqwest::Response, LlmError> {
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            let request = self
                .client
                .post(url)
                .headers(headers.clone())
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
            let (error, asked) = match self.attempt(url, request, attempts).await? {
                Ok(response) => return Ok(response),
                Err(Attempt::Fail(error)) => return Err(error),
                Err(Attempt::Retry { error, wait }) => (error, wait),
            };
            let retry = attempts - 1;
            if retry >= self.retry.max_retries {
                return Err(error);
            }
            let wait = asked.unwrap_or_else(|| self.retry.backoff(retry));
            if wait > self.retry.max_wait {
                return Err(error);
            }
            tracing::warn!(provider = %self.provider, attempt = attempts, wait_ms = wait.as_millis() as u64, %error, "retrying model request");
            if !wait.is_zero() {
                self.clock.sleep(wait).await;
            }
        }
    }

    /// GETs `url` and parses the answer as JSON; `vendor` names the format in the error
    /// (the model lists of the native APIs).
    pub async fn get_json(
        &self,
        url: &str,
        headers: HeaderMap,
        vendor: &str,
    ) -> Result<Value, LlmError> {
        let bytes = self.get(url, headers).await?;
        serde_json::from_slice(&bytes).map_err(|e| {
            LlmError::protocol(
                &self.provider,
                format!("the model list is not in {vendor}'s format ({e})"),
            )
        })
    }

    /// GETs `url` (no retry) and returns the 2xx body.
    pub async fn get(&self, url: &str, headers: HeaderMap) -> Result<Bytes, LlmError> {
        let request = self.client.get(url).headers(headers);
        match self.attempt(url, request, 1).await? {
            Ok(response) => self.read_body(response, MAX_RESPONSE_BYTES).await,
            Err(Attempt::Fail(error)) | Err(Attempt::Retry { error, .. }) => Err(error),
        }
    }

    async fn attempt(
        &self,
        url: &str,
        request: reqwest::RequestBuilder,
        attempts: u32,
    ) -> Result<Result<reqwest::Response, Attempt>, LlmError> {
        let response = match tokio::time::timeout(self.response_timeout, request.send()).await {
            Err(_) => return Err(self.timeout(TimeoutPhase::Response, self.response_timeout)),
            Ok(Err(e)) if e.is_timeout() && e.is_connect() => {
                return Err(self.timeout(TimeoutPhase::Connect, self.connect_timeout));
            }
            Ok(Err(e)) => {
                let closed = closed_without_response(&e);
                let error = LlmError::Network {
                    provider: self.provider.clone(),
                    endpoint: display_endpoint(url),
                    detail: error_chain(e.without_url()),
                };
                if closed {
                    return Ok(Err(Attempt::Retry {
                        error,
                        wait: Some(Duration::ZERO),
                    }));
                }
                return Err(error);
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(Ok(response));
        }
        let wait = retry_after(response.headers(), self.clock.now());
        let body = self
            .read_body(response, MAX_ERROR_BODY_BYTES)
            .await
            .unwrap_or_default();
        Ok(Err(self.classify(status, &body, wait, attempts)))
    }

    fn classify(
        &self,
        status: StatusCode,
        body: &[u8],
        wait: Option<Duration>,
        attempts: u32,
    ) -> Attempt {
        let info = ErrorInfo::parse(body);
        let detail = self.redact(&info.excerpt(status));
        let provider = self.provider.clone();
        let code = status.as_u16();
        if info.is_context_length() && matches!(code, 400 | 413 | 422 | 500) {
            return Attempt::Fail(LlmError::ContextLength { provider, detail });
        }
        if info.is_unparsed_output() && code == 500 {
            return Attempt::Fail(LlmError::UnparsedOutput { provider, detail });
        }
        match code {
            401 | 403 => Attempt::Fail(LlmError::Auth {
                provider,
                status: code,
                detail,
                advice: self.auth_advice(),
            }),
            429 if info.has_code("insufficient_quota") => Attempt::Fail(LlmError::RateLimited {
                provider,
                retry_after: None,
                attempts,
                detail,
            }),
            429 => Attempt::Retry {
                error: LlmError::RateLimited {
                    provider,
                    retry_after: wait,
                    attempts,
                    detail,
                },
                wait,
            },
            408 | 500 | 502 | 503 | 504 | 529 => Attempt::Retry {
                error: LlmError::Server {
                    provider,
                    status: code,
                    detail,
                },
                wait,
            },
            500..=599 => Attempt::Fail(LlmError::Server {
                provider,
                status: code,
                detail,
            }),
            400..=499 => Attempt::Fail(LlmError::InvalidRequest {
                provider,
                status: code,
                detail,
            }),
            _ => Attempt::Fail(LlmError::Protocol {
                provider,
                detail: format!("unexpected HTTP status {status}: {detail}"),
            }),
        }
    }

    fn auth_advice(&self) -> String {
        self.credential.advice(&self.provider)
    }

    pub fn timeout(&self, phase: TimeoutPhase, after: Duration) -> LlmError {
        LlmError::Timeout {
            provider: self.provider.clone(),
            phase,
            after,
        }
    }

    /// Removes the configured key from text that may echo it.
    pub fn redact(&self, text: &str) -> String {
        match self.credential.known_secret() {
            Some(secret) if secret.len() >= 4 => text.replace(&secret, "<redacted>"),
            _ => text.to_string(),
        }
    }

    /// Reads a whole body, each piece under the idle timeout, refusing more than `limit` bytes.
    pub async fn read_body(
        &self,
        response: reqwest::Response,
        limit: usize,
    ) -> Result<Bytes, LlmError> {
        let mut body = Vec::new();
        let mut stream = response.bytes_stream();
        loop {
            match tokio::time::timeout(self.idle_timeout, stream.next()).await {
                Err(_) => return Err(self.timeout(TimeoutPhase::Idle, self.idle_timeout)),
                Ok(None) => return Ok(Bytes::from(body)),
                Ok(Some(Err(e))) => {
                    return Err(LlmError::protocol(
                        &self.provider,
                        format!("the response broke off: {}", error_chain(e.without_url())),
                    ));
                }
                Ok(Some(Ok(chunk))) => {
                    if body.len() + chunk.len() > limit {
                        return Err(LlmError::protocol(
                            &self.provider,
                            format!("the response is larger than {limit} bytes"),
                        ));
                    }
                    body.extend_from_slice(&chunk);
                }
            }
        }
    }
}

/// Whether the request went out on a connection that the server closed before sending any
/// response (hyper's "connection closed before message completed"): the server never answered,
/// so sending the request again on a fresh connection is safe.
fn closed_without_response(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>()
            && hyper.is_incomplete_message()
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// An error and its causes on one line (reqwest's top-level text alone says little).
pub(crate) fn error_chain(error: impl std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `scheme://host[:port]/path` without credentials or query, for messages.
fn display_endpoint(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.to_string()
        }
        Err(_) => "<invalid url>".to_string(),
    }
}

/// `segment` percent-encoded for use as one URL path segment (RFC 3986 unreserved characters
/// stay as they are): model and deployment names go into URLs (Azure, Gemini, Bedrock).
pub(crate) fn encode_path_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
