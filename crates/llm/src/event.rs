//! Streamed response events and the assembler that folds them into a [`ChatResponse`].
//!
//! Every provider yields the same sequence shape, whether it streamed or not:
//! `TextDelta*` (with `ReasoningDelta*` anywhere before the text) and per call `ToolCallStarted → ToolCallArgumentsDelta* → ToolCallFinished`
//! (calls may interleave, told apart by `index`), `Replay` items anywhere before `Done`, then at
//! most one `Usage`, then exactly one
//! `Done` as the last item. `index` is the call's position in the final
//! [`AssistantMessage::tool_calls`] (0, 1, 2… in order of `ToolCallStarted`), not a provider's
//! content-block index.

use crate::error::LlmError;
use coyote_protocol::ReplayItem;

use crate::types::{AssistantMessage, ChatResponse, FinishReason, ToolCall, Usage};

/// One increment of a model's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// A piece of the answer's text.
    TextDelta(String),
    /// Reasoning the model shows before its answer (OpenAI-compatible `reasoning_content`,
    /// Anthropic thinking). For display only: it is never part of the assistant message.
    ReasoningDelta(String),
    /// The model began a tool call.
    ToolCallStarted {
        /// The call's position among this answer's calls.
        index: usize,
        /// The call id (synthesized if the server sent none).
        id: String,
        /// The function called.
        name: String,
    },
    /// A piece of a call's raw argument text.
    ToolCallArgumentsDelta {
        /// The call's position among this answer's calls.
        index: usize,
        /// The next piece of argument text.
        delta: String,
    },
    /// The call is complete; `call.arguments` is the whole raw argument text.
    ToolCallFinished {
        /// The call's position among this answer's calls.
        index: usize,
        /// The whole call.
        call: ToolCall,
    },
    /// Something the user should know about this request that is not part of the answer
    /// (a tool schema the provider could not take whole); shown as a warning.
    Warning(String),
    /// Provider state to keep with the assistant message and send back with it (reasoning
    /// items, thought signatures); never shown.
    Replay(ReplayItem),
    /// Token counts, when the server reports them.
    Usage(Usage),
    /// Always the last event of a successful stream.
    Done {
        /// Why the model stopped.
        finish_reason: FinishReason,
    },
}

impl StreamEvent {
    /// The three events of a call that arrives whole (Gemini, Ollama): started, all its
    /// arguments at once, finished.
    pub(crate) fn whole_call(
        index: usize,
        id: String,
        name: String,
        arguments: String,
    ) -> [StreamEvent; 3] {
        [
            StreamEvent::ToolCallStarted {
                index,
                id: id.clone(),
                name: name.clone(),
            },
            StreamEvent::ToolCallArgumentsDelta {
                index,
                delta: arguments.clone(),
            },
            StreamEvent::ToolCallFinished {
                index,
                call: ToolCall::new(id, name, arguments),
            },
        ]
    }
}

/// Folds [`StreamEvent`]s into a [`ChatResponse`]; keep one per request and feed it every event
/// you forward to the UI, so a cancelled turn can still keep its partial answer.
#[derive(Debug, Default)]
pub struct ResponseAssembler {
    text: String,
    /// Finished calls by index; `None` while still streaming.
    calls: Vec<Option<ToolCall>>,
    replay: Vec<ReplayItem>,
    usage: Option<Usage>,
    finish_reason: Option<FinishReason>,
}

impl ResponseAssembler {
    /// An empty assembler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one event into the answer so far.
    pub fn push(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta(delta) => self.text.push_str(delta),
            StreamEvent::ToolCallStarted { index, .. } => self.slot(*index),
            StreamEvent::ToolCallArgumentsDelta { .. }
            | StreamEvent::ReasoningDelta(_)
            | StreamEvent::Warning(_) => {}
            StreamEvent::ToolCallFinished { index, call } => {
                self.slot(*index);
                self.calls[*index] = Some(call.clone());
            }
            StreamEvent::Replay(item) => self.replay.push(item.clone()),
            StreamEvent::Usage(usage) => self.usage = Some(*usage),
            StreamEvent::Done { finish_reason } => self.finish_reason = Some(finish_reason.clone()),
        }
    }

    fn slot(&mut self, index: usize) {
        if self.calls.len() <= index {
            self.calls.resize(index + 1, None);
        }
    }

    /// True once `Done` arrived.
    pub fn is_done(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// What the model said so far: the text and the calls that finished streaming. Use this to
    /// keep the partial answer of a cancelled turn.
    pub fn partial(&self) -> AssistantMessage {
        AssistantMessage {
            text: self.text.clone(),
            tool_calls: self.calls.iter().flatten().cloned().collect(),
            replay: self.replay.clone(),
        }
    }

    /// The complete response; a stream that ended without `Done`, or with a call that never
    /// finished, is a protocol error.
    pub fn finish(self, provider: &str) -> Result<ChatResponse, LlmError> {
        let Some(finish_reason) = self.finish_reason else {
            return Err(LlmError::protocol(
                provider,
                "the response ended before the model finished",
            ));
        };
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        for (index, call) in self.calls.into_iter().enumerate() {
            match call {
                Some(call) => tool_calls.push(call),
                None => {
                    return Err(LlmError::protocol(
                        provider,
                        format!("tool call #{index} was started but never finished"),
                    ));
                }
            }
        }
        Ok(ChatResponse {
            message: AssistantMessage {
                text: self.text,
                tool_calls,
                replay: self.replay,
            },
            usage: self.usage,
            finish_reason,
        })
    }
}
