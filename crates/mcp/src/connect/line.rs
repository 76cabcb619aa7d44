//! Newline-delimited JSON-RPC over a byte stream (the stdio transport), replacing rmcp's
//! `AsyncRwTransport` for two reasons:
//!
//! 1. **Size.** rmcp caps a line at 16 MiB and silently drops a longer one, leaving the caller
//!    hanging. Here the cap is [`MAX_MESSAGE_BYTES`] (a 50 MiB blob is ~67 MiB of base64), and
//!    a longer line becomes an immediate JSON-RPC error for the request it answers: the line's
//!    head is scanned for the top-level `"id"` (and, if the id comes last, its last bytes are
//!    kept), everything else is discarded without being buffered, and a synthesized error
//!    response with [`MESSAGE_TOO_LARGE_CODE`] is delivered for that id. If the id cannot be
//!    found, every request still in flight gets that error. Never a hang.
//! 2. **Correlation.** A well-formed line that rmcp cannot type (e.g. an elicitation with a
//!    nested schema) is answered with an error *for its id*, not an uncorrelated one, and an
//!    unparseable response fails its own request instead of leaving it pending. A reply that
//!    is not UTF-8 fails its request at once; lone surrogate escapes become U+FFFD
//!    (`decode.rs`).
//!
//! Invariants: `receive` is polled inside rmcp's `select!` and may be cancelled at any await;
//! all partial-line state lives in the struct and every copy from the read buffer is paired
//! with its `consume` without an await in between. The reader is read directly from the
//! service loop (no reader task, no channel hop), and a line is written from it too when the
//! pipe accepts it at once (`write.rs`). A line that fits in the read buffer is parsed in
//! place, without copying it. A longer line is assembled through a structural scanner that
//! decodes a `resources/read` blob while it arrives instead of buffering its base64
//! (`divert.rs`); the line limit still counts every byte of the line, diverted or not.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ErrorCode, ErrorData, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use super::scan::{scan_head, scan_tail_for_id};
use super::typed::ExpectedResults;
use crate::client_handler::Generations;
use crate::error::fmt_bytes;
pub use decode::UNDECODABLE_DATA_KEY;
pub(crate) use decode::undecodable_details;
use divert::Divert;
pub(crate) use write::WriteHalf;
use write::{Prepared, Writer, encode, stdin_closed, write_line, write_now};

mod decode;
mod divert;
#[doc(hidden)]
pub mod fuzzing;
mod write;

/// Largest accepted JSON-RPC message (one line), in bytes: 80 MiB. A 50 MiB blob is about
/// 67 MiB once base64-encoded, plus the JSON around it.
pub const MAX_MESSAGE_BYTES: usize = 80 * 1024 * 1024;

/// JSON-RPC error code of the synthesized "message too large" response (implementation-defined
/// range). The error's `data` carries [`TOO_LARGE_DATA_KEY`], so a server error with the same
/// code is not mistaken for ours.
pub const MESSAGE_TOO_LARGE_CODE: i32 = -32099;
/// Key of the `data` object of a synthesized "message too large" error.
pub const TOO_LARGE_DATA_KEY: &str = "coyoteMessageTooLarge";

/// Read buffer size: most messages fit and are parsed in place.
const READ_BUFFER_BYTES: usize = 256 * 1024;
/// How much of an oversized line's head is scanned for its `"id"`.
const HEAD_SCAN_BYTES: usize = 64 * 1024;
/// How many trailing bytes of an oversized line are kept to find an `"id"` written last.
const TAIL_KEEP_BYTES: usize = 1024;

/// Ids of requests sent and not yet answered; used when an oversized line's id is unknown.
#[derive(Default)]
struct InFlight(std::sync::Mutex<HashSet<RequestId>>);

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// State kept while discarding an oversized line.
struct Oversized {
    seen: u64,
    /// Error already delivered (id found in the head).
    delivered: bool,
    /// The head said `"method"`: a server request/notification, not a response.
    is_request: bool,
    head_id: Option<RequestId>,
    tail: Vec<u8>,
}

impl Oversized {
    fn absorb(&mut self, chunk: &[u8]) {
        self.seen += chunk.len() as u64;
        if chunk.len() >= TAIL_KEEP_BYTES {
            self.tail.clear();
            self.tail
                .extend_from_slice(&chunk[chunk.len() - TAIL_KEEP_BYTES..]);
        } else {
            let overflow = (self.tail.len() + chunk.len()).saturating_sub(TAIL_KEEP_BYTES);
            self.tail.drain(..overflow);
            self.tail.extend_from_slice(chunk);
        }
    }
}

// Messages are moved out by value on every read; boxing would cost an allocation each.
#[expect(clippy::large_enum_variant)]
enum Step {
    /// A complete line was parsed (or skipped).
    Message(Option<ServerJsonRpcMessage>),
    /// More bytes are needed (or an oversized line was handled).
    More,
}

/// Newline-delimited JSON-RPC client transport with a raised, explicit size limit.
pub(crate) struct LineTransport<R, W> {
    reader: BufReader<R>,
    core: Core<W>,
}

/// Everything but the reader, so a read-buffer borrow and the line logic never conflict.
struct Core<W> {
    server: Arc<str>,
    /// The line being assembled, less any diverted blob (replaced by its token).
    line: Vec<u8>,
    /// Bytes of that line received so far, diverted ones included (checked against `limit`).
    raw_len: usize,
    divert: Divert,
    limit: usize,
    oversized: Option<Oversized>,
    queued: VecDeque<ServerJsonRpcMessage>,
    writer: Writer<W>,
    in_flight: Arc<InFlight>,
    /// Typed fast path for answers of known kind (`typed.rs`, owned by the latency work).
    expected: ExpectedResults,
    /// Where the task wire's facts rmcp drops are recorded (`task_tap.rs`), once connected.
    tap: Option<Arc<Generations>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// `limit` is the largest accepted line in bytes ([`MAX_MESSAGE_BYTES`] in production).
    pub(crate) fn new(server: &str, read: R, write: W, limit: usize) -> Self {
        LineTransport {
            reader: BufReader::with_capacity(READ_BUFFER_BYTES, read),
            core: Core {
                server: Arc::from(server),
                line: Vec::new(),
                raw_len: 0,
                divert: Divert::default(),
                limit,
                oversized: None,
                queued: VecDeque::new(),
                writer: Arc::new(tokio::sync::Mutex::new(Some(write))),
                in_flight: Arc::default(),
                expected: ExpectedResults::default(),
                tap: None,
            },
        }
    }

    /// Writes big binary `resources/read` blobs to temp files of `store` while they arrive.
    pub(crate) fn spill_blobs_into(&mut self, store: crate::render::SpillStore) {
        self.core.divert.spill = Some((store, self.core.server.clone()));
    }

    /// Records the task facts of incoming messages in `generations` (`task_tap.rs`).
    pub(crate) fn tap_into(&mut self, generations: Arc<Generations>) {
        self.core.tap = Some(generations);
    }

    pub(crate) fn write_half(&self) -> WriteHalf<W> {
        WriteHalf {
            writer: self.core.writer.clone(),
        }
    }
}

impl<W> Core<W>
where
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Handles one chunk of the read buffer; returns how much of it was used. Synchronous, so
    /// the caller's `consume` always matches what was copied (cancellation safety).
    fn on_chunk(&mut self, available: &[u8]) -> (usize, Step) {
        let newline = memchr::memchr(b'\n', available);
        let take = newline.map_or(available.len(), |i| i + 1);

        if let Some(ov) = self.oversized.as_mut() {
            ov.absorb(&available[..take]);
            if newline.is_some()
                && let Some(ov) = self.oversized.take()
            {
                self.finish_oversized(ov);
            }
            return (take, Step::More);
        }

        let body_len = newline.unwrap_or(available.len());
        if self.raw_len + body_len > self.limit {
            self.start_oversized(&available[..take], newline.is_some());
            return (take, Step::More);
        }

        match newline {
            // Fast path: the whole line is in the read buffer; parse it in place.
            Some(i) if self.raw_len == 0 => (take, Step::Message(self.parse(&available[..i]))),
            Some(i) => {
                self.divert.feed(&available[..i], &mut self.line);
                self.divert.end_line();
                self.raw_len = 0;
                let line = std::mem::take(&mut self.line);
                let message = self.parse(&line);
                if line.capacity() <= 4 * READ_BUFFER_BYTES {
                    // Reuse the buffer, but never keep a big message's allocation alive.
                    self.line = line;
                    self.line.clear();
                }
                (take, Step::Message(message))
            }
            None => {
                self.divert.feed(available, &mut self.line);
                self.raw_len += available.len();
                (take, Step::More)
            }
        }
    }

    /// The line passed the limit: scan its head, deliver the error now when the head names
    /// the id, and discard the rest without buffering it.
    fn start_oversized(&mut self, chunk: &[u8], ends_here: bool) {
        let prior = std::mem::take(&mut self.line);
        let prior_raw = std::mem::take(&mut self.raw_len);
        self.divert.abandon();
        let scan = {
            let mut head = Vec::with_capacity(HEAD_SCAN_BYTES);
            head.extend_from_slice(&prior[..prior.len().min(HEAD_SCAN_BYTES)]);
            let room = HEAD_SCAN_BYTES - head.len();
            head.extend_from_slice(&chunk[..room.min(chunk.len())]);
            scan_head(&head)
        };
        let mut ov = Oversized {
            seen: 0,
            delivered: false,
            is_request: scan.has_method,
            head_id: scan.id,
            tail: Vec::new(),
        };
        ov.absorb(&prior);
        // Diverted bytes were not in `prior` but count towards the size.
        ov.seen = prior_raw as u64;
        drop(prior);
        ov.absorb(chunk);
        if ends_here {
            self.finish_oversized(ov);
            return;
        }
        if let (Some(id), false) = (ov.head_id.clone(), ov.is_request) {
            self.deliver_too_large(vec![id], ov.seen, true);
            ov.delivered = true;
        }
        self.oversized = Some(ov);
    }

    fn finish_oversized(&mut self, ov: Oversized) {
        // `seen` counts the newline; the message itself is one byte shorter.
        let size = ov.seen.saturating_sub(1);
        tracing::error!(
            server = %self.server,
            size,
            limit = self.limit,
            "MCP message exceeded MAX_MESSAGE_BYTES; discarded"
        );
        if ov.delivered {
            return;
        }
        let id = ov.head_id.or_else(|| scan_tail_for_id(&ov.tail));
        if ov.is_request {
            if let Some(id) = id {
                let message = format!(
                    "request too large: {size} bytes exceeds the limit of {}",
                    fmt_bytes(self.limit as u64)
                );
                self.reply_error(id, ErrorData::invalid_request(message, None));
            }
            return;
        }
        let ids = match id {
            Some(id) => vec![id],
            // The answer to *some* request was lost; fail them all rather than hang.
            None => self.in_flight.lock().iter().cloned().collect(),
        };
        self.deliver_too_large(ids, size, false);
    }

    fn deliver_too_large(&mut self, ids: Vec<RequestId>, size: u64, lower_bound: bool) {
        for id in ids {
            self.in_flight.lock().remove(&id);
            let error = too_large_error(size, lower_bound, self.limit);
            self.queued
                .push_back(JsonRpcMessage::error(error, Some(id)));
        }
    }

    /// Parses one line. Bad lines never leave a request pending: see the module docs and
    /// `decode.rs`.
    fn parse(&self, line: &[u8]) -> Option<ServerJsonRpcMessage> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let parsed = match self.expected.parse(line) {
            Some(message) => Ok(message),
            None => {
                if let Some(generations) = &self.tap {
                    generations.tasks.tap(line);
                }
                serde_json::from_slice::<ServerJsonRpcMessage>(line)
                    .map(|message| super::typed::recheck_generic(line, message))
            }
        };
        match parsed {
            Ok(message) => self.accepted(message),
            Err(e) => self.handle_bad_line(line, e),
        }
    }

    /// A parsed message; a response is no longer in flight.
    fn accepted(&self, message: ServerJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
        let answered = match &message {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if let Some(id) = answered {
            self.in_flight.lock().remove(id);
        }
        Some(message)
    }

    /// Answers a server request we could not handle; written from a task so `receive` never
    /// waits on the write side.
    fn reply_error(&self, id: RequestId, error: ErrorData) {
        let message: ClientJsonRpcMessage = JsonRpcMessage::error(error, Some(id));
        let writer = self.writer.clone();
        if let Ok(bytes) = encode(&message) {
            tokio::spawn(async move {
                let _ = write_line(&writer, bytes).await;
            });
        }
    }
}

impl<R, W> Transport<RoleClient> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.core.expected.note_sent(&item);
        match &item {
            JsonRpcMessage::Request(r) => {
                self.core.in_flight.lock().insert(r.id.clone());
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.core.in_flight.lock().remove(id);
                }
            }
            _ => {}
        }
        let prepared = match encode(&item) {
            Ok(bytes) => write_now(&self.core.writer, bytes),
            Err(e) => Prepared::Done(Err(e)),
        };
        let writer = self.core.writer.clone();
        async move {
            match prepared {
                Prepared::Done(result) => result,
                Prepared::Rest {
                    mut guard,
                    bytes,
                    written,
                } => match guard.as_mut() {
                    Some(w) => {
                        w.write_all(&bytes[written..]).await?;
                        w.flush().await
                    }
                    None => Err(stdin_closed()),
                },
                Prepared::Queued(bytes) => write_line(&writer, bytes).await,
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            if let Some(message) = self.core.queued.pop_front() {
                return Some(message);
            }
            let available = match self.reader.fill_buf().await {
                Ok(available) => available,
                Err(error) => {
                    tracing::warn!(server = %self.core.server, %error, "error reading the server's stdout");
                    return None;
                }
            };
            if available.is_empty() {
                return None;
            }
            let (used, step) = self.core.on_chunk(available);
            self.reader.consume(used);
            if let Step::Message(Some(message)) = step {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut guard = self.core.writer.lock().await;
        if let Some(mut w) = guard.take() {
            let _ = w.shutdown().await;
        }
        Ok(())
    }
}

/// The error a request gets when its answer was over the limit (`size` bytes, at least that
/// many when `lower_bound`); [`too_large_details`] recognises it. The HTTP transport uses it
/// for an SSE event over the limit too (`post.rs`).
pub(crate) fn too_large_error(size: u64, lower_bound: bool, limit: usize) -> ErrorData {
    let plus = if lower_bound { "+" } else { "" };
    let shown = fmt_bytes(limit as u64);
    ErrorData::new(
        ErrorCode(MESSAGE_TOO_LARGE_CODE),
        format!(
            "message too large: {size}{plus} bytes exceeds the limit of {shown} (MAX_MESSAGE_BYTES)"
        ),
        Some(serde_json::json!({
            TOO_LARGE_DATA_KEY: {
                "size": size,
                "sizeIsLowerBound": lower_bound,
                "limit": limit,
            }
        })),
    )
}

/// True when `error` is the synthesized "message too large" error of this module.
pub(crate) fn too_large_details(error: &ErrorData) -> Option<(u64, bool, u64)> {
    if error.code.0 != MESSAGE_TOO_LARGE_CODE {
        return None;
    }
    let details = error.data.as_ref()?.get(TOO_LARGE_DATA_KEY)?;
    Some((
        details.get("size")?.as_u64()?,
        details.get("sizeIsLowerBound")?.as_bool()?,
        details.get("limit")?.as_u64()?,
    ))
}

#[cfg(test)]
#[path = "line_tests.rs"]
mod tests;
