//! What the server puts on the wire beyond rmcp's defaults: rmcp stamps a `_meta.progressToken`
//! on every request it sends, but the reference's `elicitation/create` carries no `_meta`
//! (`{message, requestedSchema, mode}` only), and we never need progress from the client.
//!
//! [`Outgoing`] wraps any server transport and drops that token from server→client requests;
//! [`Sessions`] does the same for every Streamable HTTP session. Every way the server is served
//! (stdio in `main`, HTTP in `http`, the in-process test harness) goes through one of them.
//!
//! Invariant: only the `progressToken` key rmcp added is removed (an emptied `_meta` is dropped
//! entirely); responses and notifications pass through untouched.

use std::future::Future;
use std::sync::Arc;

use futures::Stream;
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, GetExtensions, GetMeta, JsonRpcMessage, RequestMetaObject,
    ServerJsonRpcMessage,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::{IntoTransport, Transport};

/// A server transport whose outgoing requests carry no `_meta.progressToken`.
#[derive(Debug)]
pub struct Outgoing<T>(pub T);

/// Drop the progress token rmcp stamped on an outgoing request.
pub fn strip_progress_token(
    mut message: TxJsonRpcMessage<RoleServer>,
) -> TxJsonRpcMessage<RoleServer> {
    if let JsonRpcMessage::Request(request) = &mut message {
        let meta = request.request.get_meta_mut();
        meta.0.0.remove("progressToken");
        if meta.0.0.is_empty() {
            request
                .request
                .extensions_mut()
                .remove::<RequestMetaObject>();
        }
    }
    message
}

/// Any stream or I/O pair rmcp can serve on (stdio pipes, a duplex), wrapped in [`Outgoing`].
pub fn outgoing<T, E, A>(io: T) -> Outgoing<impl Transport<RoleServer, Error = E> + 'static>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    Outgoing(io.into_transport())
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Outgoing<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.0.send(strip_progress_token(item))
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.0.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.0.close()
    }
}

/// rmcp's in-memory session manager with every session's transport wrapped in [`Outgoing`].
#[derive(Debug, Default)]
pub struct Sessions(pub LocalSessionManager);

impl SessionManager for Sessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = Outgoing<<LocalSessionManager as SessionManager>::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.0.create_session().await?;
        Ok((id, Outgoing(transport)))
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<ServerJsonRpcMessage, Self::Error>> + Send {
        self.0.initialize_session(id, message)
    }

    fn has_session(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.0.has_session(id)
    }

    fn close_session(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.0.close_session(id)
    }

    fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.0.create_stream(id, message)
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.0.accept_message(id, message)
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.0.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.0.resume(id, last_event_id)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(match self.0.restore_session(id).await? {
            RestoreOutcome::Restored(t) => RestoreOutcome::Restored(Outgoing(t)),
            RestoreOutcome::AlreadyPresent => RestoreOutcome::AlreadyPresent,
            _ => RestoreOutcome::NotSupported,
        })
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.0.event_store()
    }
}
