//! SSE events within a size limit, counted on the raw bytes before the parser keeps them, for
//! the POST answers of `post.rs` (rmcp's own limiter is private to its client). An event over
//! the limit ends the stream; the request the stream answers gets the line transport's
//! "message too large" error instead, so it fails at once and says why.
//!
//! Invariant: the parser never holds more than the limit of one event (plus one chunk).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use rmcp::model::{RequestId, ServerJsonRpcMessage};
use sse_stream::{Error as SseError, Sse, SseStream};

use super::line::too_large_error;

/// Counts the bytes of the SSE event being received (line ends excluded; a blank line ends
/// an event).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventLimit {
    max: usize,
    size: usize,
    after_line_end: bool,
    after_cr: bool,
}

impl EventLimit {
    pub(crate) fn new(max: usize) -> Self {
        EventLimit {
            max,
            size: 0,
            after_line_end: true,
            after_cr: false,
        }
    }

    /// Feeds `chunk`; false once the event being received is over the limit.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> bool {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    if self.after_line_end {
                        self.size = 0;
                    }
                    self.after_line_end = true;
                    self.after_cr = byte == b'\r';
                }
                _ => {
                    self.after_line_end = false;
                    self.after_cr = false;
                    self.size += 1;
                    if self.size > self.max {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// An SSE event over the transport's limit, for a stream that answers no request.
#[derive(Debug, thiserror::Error)]
#[error("an SSE event exceeded the maximum size of {max} bytes")]
pub(crate) struct EventTooLarge {
    max: usize,
}

/// The events of `bytes`, each within `max` raw bytes. An event over the limit ends the
/// stream before it is parsed (the parser drops the unfinished event at the end of its input);
/// the request the stream answers (`answers`) then gets the "message too large" error the
/// line transport gives, so it fails at once and says why; a stream that answers nothing
/// ends with [`EventTooLarge`].
pub(crate) fn limited_events<S>(
    bytes: S,
    max: usize,
    answers: Option<RequestId>,
) -> BoxStream<'static, Result<Sse, SseError>>
where
    S: Stream<Item = Result<Bytes, reqwest::Error>> + Send + 'static,
{
    let over = Arc::new(AtomicBool::new(false));
    let flag = over.clone();
    let mut limit = EventLimit::new(max);
    let cut = bytes.take_while(move |chunk| {
        let fits = chunk.as_ref().map_or(true, |c| limit.feed(c));
        if !fits {
            flag.store(true, Ordering::Release);
        }
        futures::future::ready(fits)
    });
    let tail = futures::stream::once(async move {
        if !over.load(Ordering::Acquire) {
            return None;
        }
        tracing::warn!(max, "an SSE event over the size limit was dropped");
        Some(match &answers {
            Some(id) => {
                let error = too_large_error(max as u64 + 1, true, max);
                let message = ServerJsonRpcMessage::error(error, Some(id.clone()));
                Ok(Sse::default().data(serde_json::to_string(&message).unwrap_or_default()))
            }
            None => Err(SseError::Body(Box::new(EventTooLarge { max }))),
        })
    })
    .filter_map(futures::future::ready);
    SseStream::from_bytes_stream(cut).chain(tail).boxed()
}

#[cfg(test)]
#[path = "sse_limit_tests.rs"]
mod tests;
