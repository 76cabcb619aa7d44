//! Reading OpenAI-compatible answers: the streamed chunk format (`data: {chunk}` … `data: [DONE]`)
//! and the whole-response format, both into [`StreamEvent`]s.
//!
//! Tolerances, each seen in a real server: tool-call deltas without `index` (matched by `id`, else
//! appended to the last call) or without `id` (one is synthesized); a call's `id`/`name` repeated
//! in later deltas; `arguments` sent as a JSON object instead of a string; usage in the final
//! `choices: []` chunk, on every chunk, or under `x_groq`; a missing `[DONE]` after a
//! `finish_reason`. The answer is complete at `[DONE]`, or at end of body after a
//! `finish_reason`; anything else is a cut stream (protocol error).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Deserialize;
use serde_json::Value;

use crate::error::LlmError;
use crate::error_body::{ErrorInfo, in_band_error};
use crate::event::StreamEvent;
use crate::sse::SseEvent;
use crate::stream::{Flow, WireParser};
use crate::types::{FinishReason, ToolCall, Usage};

#[derive(Debug, Deserialize)]
struct Chunk {
    choices: Option<Vec<ChunkChoice>>,
    usage: Option<WireUsage>,
    x_groq: Option<XGroq>,
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct ChunkChoice {
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    content: Option<String>,
    /// DeepSeek, vLLM, llama.cpp …; `reasoning` on OpenRouter and Ollama.
    #[serde(alias = "reasoning")]
    reasoning_content: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    index: Option<u64>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<Value>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct XGroq {
    usage: Option<WireUsage>,
}

impl From<WireUsage> for Usage {
    fn from(usage: WireUsage) -> Self {
        Usage {
            input: usage.prompt_tokens.unwrap_or(0),
            output: usage.completion_tokens.unwrap_or(0),
        }
    }
}

/// A call being streamed.
#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    started: bool,
    finished: bool,
}

/// Stream state of one OpenAI-compatible answer.
#[derive(Debug)]
pub(crate) struct OpenAiStreamParser {
    provider: String,
    calls: Vec<PartialCall>,
    /// The server's `index` → position in `calls`.
    by_wire_index: BTreeMap<u64, usize>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
}

impl OpenAiStreamParser {
    pub fn new(provider: &str) -> Self {
        OpenAiStreamParser {
            provider: provider.to_string(),
            calls: Vec::new(),
            by_wire_index: BTreeMap::new(),
            finish: None,
            usage: None,
        }
    }

    fn position(&mut self, delta: &ToolCallDelta) -> usize {
        if let Some(wire) = delta.index {
            if let Some(&position) = self.by_wire_index.get(&wire) {
                return position;
            }
            self.calls.push(PartialCall::default());
            self.by_wire_index.insert(wire, self.calls.len() - 1);
            return self.calls.len() - 1;
        }
        let known = delta
            .id
            .as_deref()
            .filter(|id| !id.is_empty())
            .map(|id| self.calls.iter().position(|c| c.id == id));
        match known {
            Some(Some(position)) => position,
            Some(None) => {
                self.calls.push(PartialCall::default());
                self.calls.len() - 1
            }
            None if self.calls.is_empty() => {
                self.calls.push(PartialCall::default());
                0
            }
            None => self.calls.len() - 1,
        }
    }

    fn on_tool_delta(&mut self, delta: ToolCallDelta, out: &mut VecDeque<StreamEvent>) {
        let index = self.position(&delta);
        let call = &mut self.calls[index];
        if let Some(id) = delta.id.filter(|id| !id.is_empty())
            && call.id.is_empty()
        {
            call.id = id;
        }
        let (name, arguments) = match delta.function {
            Some(function) => (function.name, function.arguments),
            None => (None, None),
        };
        if let Some(name) = name.filter(|n| !n.is_empty())
            && !(call.started && call.name == name)
        {
            call.name.push_str(&name);
        }
        let piece = match arguments {
            Some(Value::String(text)) => text,
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        call.arguments.push_str(&piece);
        if !call.started && !call.name.is_empty() {
            call.started = true;
            if call.id.is_empty() {
                call.id = synthesize_call_id();
            }
            out.push_back(StreamEvent::ToolCallStarted {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
            });
            if !call.arguments.is_empty() {
                out.push_back(StreamEvent::ToolCallArgumentsDelta {
                    index,
                    delta: call.arguments.clone(),
                });
            }
        } else if call.started && !piece.is_empty() {
            out.push_back(StreamEvent::ToolCallArgumentsDelta {
                index,
                delta: piece,
            });
        }
    }

    fn finish_calls(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        for (index, call) in self.calls.iter_mut().enumerate() {
            if call.finished {
                continue;
            }
            if !call.started {
                return Err(LlmError::protocol(
                    &self.provider,
                    format!("tool call #{index} arrived without a name"),
                ));
            }
            call.finished = true;
            out.push_back(StreamEvent::ToolCallFinished {
                index,
                call: ToolCall::new(call.id.clone(), call.name.clone(), call.arguments.clone()),
            });
        }
        Ok(())
    }

    fn complete(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        self.finish_calls(out)?;
        if let Some(usage) = self.usage {
            out.push_back(StreamEvent::Usage(usage));
        }
        let fallback = if self.calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        };
        out.push_back(StreamEvent::Done {
            finish_reason: self.finish.take().unwrap_or(fallback),
        });
        Ok(())
    }
}

impl WireParser for OpenAiStreamParser {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, LlmError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.complete(out)?;
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            return Ok(Flow::Continue);
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            LlmError::protocol(
                &self.provider,
                format!("a streamed chunk is not valid JSON ({e})"),
            )
        })?;
        if let Some(error) = &chunk.error {
            return Err(in_band_error(
                &self.provider,
                &ErrorInfo::from_value(error, error.to_string()),
            ));
        }
        if let Some(usage) = chunk.usage.or(chunk.x_groq.and_then(|x| x.usage)) {
            self.usage = Some(usage.into());
        }
        // Only the first choice matters: we never ask for `n > 1`.
        if let Some(choice) = chunk.choices.and_then(|c| c.into_iter().next()) {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta.reasoning_content.filter(|t| !t.is_empty()) {
                    out.push_back(StreamEvent::ReasoningDelta(text));
                }
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    out.push_back(StreamEvent::TextDelta(text));
                }
                for call in delta.tool_calls.unwrap_or_default() {
                    self.on_tool_delta(call, out);
                }
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.finish_calls(out)?;
                self.finish = Some(finish_reason(&reason));
            }
        }
        Ok(Flow::Continue)
    }

    fn on_eof(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        if self.finish.is_none() {
            return Err(LlmError::protocol(
                &self.provider,
                "the stream ended before the model finished (no finish_reason and no [DONE])",
            ));
        }
        self.complete(out)
    }
}

pub(crate) fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_string()),
    }
}

/// A process-unique id for a call the server sent without one.
fn synthesize_call_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("call_coyote_{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

#[derive(Debug, Deserialize)]
struct Completion {
    choices: Option<Vec<CompletionChoice>>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct CompletionChoice {
    message: Option<CompletionMessage>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CompletionMessage {
    content: Option<String>,
    #[serde(alias = "reasoning")]
    reasoning_content: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

/// A non-streamed answer as the same event sequence a stream would give.
pub(crate) fn parse_completion(provider: &str, body: &[u8]) -> Result<Vec<StreamEvent>, LlmError> {
    let completion: Completion = serde_json::from_slice(body).map_err(|e| {
        LlmError::protocol(
            provider,
            format!("the response is not a chat completion ({e})"),
        )
    })?;
    if let Some(error) = &completion.error {
        return Err(in_band_error(
            provider,
            &ErrorInfo::from_value(error, error.to_string()),
        ));
    }
    let choice = completion
        .choices
        .and_then(|c| c.into_iter().next())
        .ok_or_else(|| LlmError::protocol(provider, "the response has no choices"))?;
    let mut parser = OpenAiStreamParser::new(provider);
    parser.usage = completion.usage.map(Usage::from);
    let mut out = VecDeque::new();
    if let Some(message) = choice.message {
        if let Some(text) = message.reasoning_content.filter(|t| !t.is_empty()) {
            out.push_back(StreamEvent::ReasoningDelta(text));
        }
        if let Some(text) = message.content.filter(|t| !t.is_empty()) {
            out.push_back(StreamEvent::TextDelta(text));
        }
        // Each whole call is a delta of its own: index by position so none merge.
        for (position, mut call) in message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            call.index = Some(position as u64);
            parser.on_tool_delta(call, &mut out);
        }
    }
    parser.finish = choice.finish_reason.as_deref().map(finish_reason);
    parser.complete(&mut out)?;
    Ok(out.into())
}

#[derive(Debug, Deserialize)]
struct ModelList {
    data: Vec<ModelEntry>,
}

#[derive(Debug, Deserialize)]
struct ModelEntry {
    id: String,
}

/// `{"data":[{"id":…}]}`, the model list shape OpenAI and Anthropic share.
pub(crate) fn parse_model_list(provider: &str, body: &[u8]) -> Result<Vec<String>, LlmError> {
    let list: ModelList = serde_json::from_slice(body).map_err(|e| {
        LlmError::protocol(
            provider,
            format!("the model list is not in the expected format ({e})"),
        )
    })?;
    Ok(list.data.into_iter().map(|m| m.id).collect())
}

#[cfg(test)]
#[path = "openai_stream_tests.rs"]
mod tests;
