//! One streamable-HTTP client wrapper for every layer of the HTTP transport: [`Layered`] is
//! rmcp's `StreamableHttpClient` over an inner client, and a layer ([`HttpLayer`]) implements
//! only the hook it needs — around a POST, a GET or a DELETE — while every hook it does not
//! write goes straight to the inner client. The layers: the POST that keeps a 4xx's status
//! (`post.rs`, over reqwest), sign-in on a challenge (`auth/client.rs`, over rmcp's
//! `AuthClient`), and the refused resend after a server restart (`restart.rs`, over either).
//!
//! Invariant: a request reaches the inner client through the very method it arrived by
//! ([`PostRequest::send`], [`GetRequest::send`]): a POST with transport-wide limits is sent
//! with those limits, a plain one without, so wrapping a client never changes what it does.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::{Error as SseError, Sse};

/// What a POST of client `C` returns.
pub(crate) type PostResult<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;
/// What a GET of client `C` returns: the SSE stream.
pub(crate) type GetResult<E> =
    Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<E>>;

/// Which of rmcp's three POST methods a request came by, with its limits.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PostLimits {
    /// `post_message`: no limits given.
    Unset,
    /// `post_message_with_max_sse_event_size`.
    MaxSseEventSize(usize),
    /// `post_message_with_response_limits`.
    Response(StreamableHttpResponseLimits),
}

impl PostLimits {
    /// The limits to read an answer with: rmcp's defaults where none (or only the SSE event
    /// size) were given.
    pub(crate) fn resolved(self) -> StreamableHttpResponseLimits {
        match self {
            PostLimits::Unset => StreamableHttpResponseLimits::default(),
            PostLimits::MaxSseEventSize(size) => {
                let mut limits = StreamableHttpResponseLimits::default();
                limits.max_sse_event_size = size;
                limits
            }
            PostLimits::Response(limits) => limits,
        }
    }
}

/// One POST, as rmcp's worker asked for it.
#[derive(Clone)]
pub(crate) struct PostRequest {
    pub(crate) uri: Arc<str>,
    pub(crate) message: ClientJsonRpcMessage,
    pub(crate) session_id: Option<Arc<str>>,
    pub(crate) auth_header: Option<String>,
    pub(crate) custom_headers: HashMap<HeaderName, HeaderValue>,
    pub(crate) limits: PostLimits,
}

impl PostRequest {
    /// Sends the request through `client`'s method for it.
    pub(crate) async fn send<C: StreamableHttpClient + Sync>(
        self,
        client: &C,
    ) -> PostResult<C::Error> {
        let PostRequest {
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        } = self;
        match limits {
            PostLimits::Unset => {
                client
                    .post_message(uri, message, session_id, auth_header, custom_headers)
                    .await
            }
            PostLimits::MaxSseEventSize(size) => {
                client
                    .post_message_with_max_sse_event_size(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        size,
                    )
                    .await
            }
            PostLimits::Response(limits) => {
                client
                    .post_message_with_response_limits(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        limits,
                    )
                    .await
            }
        }
    }
}

/// One GET of an SSE stream, as rmcp's worker asked for it.
#[derive(Clone)]
pub(crate) struct GetRequest {
    pub(crate) uri: Arc<str>,
    pub(crate) session_id: Option<Arc<str>>,
    pub(crate) last_event_id: Option<String>,
    pub(crate) auth_header: Option<String>,
    pub(crate) custom_headers: HashMap<HeaderName, HeaderValue>,
    /// `Some` when it came by `get_stream_with_max_sse_event_size`.
    pub(crate) max_sse_event_size: Option<usize>,
}

impl GetRequest {
    /// Sends the request through `client`'s method for it.
    pub(crate) async fn send<C: StreamableHttpClient + Sync>(
        self,
        client: &C,
    ) -> GetResult<C::Error> {
        let GetRequest {
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        } = self;
        match max_sse_event_size {
            None => {
                client
                    .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
                    .await
            }
            Some(size) => {
                client
                    .get_stream_with_max_sse_event_size(
                        uri,
                        session_id,
                        last_event_id,
                        auth_header,
                        custom_headers,
                        size,
                    )
                    .await
            }
        }
    }
}

/// One DELETE of a session, as rmcp's worker asked for it.
#[derive(Clone)]
pub(crate) struct DeleteRequest {
    pub(crate) uri: Arc<str>,
    pub(crate) session_id: Arc<str>,
    pub(crate) auth_header: Option<String>,
    pub(crate) custom_headers: HashMap<HeaderName, HeaderValue>,
}

impl DeleteRequest {
    /// Sends the request through `client`.
    pub(crate) async fn send<C: StreamableHttpClient + Sync>(
        self,
        client: &C,
    ) -> Result<(), StreamableHttpError<C::Error>> {
        client
            .delete_session(
                self.uri,
                self.session_id,
                self.auth_header,
                self.custom_headers,
            )
            .await
    }
}

/// A layer over client `C`: each hook gets the inner client and the request, and by default
/// sends it on unchanged.
pub(crate) trait HttpLayer<C: StreamableHttpClient + Sync>:
    Clone + Send + Sync + 'static
{
    /// Around every POST.
    fn post(
        &self,
        inner: &C,
        request: PostRequest,
    ) -> impl Future<Output = PostResult<C::Error>> + Send {
        request.send(inner)
    }

    /// Around every GET.
    fn get(
        &self,
        inner: &C,
        request: GetRequest,
    ) -> impl Future<Output = GetResult<C::Error>> + Send {
        request.send(inner)
    }

    /// Around every DELETE.
    fn delete(
        &self,
        inner: &C,
        request: DeleteRequest,
    ) -> impl Future<Output = Result<(), StreamableHttpError<C::Error>>> + Send {
        request.send(inner)
    }
}

/// Client `C` with layer `L` around it.
#[derive(Clone)]
pub(crate) struct Layered<L, C> {
    pub(crate) layer: L,
    pub(crate) inner: C,
}

impl<L, C> Layered<L, C> {
    /// `layer` around `inner`.
    pub(crate) fn over(layer: L, inner: C) -> Self {
        Layered { layer, inner }
    }
}

impl<L: HttpLayer<C>, C: StreamableHttpClient + Sync> StreamableHttpClient for Layered<L, C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> PostResult<C::Error> {
        let request = PostRequest {
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits: PostLimits::Unset,
        };
        self.layer.post(&self.inner, request).await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> PostResult<C::Error> {
        let request = PostRequest {
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits: PostLimits::MaxSseEventSize(max_sse_event_size),
        };
        self.layer.post(&self.inner, request).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> PostResult<C::Error> {
        let request = PostRequest {
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits: PostLimits::Response(limits),
        };
        self.layer.post(&self.inner, request).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<C::Error>> {
        let request = DeleteRequest {
            uri,
            session_id,
            auth_header,
            custom_headers,
        };
        self.layer.delete(&self.inner, request).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> GetResult<C::Error> {
        let request = GetRequest {
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size: None,
        };
        self.layer.get(&self.inner, request).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> GetResult<C::Error> {
        let request = GetRequest {
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size: Some(max_sse_event_size),
        };
        self.layer.get(&self.inner, request).await
    }
}
