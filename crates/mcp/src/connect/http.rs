//! Streamable HTTP servers: reqwest + rustls (ring), custom headers, a bearer token read from
//! the env var the spec names or OAuth ([`super::auth`]) when the entry supplies no credentials,
//! bounded reconnects, and the JSON/SSE size limits raised to
//! [`MAX_MESSAGE_BYTES`](super::line::MAX_MESSAGE_BYTES). Legacy HTTP+SSE servers get the same
//! client, headers, token and OAuth through [`sse_transport`] ([`super::sse`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use coyote_protocol::HttpSpec;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::auth::{AuthContext, ServerAuth, SignInClient, uses_oauth};
use super::post::StatusClient;
use super::restart::RestartAware;
use super::sse::{self, FirstError, SseHttpError, SseRequests, SseTransport};
use crate::client_handler::Generations;
use crate::error::McpError;

/// Reconnect attempts of one SSE stream before the request fails. With the delays below a
/// server that died is reported about 3.5 s after its connection closed (it was 25 s with 5 attempts from 1 s up to 10 s).
pub const HTTP_RECONNECT_MAX_TIMES: usize = 3;
/// First reconnect delay (doubles per attempt) unless the server sent `retry`.
pub const HTTP_RECONNECT_BASE_DELAY: Duration = Duration::from_millis(500);
/// Longest single reconnect delay.
pub const HTTP_RECONNECT_MAX_DELAY: Duration = Duration::from_secs(2);

/// Headers the transport sets itself; a spec that sets them is a config error.
const RESERVED_HEADERS: [&str; 3] = ["accept", "mcp-session-id", "last-event-id"];

/// The transport of one HTTP server: plain, or signing in with OAuth.
/// Both refuse to resend a request that may have run when the server restarted
/// ([`RestartAware`]).
pub(crate) enum HttpTransport {
    Plain(StreamableHttpClientTransport<RestartAware<StatusClient>>),
    OAuth(
        StreamableHttpClientTransport<RestartAware<SignInClient>>,
        Arc<ServerAuth>,
    ),
}

/// Builds the rmcp streamable HTTP client transport for `spec`.
pub(crate) async fn transport(
    server: &str,
    spec: &HttpSpec,
    max_message_bytes: usize,
    auth: &AuthContext,
    generations: Arc<Generations>,
) -> Result<HttpTransport, McpError> {
    let config = config(server, spec, max_message_bytes)?;
    if !uses_oauth(spec) {
        return Ok(HttpTransport::Plain(
            StreamableHttpClientTransport::with_client(
                RestartAware::new(StatusClient::new(http_client()), generations),
                config,
            ),
        ));
    }
    let server_auth = ServerAuth::new(server, spec, auth)
        .await
        .map_err(|failure| McpError::SignIn {
            server: server.to_owned(),
            failure,
        })?;
    let client = RestartAware::new(
        SignInClient::new(http_client(), server_auth.clone()),
        generations,
    );
    Ok(HttpTransport::OAuth(
        StreamableHttpClientTransport::with_client(client, config),
        server_auth,
    ))
}

/// A connected legacy SSE server: its transport, its OAuth state (when it signs in) and the
/// first HTTP error of its POSTs (read when the handshake fails).
pub(crate) struct SseConnection {
    pub(crate) transport: SseTransport,
    pub(crate) auth: Option<Arc<ServerAuth>>,
    pub(crate) errors: FirstError,
}

/// Opens the legacy HTTP+SSE transport for `spec`: same URL checks, headers, bearer token and
/// OAuth as [`transport`], then the GET of the event stream until its `endpoint` event.
pub(crate) async fn sse_transport(
    server: &str,
    spec: &HttpSpec,
    max_message_bytes: usize,
    auth: &AuthContext,
) -> Result<SseConnection, McpError> {
    let config = config(server, spec, max_message_bytes)?;
    let errors = FirstError::default();
    fn requests<C>(
        client: C,
        config: &StreamableHttpClientTransportConfig,
        limit: usize,
    ) -> SseRequests<C> {
        SseRequests {
            client,
            url: config.uri.clone(),
            auth_header: config.auth_header.clone(),
            headers: config.custom_headers.clone(),
            limit,
        }
    }
    if !uses_oauth(spec) {
        let transport = sse::open(
            server,
            requests(StatusClient::new(http_client()), &config, max_message_bytes),
            errors.clone(),
        )
        .await
        .map_err(|e| sse_error(server, &e, false))?;
        return Ok(SseConnection {
            transport,
            auth: None,
            errors,
        });
    }
    let server_auth = ServerAuth::new(server, spec, auth)
        .await
        .map_err(|failure| McpError::SignIn {
            server: server.to_owned(),
            failure,
        })?;
    let client = SignInClient::new(http_client(), server_auth.clone());
    let transport = sse::open(
        server,
        requests(client, &config, max_message_bytes),
        errors.clone(),
    )
    .await
    .map_err(|e| sse_error(server, &e, true))?;
    Ok(SseConnection {
        transport,
        auth: Some(server_auth),
        errors,
    })
}

/// A failed exchange with a legacy SSE server as the error the caller sees.
pub(crate) fn sse_error(server: &str, error: &SseHttpError, oauth: bool) -> McpError {
    if let Some(mapped) = super::classify_http_error(server, error, oauth) {
        return mapped;
    }
    McpError::Transport {
        server: server.to_owned(),
        message: format!(
            "legacy SSE transport: {}",
            super::describe_http_error(error)
        ),
    }
}

/// The reqwest client of MCP traffic, as rmcp builds its default one: no idle pooling (avoids
/// delayed-ACK stalls) and only same-origin 307/308 redirects; the system TLS roots are read on
/// the first https handshake (`tls.rs`).
fn http_client() -> reqwest::Client {
    let builder = match lazy_tls::client_config() {
        Ok(tls) => reqwest::Client::builder().tls_backend_preconfigured(tls.config),
        Err(e) => {
            tracing::debug!(error = %e, "lazy TLS setup failed; reqwest sets up TLS itself");
            reqwest::Client::builder()
        }
    };
    builder
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            let keeps_body = matches!(
                attempt.status(),
                reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
            );
            let same_origin = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if !keeps_body || !same_origin {
                attempt.stop()
            } else if attempt.previous().len() > 10 {
                attempt.error("exceeded 10 redirects")
            } else {
                attempt.follow()
            }
        }))
        .build()
        .unwrap_or_default()
}

fn config(
    server: &str,
    spec: &HttpSpec,
    max_message_bytes: usize,
) -> Result<StreamableHttpClientTransportConfig, McpError> {
    lazy_tls::install_crypto_provider();
    let config_error = |message: String| McpError::Config {
        server: server.to_owned(),
        message,
    };
    let url = reqwest::Url::parse(&spec.url).map_err(|e| {
        config_error(format!(
            "invalid url {:?}: {e}; use http(s)://host/path",
            spec.url
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(config_error(format!(
            "url {:?} is not http(s); streamable HTTP needs an http:// or https:// endpoint",
            spec.url
        )));
    }

    let mut headers = HashMap::new();
    for (name, value) in &spec.headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| config_error(format!("invalid header name {name:?}: {e}")))?;
        if RESERVED_HEADERS.contains(&header.as_str()) {
            return Err(config_error(format!(
                "header {name:?} is managed by the MCP transport; remove it from \"headers\""
            )));
        }
        let value = HeaderValue::from_str(value)
            .map_err(|e| config_error(format!("invalid value for header {name:?}: {e}")))?;
        headers.insert(header, value);
    }

    let mut config = StreamableHttpClientTransportConfig::with_uri(spec.url.as_str())
        .custom_headers(headers)
        .max_json_response_size(max_message_bytes)
        .max_sse_event_size(max_message_bytes);
    if let Some(var) = &spec.bearer_token_env {
        let token = std::env::var(var).map_err(|_| {
            config_error(format!(
                "bearer token env var {var} is not set; export it or remove \"bearerTokenEnv\""
            ))
        })?;
        config = config.auth_header(token);
    }
    let mut backoff = ExponentialBackoff::default();
    backoff.max_times = Some(HTTP_RECONNECT_MAX_TIMES);
    backoff.base_duration = HTTP_RECONNECT_BASE_DELAY;
    backoff.max_delay = Some(HTTP_RECONNECT_MAX_DELAY);
    config.retry_config = Arc::new(backoff);
    Ok(config)
}
