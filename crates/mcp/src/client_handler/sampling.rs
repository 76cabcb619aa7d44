//! Sampling (`sampling/createMessage`): a server asks the client's model to answer. This
//! module owns the request and answer as our types ([`SamplingRequest`], [`SamplingResponse`]),
//! the [`SamplingHook`] the embedder implements (consent, model choice and the model call live
//! there: coyote-mcp knows no model), the per-server limits checked before the hook is asked
//! ([`SamplingGate`]: `"sampling": "never"`, `samplingMaxTokens`, `samplingPerMinute`), and the
//! wire conversion (through JSON, so rmcp's deprecated sampling types stay in this file).
//!
//! Invariant: nothing reaches the hook for a server whose sampling is off, over its token cap
//! or over its rate; the refusal says which limit and where it is set.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use coyote_protocol::{ClientFeatureSettings, SamplingMode};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The window of `samplingPerMinute`.
const RATE_WINDOW: Duration = Duration::from_secs(60);

/// Who said a sampling message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplingRole {
    /// The user side (the server's prompt, tool results).
    User,
    /// The model side.
    Assistant,
}

/// One content block of a sampling message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (base64).
    Image {
        /// Its MIME type.
        mime_type: String,
        /// The bytes, base64.
        data_base64: String,
    },
    /// Audio (base64).
    Audio {
        /// Its MIME type.
        mime_type: String,
        /// The bytes, base64.
        data_base64: String,
    },
    /// The model calls one of the request's tools (assistant messages only).
    ToolUse {
        /// The call's id.
        id: String,
        /// The tool called.
        name: String,
        /// Its arguments.
        input: Map<String, Value>,
    },
    /// The result of a tool call (user messages only), its text blocks joined.
    ToolResult {
        /// The id of the call it answers.
        tool_use_id: String,
        /// The result's text.
        text: String,
        /// The tool reported an error.
        is_error: bool,
    },
}

/// One message of a sampling request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who said it.
    pub role: SamplingRole,
    /// Its blocks.
    pub content: Vec<SamplingContent>,
}

impl SamplingMessage {
    /// The message's text blocks, joined by newlines (what a consent screen shows).
    pub fn text(&self) -> String {
        let parts: Vec<String> = self
            .content
            .iter()
            .map(|c| match c {
                SamplingContent::Text { text } => text.clone(),
                SamplingContent::Image { mime_type, .. } => format!("[image {mime_type}]"),
                SamplingContent::Audio { mime_type, .. } => format!("[audio {mime_type}]"),
                SamplingContent::ToolUse { name, input, .. } => {
                    format!("[call {name} {}]", Value::Object(input.clone()))
                }
                SamplingContent::ToolResult { text, .. } => format!("[tool result] {text}"),
            })
            .collect();
        parts.join("\n")
    }
}

/// A tool the server lets the model call while answering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingTool {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Its `inputSchema`.
    pub input_schema: Value,
}

/// Whether the model may, must or must not call the request's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplingToolChoice {
    /// The model decides.
    Auto,
    /// The model must call a tool.
    Required,
    /// The model must answer in text.
    None,
}

/// A server's request for a model answer, converted to our types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingRequest {
    /// The configured name of the server asking.
    pub server: String,
    /// The conversation the model answers.
    pub messages: Vec<SamplingMessage>,
    /// The server's system prompt.
    pub system_prompt: Option<String>,
    /// The server's output limit (already checked against `samplingMaxTokens`).
    pub max_tokens: u32,
    /// The server's temperature.
    pub temperature: Option<f64>,
    /// Sequences that end the answer.
    pub stop_sequences: Vec<String>,
    /// `modelPreferences.hints[].name`, in the server's order of preference.
    pub model_hints: Vec<String>,
    /// Tools the model may call (only when the client advertised `sampling.tools`).
    pub tools: Vec<SamplingTool>,
    /// How the model may use them.
    pub tool_choice: Option<SamplingToolChoice>,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplingStop {
    /// A natural end.
    EndTurn,
    /// The output limit.
    MaxTokens,
    /// The model called a tool.
    ToolUse,
    /// Anything else, verbatim.
    Other(String),
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingResponse {
    /// `client:model` of the model that answered.
    pub model: String,
    /// Why it stopped.
    pub stop: SamplingStop,
    /// Text and tool calls.
    pub content: Vec<SamplingContent>,
}

/// Why a sampling request was not answered; the text goes back to the server (and usually
/// on to the model or user that called its tool), so it says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SamplingRefusal {
    /// The user (or the lack of a terminal, or the configuration) said no.
    Declined(String),
    /// The model request failed.
    Failed(String),
}

impl SamplingRefusal {
    /// The message sent to the server.
    pub fn message(&self) -> &str {
        match self {
            SamplingRefusal::Declined(m) | SamplingRefusal::Failed(m) => m,
        }
    }
}

/// Answers sampling requests: asks the user, picks the model, calls it. Implemented by the
/// embedder; without one the capability is not advertised.
pub trait SamplingHook: Send + Sync + 'static {
    /// Whether the model can call tools (advertised as `sampling.tools`).
    fn supports_tools(&self) -> bool;

    /// Answers one request (consent first: nothing reaches a model without it).
    fn sample(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SamplingResponse, SamplingRefusal>>;
}

/// One connection's sampling limits (the server's mcp.json settings).
#[derive(Debug)]
pub(crate) struct SamplingGate {
    mode: SamplingMode,
    max_tokens: u32,
    per_minute: u32,
    recent: Mutex<VecDeque<Instant>>,
}

impl SamplingGate {
    pub(crate) fn new(settings: &ClientFeatureSettings) -> Self {
        SamplingGate {
            mode: settings.sampling,
            max_tokens: settings.sampling_max_tokens,
            per_minute: settings.sampling_per_minute,
            recent: Mutex::new(VecDeque::new()),
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.mode == SamplingMode::Ask
    }

    /// Checks one request at `now`; an admitted request counts towards the rate.
    pub(crate) fn admit(
        &self,
        server: &str,
        max_tokens: u32,
        now: Instant,
    ) -> Result<(), SamplingRefusal> {
        if self.mode == SamplingMode::Never {
            return Err(SamplingRefusal::Declined(format!(
                "coyote does not let MCP server `{server}` use the model: its mcp.json entry \
                 says \"sampling\": \"never\""
            )));
        }
        if max_tokens > self.max_tokens {
            return Err(SamplingRefusal::Declined(format!(
                "coyote refused the sampling request of MCP server `{server}`: it asked for \
                 {max_tokens} tokens and this server may ask for at most {} \
                 (\"samplingMaxTokens\" in its mcp.json entry)",
                self.max_tokens
            )));
        }
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        while recent
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= RATE_WINDOW)
        {
            recent.pop_front();
        }
        if recent.len() >= self.per_minute as usize {
            return Err(SamplingRefusal::Declined(format!(
                "coyote refused the sampling request of MCP server `{server}`: it already made \
                 {} in the last minute, its limit (\"samplingPerMinute\" in its mcp.json entry); \
                 try again later",
                recent.len()
            )));
        }
        recent.push_back(now);
        Ok(())
    }
}

/// A wire request that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadRequest(pub(crate) String);

/// The wire params (`sampling/createMessage`) as our request.
pub(crate) fn request_from_wire(
    server: &str,
    params: &Value,
) -> Result<SamplingRequest, BadRequest> {
    let bad = |what: &str| BadRequest(format!("sampling/createMessage: {what}"));
    let messages = params
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("`messages` is missing"))?
        .iter()
        .map(message_from_wire)
        .collect::<Result<Vec<_>, _>>()?;
    let max_tokens = params
        .get("maxTokens")
        .and_then(Value::as_u64)
        .ok_or_else(|| bad("`maxTokens` is missing"))?;
    let model_hints = params
        .pointer("/modelPreferences/hints")
        .and_then(Value::as_array)
        .map(|hints| {
            hints
                .iter()
                .filter_map(|h| h.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let tools = params
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    Some(SamplingTool {
                        name: t.get("name")?.as_str()?.to_owned(),
                        description: t
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        input_schema: t.get("inputSchema").cloned().unwrap_or(json!({})),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let tool_choice = match params.pointer("/toolChoice/mode").and_then(Value::as_str) {
        Some("required") => Some(SamplingToolChoice::Required),
        Some("none") => Some(SamplingToolChoice::None),
        Some(_) => Some(SamplingToolChoice::Auto),
        None => None,
    };
    Ok(SamplingRequest {
        server: server.to_owned(),
        messages,
        system_prompt: params
            .get("systemPrompt")
            .and_then(Value::as_str)
            .map(str::to_owned),
        max_tokens: u32::try_from(max_tokens).unwrap_or(u32::MAX),
        temperature: params.get("temperature").and_then(Value::as_f64),
        stop_sequences: params
            .get("stopSequences")
            .and_then(Value::as_array)
            .map(|s| {
                s.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        model_hints,
        tools,
        tool_choice,
    })
}

fn message_from_wire(message: &Value) -> Result<SamplingMessage, BadRequest> {
    let role = match message.get("role").and_then(Value::as_str) {
        Some("assistant") => SamplingRole::Assistant,
        Some("user") => SamplingRole::User,
        _ => {
            return Err(BadRequest(
                "sampling/createMessage: a message has no `role` of user or assistant".to_owned(),
            ));
        }
    };
    let blocks: Vec<&Value> = match message.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(item @ Value::Object(_)) => vec![item],
        _ => {
            return Err(BadRequest(
                "sampling/createMessage: a message has no `content`".to_owned(),
            ));
        }
    };
    let content = blocks
        .into_iter()
        .map(content_from_wire)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SamplingMessage { role, content })
}

fn content_from_wire(block: &Value) -> Result<SamplingContent, BadRequest> {
    let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
    Ok(match text("type") {
        "text" => SamplingContent::Text {
            text: text("text").to_owned(),
        },
        "image" => SamplingContent::Image {
            mime_type: text("mimeType").to_owned(),
            data_base64: text("data").to_owned(),
        },
        "audio" => SamplingContent::Audio {
            mime_type: text("mimeType").to_owned(),
            data_base64: text("data").to_owned(),
        },
        "tool_use" => SamplingContent::ToolUse {
            id: text("id").to_owned(),
            name: text("name").to_owned(),
            input: block
                .get("input")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        },
        "tool_result" => {
            let parts: Vec<&str> = block
                .get("content")
                .and_then(Value::as_array)
                .map(|c| {
                    c.iter()
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect()
                })
                .unwrap_or_default();
            SamplingContent::ToolResult {
                tool_use_id: text("toolUseId").to_owned(),
                text: parts.join("\n"),
                is_error: block
                    .get("isError")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            }
        }
        other => {
            return Err(BadRequest(format!(
                "sampling/createMessage: content type \"{other}\" is not supported"
            )));
        }
    })
}

/// Our answer as the wire result (`CreateMessageResult`).
pub(crate) fn response_to_wire(response: &SamplingResponse) -> Value {
    let blocks: Vec<Value> = response
        .content
        .iter()
        .map(|c| match c {
            SamplingContent::Text { text } => json!({"type": "text", "text": text}),
            SamplingContent::Image {
                mime_type,
                data_base64,
            } => json!({"type": "image", "mimeType": mime_type, "data": data_base64}),
            SamplingContent::Audio {
                mime_type,
                data_base64,
            } => json!({"type": "audio", "mimeType": mime_type, "data": data_base64}),
            SamplingContent::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
            SamplingContent::ToolResult {
                tool_use_id,
                text,
                is_error,
            } => json!({
                "type": "tool_result",
                "toolUseId": tool_use_id,
                "content": [{"type": "text", "text": text}],
                "isError": is_error
            }),
        })
        .collect();
    let content = match blocks.as_slice() {
        [one] => one.clone(),
        [] => json!({"type": "text", "text": ""}),
        _ => Value::Array(blocks),
    };
    let stop = match &response.stop {
        SamplingStop::EndTurn => "endTurn".to_owned(),
        SamplingStop::MaxTokens => "maxTokens".to_owned(),
        SamplingStop::ToolUse => "toolUse".to_owned(),
        SamplingStop::Other(other) => other.clone(),
    };
    json!({
        "model": response.model,
        "stopReason": stop,
        "role": "assistant",
        "content": content,
    })
}

#[cfg(test)]
#[path = "sampling_tests.rs"]
mod tests;
