//! The fake server's line transport: rmcp's `AsyncRwTransport` for reading, our own writer
//! for writing, so a tool can put bytes on the wire that rmcp would never produce (garbage
//! lines, off-spec results, results streamed chunk by chunk without building them in memory).
//!
//! Invariants: every write (rmcp message or raw) happens under one lock, so lines never
//! interleave; a request answered raw has its id recorded in `suppressed`, and rmcp's own
//! response for that id is then dropped by `send` — the client sees exactly one response.
//! End of input is logged once as `Event::Disconnect`. `kill()` closes both directions at
//! once (the in-process stand-in for a crash).

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex as StdMutex};

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::events::{Event, EventSink};

type BoxWriter = Pin<Box<dyn AsyncWrite + Send>>;

/// Handle for raw writes on the protocol stream (cheap to clone).
#[derive(Clone)]
pub(crate) struct RawOut {
    writer: Arc<Mutex<Option<BoxWriter>>>,
    suppressed: Arc<StdMutex<HashSet<RequestId>>>,
    killed: CancellationToken,
}

impl std::fmt::Debug for RawOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawOut").finish_non_exhaustive()
    }
}

impl RawOut {
    /// Writes one raw line (a `\n` is appended).
    pub(crate) async fn write_line(&self, line: &[u8]) -> std::io::Result<()> {
        let mut guard = self.writer.lock().await;
        let writer = guard.as_mut().ok_or_else(closed)?;
        writer.write_all(line).await?;
        writer.write_all(b"\n").await?;
        writer.flush().await
    }

    /// Answers request `id` with `result` verbatim; rmcp's own answer is then dropped.
    pub(crate) async fn respond_json(&self, id: &RequestId, result: &Value) -> std::io::Result<()> {
        let line = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
        self.suppress(id);
        self.write_line(line.to_string().as_bytes()).await
    }

    /// Answers request `id` with `result_head` + every chunk + `result_tail` as the result
    /// object, written piece by piece (the caller guarantees the pieces form valid JSON).
    pub(crate) async fn respond_streamed(
        &self,
        id: &RequestId,
        result_head: &str,
        body: impl Iterator<Item = Vec<u8>>,
        result_tail: &str,
    ) -> std::io::Result<()> {
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{result_head}"#,
            serde_json::to_string(id)?
        );
        self.suppress(id);
        let mut guard = self.writer.lock().await;
        let writer = guard.as_mut().ok_or_else(closed)?;
        writer.write_all(head.as_bytes()).await?;
        for chunk in body {
            writer.write_all(&chunk).await?;
        }
        writer.write_all(result_tail.as_bytes()).await?;
        writer.write_all(b"}\n").await?;
        writer.flush().await
    }

    fn suppress(&self, id: &RequestId) {
        self.suppressed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone());
    }

    /// Closes both directions now (simulated crash).
    pub(crate) async fn kill(&self) {
        self.killed.cancel();
        let mut guard = self.writer.lock().await;
        if let Some(mut writer) = guard.take() {
            let _ = writer.shutdown().await;
        }
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::NotConnected,
        "fake server transport is closed",
    )
}

/// `Transport<RoleServer>` over any reader/writer pair.
pub(crate) struct FakeTransport<R: AsyncRead + Send + Unpin + 'static> {
    reader: AsyncRwTransport<RoleServer, R, tokio::io::Sink>,
    out: RawOut,
    events: Arc<EventSink>,
    disconnected: CancellationToken,
}

impl<R: AsyncRead + Send + Unpin + 'static> FakeTransport<R> {
    pub(crate) fn new(
        read: R,
        write: impl AsyncWrite + Send + 'static,
        events: Arc<EventSink>,
    ) -> Self {
        // The reader's own error replies (for malformed input) go to a sink: the fake server
        // does not need to answer garbage from the client.
        let reader =
            AsyncRwTransport::new(read, tokio::io::sink()).with_max_line_length(usize::MAX);
        let out = RawOut {
            writer: Arc::new(Mutex::new(Some(Box::pin(write)))),
            suppressed: Arc::new(StdMutex::new(HashSet::new())),
            killed: CancellationToken::new(),
        };
        FakeTransport {
            reader,
            out,
            events,
            disconnected: CancellationToken::new(),
        }
    }

    pub(crate) fn raw_out(&self) -> RawOut {
        self.out.clone()
    }

    /// Cancelled once the input reached its end.
    pub(crate) fn disconnected(&self) -> CancellationToken {
        self.disconnected.clone()
    }
}

impl<R: AsyncRead + Send + Unpin + 'static> Transport<RoleServer> for FakeTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            let answered_raw = {
                let id = match &item {
                    rmcp::model::JsonRpcMessage::Response(r) => Some(&r.id),
                    rmcp::model::JsonRpcMessage::Error(e) => e.id.as_ref(),
                    _ => None,
                };
                let mut suppressed = out.suppressed.lock().unwrap_or_else(|e| e.into_inner());
                id.is_some_and(|id| suppressed.remove(id))
            };
            if answered_raw {
                return Ok(());
            }
            let line = serde_json::to_vec(&item)?;
            out.write_line(&line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let message = tokio::select! {
            message = self.reader.receive() => message,
            () = self.out.killed.cancelled() => None,
        };
        if message.is_none() && !self.disconnected.is_cancelled() {
            self.events.record(Event::Disconnect);
            self.disconnected.cancel();
        }
        // A cancellation is recorded as it is read: its handler runs in a task of its own,
        // which an end of input right after it can leave unrun.
        if let Some(JsonRpcMessage::Notification(n)) = &message
            && let ClientNotification::CancelledNotification(c) = &n.notification
        {
            let id = c.params.request_id.as_ref().map_or(Value::Null, |id| {
                serde_json::to_value(id).unwrap_or(Value::Null)
            });
            self.events
                .record_cancelled(id, c.params.reason.clone(), true);
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut guard = self.out.writer.lock().await;
        if let Some(mut writer) = guard.take() {
            let _ = writer.shutdown().await;
        }
        Ok(())
    }
}
