//! Reading Gemini answers: each SSE event (and the whole `generateContent` response) is a
//! `GenerateContentResponse` whose first candidate's parts are text, thoughts (`thought: true`)
//! or whole `functionCall`s, into [`StreamEvent`]s.
//!
//! Calls arrive whole and are numbered 0, 1, 2…; a call without an `id` gets a synthesized one
//! ([`SYNTHETIC_ID_PREFIX`], never sent back to Gemini). A part's `thoughtSignature` becomes a
//! replay item keyed by its call id (`""` for a text part). Usage: input =
//! `promptTokenCount`, output = `candidatesTokenCount` + `thoughtsTokenCount`. There is no end
//! marker: the answer is complete when the body ends after a `finishReason`; a body that ends
//! without one is a cut stream.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use coyote_protocol::ReplayItem;
use serde_json::{Value, json};

use crate::error::LlmError;
use crate::error_body::{ErrorInfo, in_band_error};
use crate::event::StreamEvent;
use crate::sse::SseEvent;
use crate::stream::{Flow, WireParser};
use crate::types::{FinishReason, Usage};

/// The replay-item wire name of Gemini thought signatures.
pub(crate) const GEMINI_WIRE: &str = "gemini";

/// The prefix of call ids coyote made up for calls Gemini sent without one.
pub(crate) const SYNTHETIC_ID_PREFIX: &str = "gemini_call_";

/// Stream state of one Gemini answer.
#[derive(Debug)]
pub(crate) struct GeminiParser {
    provider: String,
    calls: usize,
    finish: Option<String>,
    usage: Option<Usage>,
}

impl GeminiParser {
    pub fn new(provider: &str) -> Self {
        GeminiParser {
            provider: provider.to_string(),
            calls: 0,
            finish: None,
            usage: None,
        }
    }

    fn on_response(
        &mut self,
        response: &Value,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), LlmError> {
        if let Some(error) = response.get("error") {
            return Err(in_band_error(
                &self.provider,
                &ErrorInfo::from_value(error, error.to_string()),
            ));
        }
        if let Some(reason) = response["promptFeedback"]["blockReason"].as_str() {
            self.finish = Some(format!("BLOCKED:{reason}"));
        }
        let usage = &response["usageMetadata"];
        if usage.is_object() {
            let count = |key: &str| usage[key].as_u64().unwrap_or(0);
            self.usage = Some(Usage {
                input: count("promptTokenCount"),
                output: count("candidatesTokenCount") + count("thoughtsTokenCount"),
            });
        }
        let Some(candidate) = response["candidates"].get(0) else {
            return Ok(());
        };
        for part in candidate["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            self.on_part(part, out)?;
        }
        if let Some(reason) = candidate["finishReason"].as_str() {
            self.finish = Some(reason.to_string());
        }
        Ok(())
    }

    fn on_part(&mut self, part: &Value, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        let mut signed = String::new();
        if let Some(call) = part.get("functionCall") {
            let index = self.calls;
            self.calls += 1;
            let name = call["name"].as_str().unwrap_or_default().to_string();
            if name.is_empty() {
                return Err(LlmError::protocol(
                    &self.provider,
                    format!("function call #{index} arrived without a name"),
                ));
            }
            let id = call["id"]
                .as_str()
                .filter(|id| !id.is_empty())
                .map(str::to_string)
                .unwrap_or_else(synthesize_id);
            let arguments = match &call["args"] {
                Value::Null => "{}".to_string(),
                args => args.to_string(),
            };
            out.extend(StreamEvent::whole_call(index, id.clone(), name, arguments));
            signed = id;
        } else if let Some(text) = part["text"].as_str().filter(|t| !t.is_empty()) {
            out.push_back(if part["thought"].as_bool() == Some(true) {
                StreamEvent::ReasoningDelta(text.to_string())
            } else {
                StreamEvent::TextDelta(text.to_string())
            });
        }
        if let Some(signature) = part.get("thoughtSignature") {
            out.push_back(StreamEvent::Replay(ReplayItem {
                wire: GEMINI_WIRE.to_string(),
                item: json!({"call_id": signed, "thoughtSignature": signature}),
            }));
        }
        Ok(())
    }

    fn complete(&mut self, out: &mut VecDeque<StreamEvent>) {
        if let Some(usage) = self.usage.take() {
            out.push_back(StreamEvent::Usage(usage));
        }
        let finish_reason = match self.finish.as_deref() {
            _ if self.calls > 0 => FinishReason::ToolCalls,
            Some("STOP") | None => FinishReason::Stop,
            Some("MAX_TOKENS") => FinishReason::Length,
            Some(
                "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
                | "IMAGE_SAFETY",
            ) => FinishReason::ContentFilter,
            Some(blocked) if blocked.starts_with("BLOCKED:") => FinishReason::ContentFilter,
            Some(other) => FinishReason::Other(other.to_string()),
        };
        out.push_back(StreamEvent::Done { finish_reason });
    }
}

fn synthesize_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{SYNTHETIC_ID_PREFIX}{}",
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl WireParser for GeminiParser {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, LlmError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Flow::Continue);
        }
        let response: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::protocol(
                &self.provider,
                format!("a streamed response is not valid JSON ({e})"),
            )
        })?;
        self.on_response(&response, out)?;
        Ok(Flow::Continue)
    }

    fn on_eof(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        if self.finish.is_none() {
            return Err(LlmError::protocol(
                &self.provider,
                "the stream ended before the model finished (no finishReason)",
            ));
        }
        self.complete(out);
        Ok(())
    }
}

/// A whole `generateContent` response as the events a stream would give.
pub(crate) fn parse_whole(provider: &str, body: &[u8]) -> Result<Vec<StreamEvent>, LlmError> {
    let response: Value = serde_json::from_slice(body).map_err(|e| {
        LlmError::protocol(
            provider,
            format!("the response is not a GenerateContentResponse ({e})"),
        )
    })?;
    let mut parser = GeminiParser::new(provider);
    let mut out = VecDeque::new();
    parser.on_response(&response, &mut out)?;
    parser.complete(&mut out);
    Ok(out.into())
}
