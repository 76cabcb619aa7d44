//! Reading Responses API answers: the streamed semantic events (`response.output_item.added`,
//! `response.output_text.delta`, `response.function_call_arguments.delta`,
//! `response.output_item.done`, `response.reasoning_summary_text.delta`, `response.completed`
//! / `response.incomplete` / `response.failed`, `error`) and the whole response object, both
//! into [`StreamEvent`]s.
//!
//! Calls are numbered 0, 1, 2… in the order their items are added; an item's `output_index`
//! finds its call. The finished item's `arguments` are authoritative (the deltas are only for
//! display). Reasoning items become [`StreamEvent::Replay`] so they are sent back with the
//! calls. The answer is complete only at `response.completed` or `response.incomplete`; the
//! stream has no `[DONE]`, so a body that ends before either is a cut stream.

use std::collections::{BTreeMap, VecDeque};

use coyote_protocol::ReplayItem;
use serde_json::Value;

use crate::error::LlmError;
use crate::error_body::{ErrorInfo, in_band_error};
use crate::event::StreamEvent;
use crate::sse::SseEvent;
use crate::stream::{Flow, WireParser};
use crate::types::{FinishReason, ToolCall, Usage};

/// The replay-item wire name of Responses reasoning items.
pub(crate) const RESPONSES_WIRE: &str = "openai-responses";

#[derive(Debug)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    finished: bool,
}

/// Stream state of one Responses answer.
#[derive(Debug)]
pub(crate) struct ResponsesStreamParser {
    provider: String,
    calls: Vec<PartialCall>,
    /// `output_index` → position in `calls`.
    by_output: BTreeMap<u64, usize>,
}

fn text_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl ResponsesStreamParser {
    pub fn new(provider: &str) -> Self {
        ResponsesStreamParser {
            provider: provider.to_string(),
            calls: Vec::new(),
            by_output: BTreeMap::new(),
        }
    }

    fn on_item_added(&mut self, output_index: u64, item: &Value, out: &mut VecDeque<StreamEvent>) {
        if item.get("type").and_then(Value::as_str) != Some("function_call")
            || self.by_output.contains_key(&output_index)
        {
            return;
        }
        let index = self.calls.len();
        let call = PartialCall {
            id: text_of(item, "call_id"),
            name: text_of(item, "name"),
            arguments: text_of(item, "arguments"),
            finished: false,
        };
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
        self.calls.push(call);
        self.by_output.insert(output_index, index);
    }

    fn on_arguments_delta(
        &mut self,
        output_index: u64,
        delta: String,
        out: &mut VecDeque<StreamEvent>,
    ) {
        if let Some(&index) = self.by_output.get(&output_index)
            && !delta.is_empty()
        {
            self.calls[index].arguments.push_str(&delta);
            out.push_back(StreamEvent::ToolCallArgumentsDelta { index, delta });
        }
    }

    fn on_item_done(&mut self, output_index: u64, item: Value, out: &mut VecDeque<StreamEvent>) {
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                self.on_item_added(output_index, &item, out);
                let index = self.by_output[&output_index];
                if let Some(arguments) = item.get("arguments").and_then(Value::as_str) {
                    self.calls[index].arguments = arguments.to_string();
                }
                self.finish_call(index, out);
            }
            Some("reasoning") => out.push_back(StreamEvent::Replay(ReplayItem {
                wire: RESPONSES_WIRE.to_string(),
                item,
            })),
            _ => {}
        }
    }

    fn finish_call(&mut self, index: usize, out: &mut VecDeque<StreamEvent>) {
        let call = &mut self.calls[index];
        if call.finished {
            return;
        }
        call.finished = true;
        out.push_back(StreamEvent::ToolCallFinished {
            index,
            call: ToolCall::new(call.id.clone(), call.name.clone(), call.arguments.clone()),
        });
    }

    /// `response.completed` / `response.incomplete`: usage, unfinished calls, `Done`.
    fn on_end(&mut self, response: &Value, out: &mut VecDeque<StreamEvent>) {
        for index in 0..self.calls.len() {
            self.finish_call(index, out);
        }
        let usage = &response["usage"];
        if usage.is_object() {
            out.push_back(StreamEvent::Usage(Usage {
                input: usage["input_tokens"].as_u64().unwrap_or(0),
                output: usage["output_tokens"].as_u64().unwrap_or(0),
            }));
        }
        let finish_reason = match response["incomplete_details"]["reason"].as_str() {
            Some("max_output_tokens") => FinishReason::Length,
            Some("content_filter") => FinishReason::ContentFilter,
            Some(other) => FinishReason::Other(other.to_string()),
            None if !self.calls.is_empty() => FinishReason::ToolCalls,
            None => FinishReason::Stop,
        };
        out.push_back(StreamEvent::Done { finish_reason });
    }

    fn error(&self, error: &Value) -> LlmError {
        in_band_error(
            &self.provider,
            &ErrorInfo::from_value(error, error.to_string()),
        )
    }
}

impl WireParser for ResponsesStreamParser {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, LlmError> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(Flow::Continue);
        }
        let mut value: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::protocol(
                &self.provider,
                format!("a streamed event is not valid JSON ({e})"),
            )
        })?;
        let kind = text_of(&value, "type");
        let output_index = value["output_index"].as_u64().unwrap_or(0);
        let delta = || text_of(&value, "delta");
        match kind.as_str() {
            "response.output_text.delta" | "response.refusal.delta" => {
                let text = delta();
                if !text.is_empty() {
                    out.push_back(StreamEvent::TextDelta(text));
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let text = delta();
                if !text.is_empty() {
                    out.push_back(StreamEvent::ReasoningDelta(text));
                }
            }
            "response.output_item.added" => {
                self.on_item_added(output_index, &value["item"], out);
            }
            "response.function_call_arguments.delta" => {
                let text = delta();
                self.on_arguments_delta(output_index, text, out);
            }
            "response.output_item.done" => {
                let item = value["item"].take();
                self.on_item_done(output_index, item, out);
            }
            "response.completed" | "response.incomplete" => {
                self.on_end(&value["response"], out);
                return Ok(Flow::Done);
            }
            "response.failed" => {
                let error = &value["response"]["error"];
                return Err(self.error(if error.is_null() { &value } else { error }));
            }
            "error" => return Err(self.error(&value)),
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn on_eof(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        Err(LlmError::protocol(
            &self.provider,
            "the stream ended before the model finished (no response.completed)",
        ))
    }
}

/// A whole (non-streamed) response object as the event sequence a stream would give.
pub(crate) fn parse_response(provider: &str, body: &[u8]) -> Result<Vec<StreamEvent>, LlmError> {
    let response: Value = serde_json::from_slice(body).map_err(|e| {
        LlmError::protocol(
            provider,
            format!("the response is not a Responses object ({e})"),
        )
    })?;
    let mut parser = ResponsesStreamParser::new(provider);
    if response["error"].is_object() {
        return Err(parser.error(&response["error"]));
    }
    let mut out = VecDeque::new();
    let items = response["output"].as_array().cloned().unwrap_or_default();
    for (position, item) in items.into_iter().enumerate() {
        let position = position as u64;
        match item["type"].as_str() {
            Some("message") => {
                for part in item["content"].as_array().into_iter().flatten() {
                    let text = part["text"]
                        .as_str()
                        .or_else(|| part["refusal"].as_str())
                        .unwrap_or_default();
                    if !text.is_empty() {
                        out.push_back(StreamEvent::TextDelta(text.to_string()));
                    }
                }
            }
            Some("reasoning") => {
                for part in item["summary"].as_array().into_iter().flatten() {
                    if let Some(text) = part["text"].as_str().filter(|t| !t.is_empty()) {
                        out.push_back(StreamEvent::ReasoningDelta(text.to_string()));
                    }
                }
                parser.on_item_done(position, item, &mut out);
            }
            _ => parser.on_item_done(position, item, &mut out),
        }
    }
    parser.on_end(&response, &mut out);
    Ok(out.into())
}
