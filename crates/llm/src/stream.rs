//! Turns a response body (any stream of byte chunks) into an [`EventStream`] through a frame
//! decoder (SSE, JSON lines or the AWS event stream, see `framing`) and a provider's
//! [`WireParser`]. Chunk boundaries are irrelevant to the result.
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
use crate::framing::Framing;
use crate::sse::SseEvent;

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
    decoder: Framing,
    parser: P,
    queue: VecDeque<StreamEvent>,
    error: Option<LlmError>,
    phase: Phase,
    idle: Duration,
}

/// Decodes an SSE body with `parser` (the parsers' tests; providers go through
/// `HttpCore::post_framed`).
#[cfg(test)]
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
    framed_event_stream(provider, body, Framing::sse(), parser, idle)
}

/// Decodes a body framed by `framing` (SSE, JSON lines, AWS event stream) with `parser`; each
/// frame reaches the parser as an [`SseEvent`] (the frame's name, if any, and its payload).
pub(crate) fn framed_event_stream<S, E, P>(
    provider: &str,
    body: S,
    framing: Framing,
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
        decoder: framing,
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

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    /// Emits every event's data as text and completes on `end`.
    struct Echo;

    impl WireParser for Echo {
        fn on_event(
            &mut self,
            event: SseEvent,
            out: &mut VecDeque<StreamEvent>,
        ) -> Result<Flow, LlmError> {
            if event.data == "end" {
                return Ok(Flow::Done);
            }
            out.push_back(StreamEvent::TextDelta(event.data));
            Ok(Flow::Continue)
        }

        fn on_eof(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
            Err(LlmError::protocol("fake", "eof"))
        }
    }

    fn chunk(text: &str) -> Result<Bytes, std::convert::Infallible> {
        Ok(Bytes::copy_from_slice(text.as_bytes()))
    }

    #[tokio::test]
    async fn a_stalled_body_hits_the_idle_timeout() {
        let idle = Duration::from_millis(20);
        let body = futures::stream::iter([chunk("data: a\n\n")]).chain(futures::stream::pending());
        let items: Vec<_> = sse_event_stream("fake", body, Echo, idle).collect().await;
        assert_eq!(
            items,
            vec![
                Ok(StreamEvent::TextDelta("a".into())),
                Err(LlmError::Timeout {
                    provider: "fake".into(),
                    phase: TimeoutPhase::Idle,
                    after: idle
                }),
            ]
        );
    }

    #[tokio::test]
    async fn nothing_is_read_after_the_parser_is_done() {
        // The pending tail would hit the idle timeout if it were polled.
        let body = futures::stream::iter([chunk("data: a\n\ndata: end\n\ndata: b\n\n")])
            .chain(futures::stream::pending());
        let items: Vec<_> = sse_event_stream("fake", body, Echo, Duration::from_millis(1))
            .collect()
            .await;
        assert_eq!(items, vec![Ok(StreamEvent::TextDelta("a".into()))]);
    }

    #[tokio::test]
    async fn a_broken_body_is_a_protocol_error() {
        let body = futures::stream::iter([
            Ok(Bytes::from_static(b"data: a\n\n")),
            Err("connection reset"),
        ]);
        let items: Vec<_> = sse_event_stream("fake", body, Echo, Duration::from_secs(5))
            .collect()
            .await;
        assert_eq!(
            items,
            vec![
                Ok(StreamEvent::TextDelta("a".into())),
                Err(LlmError::protocol(
                    "fake",
                    "the response stream broke off: connection reset"
                )),
            ]
        );
    }
}
