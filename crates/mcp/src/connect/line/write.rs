//! The write side of the line transport: one JSON-RPC message per line, written whole under
//! the writer lock (messages never interleave), eagerly from rmcp's service loop when the
//! pipe accepts it (no hop to the send task), and closable from shutdown independently of
//! the service loop.

use std::sync::Arc;

use rmcp::model::ClientJsonRpcMessage;
use tokio::io::{AsyncWrite, AsyncWriteExt};

pub(super) type Writer<W> = Arc<tokio::sync::Mutex<Option<W>>>;

/// The write half, shareable so shutdown can close stdin even when the service loop is stuck.
pub(crate) struct WriteHalf<W> {
    pub(super) writer: Writer<W>,
}

impl<W> Clone for WriteHalf<W> {
    fn clone(&self) -> Self {
        WriteHalf {
            writer: self.writer.clone(),
        }
    }
}

impl<W: AsyncWrite + Send + Unpin + 'static> WriteHalf<W> {
    /// Drops the writer (EOF for the peer). Bounded: a write blocked on a full pipe holds the
    /// lock, and then the caller's kill path takes over.
    pub(crate) async fn close(&self, wait: std::time::Duration) {
        if let Ok(mut guard) = tokio::time::timeout(wait, self.writer.lock()).await
            && let Some(mut w) = guard.take()
        {
            let _ = tokio::time::timeout(wait, w.shutdown()).await;
        }
    }
}

pub(super) fn encode(message: &ClientJsonRpcMessage) -> std::io::Result<Vec<u8>> {
    let mut bytes = match super::super::task_tap::with_task_capability(message) {
        Some(bytes) => bytes,
        None => serde_json::to_vec(message).map_err(std::io::Error::other)?,
    };
    bytes.push(b'\n');
    Ok(bytes)
}

pub(super) fn stdin_closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::NotConnected, "stdin is closed")
}

/// A message after the eager write attempt of `send`.
pub(super) enum Prepared<W> {
    /// Written whole (or failed) already.
    Done(std::io::Result<()>),
    /// Partly written: the rest follows, still under the writer lock (one message never
    /// interleaves with another).
    Rest {
        guard: tokio::sync::OwnedMutexGuard<Option<W>>,
        bytes: Vec<u8>,
        written: usize,
    },
    /// The writer is busy: wait for it.
    Queued(Vec<u8>),
}

/// Writes the line right away from the caller (rmcp's service loop) when the pipe takes it,
/// so the common case costs no hop to the send task rmcp spawns. The pipe is non-blocking: a
/// write that would block is finished by the returned future, which re-registers for
/// writability with a real waker.
pub(super) fn write_now<W: AsyncWrite + Unpin>(writer: &Writer<W>, bytes: Vec<u8>) -> Prepared<W> {
    let Ok(mut guard) = writer.clone().try_lock_owned() else {
        return Prepared::Queued(bytes);
    };
    let Some(w) = guard.as_mut() else {
        return Prepared::Done(Err(stdin_closed()));
    };
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let mut written = 0;
    while written < bytes.len() {
        match std::pin::Pin::new(&mut *w).poll_write(&mut cx, &bytes[written..]) {
            std::task::Poll::Ready(Ok(0)) => {
                return Prepared::Done(Err(std::io::ErrorKind::WriteZero.into()));
            }
            std::task::Poll::Ready(Ok(n)) => written += n,
            std::task::Poll::Ready(Err(e)) => return Prepared::Done(Err(e)),
            std::task::Poll::Pending => break,
        }
    }
    if written == bytes.len() {
        // Writers that buffer (a caller's stream) must not keep the line back.
        match std::pin::Pin::new(&mut *w).poll_flush(&mut cx) {
            std::task::Poll::Ready(result) => return Prepared::Done(result),
            std::task::Poll::Pending => {}
        }
    }
    Prepared::Rest {
        guard,
        bytes,
        written,
    }
}

pub(super) async fn write_line<W: AsyncWrite + Unpin>(
    writer: &tokio::sync::Mutex<Option<W>>,
    bytes: Vec<u8>,
) -> std::io::Result<()> {
    let mut guard = writer.lock().await;
    let w = guard.as_mut().ok_or_else(stdin_closed)?;
    w.write_all(&bytes).await?;
    w.flush().await
}
