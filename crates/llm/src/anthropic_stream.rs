//! Reading Anthropic answers: the streamed event sequence (`message_start`,
//! `content_block_start/delta/stop`, `message_delta`, `message_stop`, `ping`, `error`) and the
//! whole-message format, both into [`StreamEvent`]s.
//!
//! Content-block indices count text blocks too; tool calls are renumbered 0, 1, 2… Arguments are
//! the concatenated `input_json_delta`s, or the block's initial `input` when no delta came.
//! Usage: input = `input_tokens` + cache creation + cache reads (from `message_start`, updated by
//! `message_delta` when present); output = the cumulative `output_tokens` of `message_delta`.
//! The answer is complete only at `message_stop`; anything else is a cut stream.

use std::collections::{BTreeMap, VecDeque};

use serde::Deserialize;
use serde_json::Value;

use crate::error::LlmError;
use crate::error_body::{ErrorInfo, in_band_error};
use crate::event::StreamEvent;
use crate::sse::SseEvent;
use crate::stream::{Flow, WireParser};
use crate::types::{FinishReason, ToolCall, Usage};

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireEvent {
    MessageStart {
        message: StartMessage,
    },
    ContentBlockStart {
        index: u64,
        content_block: Block,
    },
    ContentBlockDelta {
        index: u64,
        delta: BlockDelta,
    },
    ContentBlockStop {
        index: u64,
    },
    MessageDelta {
        delta: MessageDeltaBody,
        usage: Option<WireUsage>,
    },
    MessageStop,
    Ping,
    Error {
        error: Value,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Deserialize)]
struct StartMessage {
    usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        #[serde(default)]
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct MessageDeltaBody {
    stop_reason: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

impl WireUsage {
    /// Total prompt tokens, when this usage reports any.
    fn input(&self) -> Option<u64> {
        let parts = [
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
        ];
        parts
            .iter()
            .any(Option::is_some)
            .then(|| parts.iter().flatten().sum())
    }
}

#[derive(Debug)]
struct PartialCall {
    id: String,
    name: String,
    /// The block's initial `input`, serialized.
    initial: String,
    json: String,
    finished: bool,
}

/// Stream state of one Anthropic answer.
#[derive(Debug)]
pub(crate) struct AnthropicStreamParser {
    provider: String,
    /// Content-block index → position in `calls` (only tool blocks).
    tool_blocks: BTreeMap<u64, usize>,
    calls: Vec<PartialCall>,
    input: Option<u64>,
    output: Option<u64>,
    stop_reason: Option<String>,
}

impl AnthropicStreamParser {
    pub fn new(provider: &str) -> Self {
        AnthropicStreamParser {
            provider: provider.to_string(),
            tool_blocks: BTreeMap::new(),
            calls: Vec::new(),
            input: None,
            output: None,
            stop_reason: None,
        }
    }

    fn start_block(&mut self, index: u64, block: Block, out: &mut VecDeque<StreamEvent>) {
        match block {
            Block::Text { text } if !text.is_empty() => out.push_back(StreamEvent::TextDelta(text)),
            Block::Thinking { thinking } if !thinking.is_empty() => {
                out.push_back(StreamEvent::ReasoningDelta(thinking))
            }
            Block::Text { .. } | Block::Thinking { .. } | Block::Other => {}
            Block::ToolUse { id, name, input } => {
                let position = self.calls.len();
                self.tool_blocks.insert(index, position);
                let initial = match input {
                    Value::Null => "{}".to_string(),
                    other => other.to_string(),
                };
                out.push_back(StreamEvent::ToolCallStarted {
                    index: position,
                    id: id.clone(),
                    name: name.clone(),
                });
                self.calls.push(PartialCall {
                    id,
                    name,
                    initial,
                    json: String::new(),
                    finished: false,
                });
            }
        }
    }

    fn finish_call(&mut self, position: usize, out: &mut VecDeque<StreamEvent>) {
        let call = &mut self.calls[position];
        if call.finished {
            return;
        }
        call.finished = true;
        let arguments = if call.json.trim().is_empty() {
            call.initial.clone()
        } else {
            call.json.clone()
        };
        out.push_back(StreamEvent::ToolCallFinished {
            index: position,
            call: ToolCall::new(call.id.clone(), call.name.clone(), arguments),
        });
    }

    fn record_usage(&mut self, usage: Option<WireUsage>) {
        if let Some(usage) = usage {
            if let Some(input) = usage.input() {
                self.input = Some(input);
            }
            if let Some(output) = usage.output_tokens {
                self.output = Some(output);
            }
        }
    }

    fn complete(&mut self, out: &mut VecDeque<StreamEvent>) {
        for position in 0..self.calls.len() {
            self.finish_call(position, out);
        }
        if self.input.is_some() || self.output.is_some() {
            out.push_back(StreamEvent::Usage(Usage {
                input: self.input.unwrap_or(0),
                output: self.output.unwrap_or(0),
            }));
        }
        let finish_reason = match self.stop_reason.take() {
            Some(reason) => stop_reason(&reason),
            None if self.calls.is_empty() => FinishReason::Stop,
            None => FinishReason::ToolCalls,
        };
        out.push_back(StreamEvent::Done { finish_reason });
    }
}

impl WireParser for AnthropicStreamParser {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, LlmError> {
        let wire: WireEvent = serde_json::from_str(&event.data).map_err(|e| {
            LlmError::protocol(
                &self.provider,
                format!("a streamed event is not valid JSON ({e})"),
            )
        })?;
        match wire {
            WireEvent::MessageStart { message } => self.record_usage(message.usage),
            WireEvent::ContentBlockStart {
                index,
                content_block,
            } => self.start_block(index, content_block, out),
            WireEvent::ContentBlockDelta { index, delta } => match delta {
                BlockDelta::TextDelta { text } if !text.is_empty() => {
                    out.push_back(StreamEvent::TextDelta(text))
                }
                BlockDelta::ThinkingDelta { thinking } if !thinking.is_empty() => {
                    out.push_back(StreamEvent::ReasoningDelta(thinking))
                }
                BlockDelta::InputJsonDelta { partial_json } if !partial_json.is_empty() => {
                    let position = *self.tool_blocks.get(&index).ok_or_else(|| {
                        LlmError::protocol(
                            &self.provider,
                            format!("input_json_delta for block {index}, which is not a tool_use"),
                        )
                    })?;
                    self.calls[position].json.push_str(&partial_json);
                    out.push_back(StreamEvent::ToolCallArgumentsDelta {
                        index: position,
                        delta: partial_json,
                    });
                }
                BlockDelta::TextDelta { .. }
                | BlockDelta::ThinkingDelta { .. }
                | BlockDelta::InputJsonDelta { .. }
                | BlockDelta::Other => {}
            },
            WireEvent::ContentBlockStop { index } => {
                if let Some(&position) = self.tool_blocks.get(&index) {
                    self.finish_call(position, out);
                }
            }
            WireEvent::MessageDelta { delta, usage } => {
                if delta.stop_reason.is_some() {
                    self.stop_reason = delta.stop_reason;
                }
                self.record_usage(usage);
            }
            WireEvent::MessageStop => {
                self.complete(out);
                return Ok(Flow::Done);
            }
            WireEvent::Error { error } => {
                return Err(in_band_error(
                    &self.provider,
                    &ErrorInfo::from_value(&error, error.to_string()),
                ));
            }
            WireEvent::Ping | WireEvent::Unknown => {}
        }
        Ok(Flow::Continue)
    }

    fn on_eof(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        Err(LlmError::protocol(
            &self.provider,
            "the stream ended before message_stop",
        ))
    }
}

pub(crate) fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "max_tokens" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_string()),
    }
}

#[derive(Debug, Deserialize)]
struct WholeMessage {
    #[serde(default)]
    content: Vec<Block>,
    stop_reason: Option<String>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

/// A non-streamed message as the same event sequence a stream would give.
pub(crate) fn parse_message(provider: &str, body: &[u8]) -> Result<Vec<StreamEvent>, LlmError> {
    let message: WholeMessage = serde_json::from_slice(body).map_err(|e| {
        LlmError::protocol(provider, format!("the response is not a message ({e})"))
    })?;
    if let Some(error) = &message.error {
        return Err(in_band_error(
            provider,
            &ErrorInfo::from_value(error, error.to_string()),
        ));
    }
    let mut parser = AnthropicStreamParser::new(provider);
    let mut out = VecDeque::new();
    parser.record_usage(message.usage);
    for (index, block) in message.content.into_iter().enumerate() {
        parser.start_block(index as u64, block, &mut out);
    }
    parser.stop_reason = message.stop_reason;
    parser.complete(&mut out);
    Ok(out.into())
}

#[cfg(test)]
#[path = "anthropic_stream_tests.rs"]
mod tests;
