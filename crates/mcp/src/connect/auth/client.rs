//! The streamable HTTP client of an OAuth server: rmcp's `AuthClient` (bearer token from the
//! record, one refresh and retry on a rejected token) wrapped so that a 401/403 the tokens
//! cannot answer goes to [`ServerAuth::answer`] — a sign-in, a client-credentials token, or
//! passing the challenge on (→ `needs-auth`) — and the request is sent again after new
//! credentials. A 401/403 means the server did not process the request, so resending is safe.
//! A failed sign-in travels to the caller as the payload of an I/O error (the transport's error
//! type is rmcp's) and is recovered by `describe::classify_http`.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::AuthClient;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::{Error as SseError, Sse};

use crate::connect::challenge::Challenge;
use crate::connect::post::StatusClient;

use super::server_auth::{Attempts, ServerAuth, Verdict};

type HttpError = StreamableHttpError<reqwest::Error>;

#[derive(Clone)]
pub(crate) struct SignInClient {
    inner: AuthClient<StatusClient>,
    auth: Arc<ServerAuth>,
}

impl SignInClient {
    pub(crate) fn new(http: reqwest::Client, auth: Arc<ServerAuth>) -> Self {
        let mut inner = auth.http.clone();
        inner.http_client = StatusClient(http);
        SignInClient { inner, auth }
    }

    async fn with_sign_in<T, F, Fut>(&self, call: F) -> Result<T, HttpError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut attempts = Attempts::default();
        loop {
            let generation = self.auth.generation();
            let error = match call().await {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            let Some(challenge) = Challenge::of(&error) else {
                return Err(error);
            };
            match self.auth.answer(challenge, generation, &mut attempts).await {
                Verdict::Retry => continue,
                Verdict::PassOn => return Err(error),
                Verdict::Failed(failure) => {
                    tracing::warn!(server = %self.auth.server, %failure, "sign-in failed");
                    return Err(StreamableHttpError::Io(std::io::Error::other(failure)));
                }
            }
        }
    }
}

impl StreamableHttpClient for SignInClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.with_sign_in(|| {
            self.inner.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.with_sign_in(|| {
            self.inner.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.with_sign_in(|| {
            self.inner.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.with_sign_in(|| {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.with_sign_in(|| {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
