//! Reading Bedrock Converse answers: the event-stream messages of `converse-stream`
//! (`messageStart`, `contentBlockStart` / `contentBlockDelta` / `contentBlockStop`,
//! `messageStop`, `metadata`, and exception messages) and the whole `converse` response, into
//! [`StreamEvent`]s.
//!
//! Tool calls are renumbered 0, 1, 2… in the order their blocks start (block indices count text
//! blocks too); their input is the concatenated `toolUse.input` deltas. Reasoning deltas are
//! shown as reasoning. The answer is complete after `metadata` (usage), or at end of body after
//! `messageStop`; an exception message maps to the error its name says (throttling → rate
//! limit, validation → invalid request, the rest → server error).

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use crate::error::LlmError;
use crate::event::StreamEvent;
use crate::sse::SseEvent;
use crate::stream::{Flow, WireParser};
use crate::types::{FinishReason, ToolCall, Usage};

#[derive(Debug)]
struct PartialCall {
    id: String,
    name: String,
    input: String,
    finished: bool,
}

/// Stream state of one Converse answer.
#[derive(Debug)]
pub(crate) struct BedrockParser {
    provider: String,
    /// Content-block index → position in `calls`.
    blocks: BTreeMap<u64, usize>,
    calls: Vec<PartialCall>,
    stop: Option<String>,
}

impl BedrockParser {
    pub fn new(provider: &str) -> Self {
        BedrockParser {
            provider: provider.to_string(),
            blocks: BTreeMap::new(),
            calls: Vec::new(),
            stop: None,
        }
    }

    fn start_call(
        &mut self,
        block: u64,
        id: String,
        name: String,
        out: &mut VecDeque<StreamEvent>,
    ) {
        let index = self.calls.len();
        out.push_back(StreamEvent::ToolCallStarted {
            index,
            id: id.clone(),
            name: name.clone(),
        });
        self.calls.push(PartialCall {
            id,
            name,
            input: String::new(),
            finished: false,
        });
        self.blocks.insert(block, index);
    }

    fn finish_call(&mut self, index: usize, out: &mut VecDeque<StreamEvent>) {
        let call = &mut self.calls[index];
        if call.finished {
            return;
        }
        call.finished = true;
        let input = if call.input.trim().is_empty() {
            "{}".to_string()
        } else {
            call.input.clone()
        };
        out.push_back(StreamEvent::ToolCallFinished {
            index,
            call: ToolCall::new(call.id.clone(), call.name.clone(), input),
        });
    }

    fn complete(&mut self, usage: Option<&Value>, out: &mut VecDeque<StreamEvent>) {
        for index in 0..self.calls.len() {
            self.finish_call(index, out);
        }
        if let Some(usage) = usage.filter(|u| u.is_object()) {
            out.push_back(StreamEvent::Usage(Usage {
                input: usage["inputTokens"].as_u64().unwrap_or(0)
                    + usage["cacheReadInputTokens"].as_u64().unwrap_or(0)
                    + usage["cacheWriteInputTokens"].as_u64().unwrap_or(0),
                output: usage["outputTokens"].as_u64().unwrap_or(0),
            }));
        }
        let finish_reason = match self.stop.as_deref() {
            Some("tool_use") => FinishReason::ToolCalls,
            _ if !self.calls.is_empty() => FinishReason::ToolCalls,
            Some("end_turn" | "stop_sequence") | None => FinishReason::Stop,
            Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
            Some("guardrail_intervened" | "content_filtered") => FinishReason::ContentFilter,
            Some(other) => FinishReason::Other(other.to_string()),
        };
        out.push_back(StreamEvent::Done { finish_reason });
    }

    fn exception(&self, kind: &str, payload: &Value) -> LlmError {
        let provider = self.provider.clone();
        let detail = payload["message"]
            .as_str()
            .or_else(|| payload["Message"].as_str())
            .unwrap_or(kind)
            .to_string();
        match kind {
            "throttlingException" => LlmError::RateLimited {
                provider,
                retry_after: None,
                attempts: 1,
                detail,
            },
            "validationException" => LlmError::InvalidRequest {
                provider,
                status: 400,
                detail,
            },
            "serviceUnavailableException" => LlmError::Server {
                provider,
                status: 503,
                detail,
            },
            _ => LlmError::Server {
                provider,
                status: 500,
                detail,
            },
        }
    }
}

impl WireParser for BedrockParser {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, LlmError> {
        let payload: Value = serde_json::from_str(&event.data).map_err(|e| {
            LlmError::protocol(
                &self.provider,
                format!("a streamed event is not valid JSON ({e})"),
            )
        })?;
        let name = event.event.unwrap_or_default();
        if let Some(kind) = name.strip_prefix("exception:") {
            return Err(self.exception(kind, &payload));
        }
        let block = payload["contentBlockIndex"].as_u64().unwrap_or(0);
        match name.as_str() {
            "contentBlockStart" => {
                let tool = &payload["start"]["toolUse"];
                if tool.is_object() {
                    let id = tool["toolUseId"].as_str().unwrap_or_default().to_string();
                    let name = tool["name"].as_str().unwrap_or_default().to_string();
                    self.start_call(block, id, name, out);
                }
            }
            "contentBlockDelta" => {
                let delta = &payload["delta"];
                if let Some(text) = delta["text"].as_str().filter(|t| !t.is_empty()) {
                    out.push_back(StreamEvent::TextDelta(text.to_string()));
                }
                if let Some(text) = delta["reasoningContent"]["text"]
                    .as_str()
                    .filter(|t| !t.is_empty())
                {
                    out.push_back(StreamEvent::ReasoningDelta(text.to_string()));
                }
                if let Some(input) = delta["toolUse"]["input"].as_str()
                    && let Some(&index) = self.blocks.get(&block)
                    && !input.is_empty()
                {
                    self.calls[index].input.push_str(input);
                    out.push_back(StreamEvent::ToolCallArgumentsDelta {
                        index,
                        delta: input.to_string(),
                    });
                }
            }
            "contentBlockStop" => {
                if let Some(&index) = self.blocks.get(&block) {
                    self.finish_call(index, out);
                }
            }
            "messageStop" => {
                self.stop = Some(payload["stopReason"].as_str().unwrap_or("").to_string());
            }
            "metadata" => {
                self.complete(Some(&payload["usage"]), out);
                return Ok(Flow::Done);
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn on_eof(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        if self.stop.is_none() {
            return Err(LlmError::protocol(
                &self.provider,
                "the stream ended before the model finished (no messageStop)",
            ));
        }
        self.complete(None, out);
        Ok(())
    }
}

/// A whole `converse` response as the events a stream would give.
pub(crate) fn parse_converse(provider: &str, body: &[u8]) -> Result<Vec<StreamEvent>, LlmError> {
    let response: Value = serde_json::from_slice(body).map_err(|e| {
        LlmError::protocol(
            provider,
            format!("the response is not a Converse answer ({e})"),
        )
    })?;
    let mut parser = BedrockParser::new(provider);
    let mut out = VecDeque::new();
    let content = response["output"]["message"]["content"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (block, part) in content.iter().enumerate() {
        if let Some(text) = part["text"].as_str().filter(|t| !t.is_empty()) {
            out.push_back(StreamEvent::TextDelta(text.to_string()));
        }
        if let Some(text) = part["reasoningContent"]["reasoningText"]["text"].as_str() {
            out.push_back(StreamEvent::ReasoningDelta(text.to_string()));
        }
        let tool = &part["toolUse"];
        if tool.is_object() {
            let id = tool["toolUseId"].as_str().unwrap_or_default().to_string();
            let name = tool["name"].as_str().unwrap_or_default().to_string();
            parser.start_call(block as u64, id, name, &mut out);
            let index = parser.calls.len() - 1;
            parser.calls[index].input = match &tool["input"] {
                Value::Null => String::new(),
                input => input.to_string(),
            };
        }
    }
    parser.stop = response["stopReason"].as_str().map(str::to_string);
    parser.complete(Some(&response["usage"]), &mut out);
    Ok(out.into())
}
