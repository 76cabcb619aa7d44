//! Turns a response body (any stream of byte chunks) into an [`EventStream`] through the SSE
//! decoder and a provider's [`WireParser`]. Chunk boundaries are irrelevant to the result.
//!
//! Invariants: every wait for the next chunk is bounded by the idle timeout; after an error item
//! the stream ends; once the parser reports the answer complete the rest of the body is not read;
//! a body that ends before the parser saw the end of the answer is a protocol error (emitted by
//! the parser's `on_eof`).

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};

use crate::error::{LlmError, TimeoutPhase};
use crate::event::StreamEvent;
use crate::sse::{SseDecoder, SseEvent};

/// The events of one answer; the last item is `Done` or an error.
pub type EventStream = BoxStream<'static, Result<StreamEvent, LlmError>>;

/// Whether the parser expects more events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    /// The answer is complete (`[DONE]`, `message_stop`); stop reading.
    Done,
}

/// A provider's interpretation of SSE events.
pub(crate) trait WireParser: Send + 'static {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, LlmError>;
    /// The body ended without `Flow::Done`: emit what completes the answer, or fail.
    fn on_eof(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Reading,
    Draining,
}

struct State<S, P> {
    provider: String,
    body: std::pin::Pin<Box<S>>,
    decoder: SseDecoder,
    parser: P,
    queue: VecDeque<StreamEvent>,
    error: Option<LlmError>,
    phase: Phase,
    idle: Duration,
}

/// Decodes an SSE body with `parser`.
pub(crate) fn sse_event_stream<S, E, P>(
    provider: &str,
    body: S,
    parser: P,
    idle: Duration,
) -> EventStream
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: fmt::Display,
    P: WireParser,
{
    let state = State {
        provider: provider.to_string(),
        body: Box::pin(body),
        decoder: SseDecoder::new(),
        parser,
        queue: VecDeque::new(),
        error: None,
        phase: Phase::Reading,
        idle,
    };
    futures::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.queue.pop_front() {
                return Some((Ok(event), state));
            }
            if let Some(error) = state.error.take() {
                state.phase = Phase::Draining;
                return Some((Err(error), state));
            }
            if state.phase == Phase::Draining {
                return None;
            }
            state.read_more().await;
        }
    })
    .boxed()
}

impl<S, E, P> State<S, P>
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: fmt::Display,
    P: WireParser,
{
    /// Reads one chunk and queues what it completes; sets `error` or `phase` when it ends.
    async fn read_more(&mut self) {
        let mut events = Vec::new();
        let at_eof = match tokio::time::timeout(self.idle, self.body.next()).await {
            Err(_) => {
                self.fail(LlmError::Timeout {
                    provider: self.provider.clone(),
                    phase: TimeoutPhase::Idle,
                    after: self.idle,
                });
                return;
            }
            Ok(Some(Err(e))) => {
                self.fail(LlmError::protocol(
                    &self.provider,
                    format!("the response stream broke off: {e}"),
                ));
                return;
            }
            Ok(Some(Ok(chunk))) => {
                if let Err(e) = self.decoder.feed(&chunk, &mut events) {
                    self.fail(LlmError::protocol(&self.provider, e.to_string()));
                    return;
                }
                false
            }
            Ok(None) => {
                if let Err(e) = self.decoder.finish(&mut events) {
                    self.fail(LlmError::protocol(&self.provider, e.to_string()));
                    return;
                }
                true
            }
        };
        for event in events {
            match self.parser.on_event(event, &mut self.queue) {
                Ok(Flow::Continue) => {}
                Ok(Flow::Done) => {
                    self.phase = Phase::Draining;
                    return;
                }
                Err(error) => {
                    self.fail(error);
                    return;
                }
            }
        }
        if at_eof {
            if let Err(error) = self.parser.on_eof(&mut self.queue) {
                self.error = Some(error);
            }
            self.phase = Phase::Draining;
        }
    }

    fn fail(&mut self, error: LlmError) {
        self.error = Some(error);
        self.phase = Phase::Draining;
    }
}

/// A finished list of events (non-streaming responses) as an [`EventStream`].
pub(crate) fn ready_event_stream(events: Vec<StreamEvent>) -> EventStream {
    futures::stream::iter(events.into_iter().map(Ok)).boxed()
}
