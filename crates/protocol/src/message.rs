//! The provider-neutral conversation: messages, tool calls and their results, and the token
//! counts of a response. Plain data: providers (`coyote-llm`) translate it into their wire
//! shapes, sessions keep it, nothing here knows HTTP, JSON wire formats or MCP.
//!
//! Invariants a well-formed conversation keeps (checked by `coyote_llm::validate_conversation`
//! before anything is sent): every [`ToolResult`] answers a tool call of the assistant message
//! just before it, every tool call is answered before the conversation moves on, and no
//! assistant message is empty (the library never synthesizes assistant turns).

use std::fmt;

use serde::{Deserialize, Serialize};

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions. Anthropic receives all system text in its `system` parameter.
    System {
        /// The instructions.
        text: String,
    },
    /// What the user typed (or a `.prompt` flattened into text), with the images attached to
    /// it (if any).
    User {
        /// The text.
        text: String,
        /// Images sent with the text (`-f photo.png`); only to models that take images.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImagePart>,
    },
    /// What the model said: text, tool calls, or both.
    Assistant(AssistantMessage),
    /// The answer to one tool call.
    Tool(ToolResult),
}

impl Message {
    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        Message::System { text: text.into() }
    }

    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User {
            text: text.into(),
            images: Vec::new(),
        }
    }

    /// A user message with images.
    pub fn user_with_images(text: impl Into<String>, images: Vec<ImagePart>) -> Self {
        Message::User {
            text: text.into(),
            images,
        }
    }

    /// An assistant message.
    pub fn assistant(message: AssistantMessage) -> Self {
        Message::Assistant(message)
    }

    /// The answer to a tool call.
    pub fn tool_result(result: ToolResult) -> Self {
        Message::Tool(result)
    }
}

/// An image attached to a user message, as the providers take it: base64 data and its media
/// type (`image/png`, `image/jpeg`, `image/gif`, `image/webp`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImagePart {
    /// The media type.
    pub media_type: String,
    /// The image bytes, base64 (standard alphabet, padded).
    pub data_base64: String,
}

/// An assistant turn as the model produced it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// Visible text; empty when the model only called tools.
    pub text: String,
    /// Calls in the order the model emitted them.
    pub tool_calls: Vec<ToolCall>,
    /// Provider state the API wants sent back with this message (OpenAI Responses reasoning
    /// items, Gemini thought signatures); opaque to everything but the provider that made it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replay: Vec<ReplayItem>,
}

/// One piece of opaque provider state carried with an assistant message. Only the wire that
/// produced it reads it; a conversation continued with another provider ignores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayItem {
    /// The wire that produced it (`openai-responses`, `gemini`, `bedrock`).
    pub wire: String,
    /// What that wire needs back, as it sent it.
    pub item: serde_json::Value,
}

impl AssistantMessage {
    /// An assistant message with text and no tool calls.
    pub fn text(text: impl Into<String>) -> Self {
        AssistantMessage {
            text: text.into(),
            tool_calls: Vec::new(),
            replay: Vec::new(),
        }
    }

    /// An assistant message with text (possibly empty) and tool calls.
    pub fn with_calls(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        AssistantMessage {
            text: text.into(),
            tool_calls,
            replay: Vec::new(),
        }
    }

    /// The replay items a given wire produced.
    pub fn replay_for<'a>(&'a self, wire: &'a str) -> impl Iterator<Item = &'a serde_json::Value> {
        self.replay
            .iter()
            .filter(move |r| r.wire == wire)
            .map(|r| &r.item)
    }

    /// True when the model said nothing at all (such a message must not be sent back).
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.tool_calls.is_empty()
    }
}

/// One function call requested by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-assigned id (synthesized only when an OpenAI-compatible server sends none).
    pub id: String,
    /// The function's name, as declared to the model.
    pub name: String,
    /// The arguments exactly as the model sent them (a JSON object as text, possibly invalid or
    /// empty). Kept raw so the conversation echoes what the model said; parse with
    /// [`ToolCall::parse_arguments`].
    pub arguments: String,
}

/// The model's arguments were not a JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentsError {
    /// The function's name.
    pub name: String,
    /// What was wrong with the arguments.
    pub reason: String,
}

impl fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the arguments of tool call `{}` are not a JSON object ({}); the model must send an \
             object such as {{\"key\": \"value\"}}",
            self.name, self.reason
        )
    }
}

impl std::error::Error for ArgumentsError {}

impl ToolCall {
    /// A call as the model sent it; `arguments` are kept raw.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// Parses the raw arguments; blank text counts as `{}` (several local servers send nothing
    /// for argument-less calls).
    pub fn parse_arguments(
        &self,
    ) -> Result<serde_json::Map<String, serde_json::Value>, ArgumentsError> {
        if self.arguments.trim().is_empty() {
            return Ok(serde_json::Map::new());
        }
        let error = |reason: String| ArgumentsError {
            name: self.name.clone(),
            reason,
        };
        match serde_json::from_str::<serde_json::Value>(&self.arguments) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            Ok(other) => Err(error(format!("got {}", json_kind(&other)))),
            Err(e) => Err(error(e.to_string())),
        }
    }
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Whether the tool succeeded; Anthropic carries it as `is_error`, OpenAI only in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    /// The tool ran and answered.
    #[default]
    Success,
    /// The tool failed, or the call was refused or cancelled.
    Error,
}

/// The answer to one [`ToolCall`], always sent (also for refused or cancelled calls) so the next
/// request stays valid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The [`ToolCall::id`] this answers.
    pub call_id: String,
    /// The text the model reads.
    pub content: String,
    /// Whether it reports success.
    pub outcome: ToolOutcome,
}

impl ToolResult {
    /// A successful result for `call_id`.
    pub fn success(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ToolResult {
            call_id: call_id.into(),
            content: content.into(),
            outcome: ToolOutcome::Success,
        }
    }

    /// A failed (refused, cancelled or erroneous) result for `call_id`.
    pub fn error(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ToolResult {
            call_id: call_id.into(),
            content: content.into(),
            outcome: ToolOutcome::Error,
        }
    }
}

/// Token counts of one response. `input` includes prompt-cache reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens, prompt-cache reads and writes included.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_round_trip_through_serde() {
        let messages = vec![
            Message::system("s"),
            Message::assistant(AssistantMessage::with_calls(
                "t",
                vec![ToolCall::new("c1", "f", "{\"a\":1}")],
            )),
            Message::tool_result(ToolResult::error("c1", "boom")),
        ];
        let value = serde_json::to_value(&messages).unwrap();
        assert_eq!(
            value,
            json!([
                {"role": "system", "text": "s"},
                {"role": "assistant", "text": "t", "tool_calls": [{"id": "c1", "name": "f", "arguments": "{\"a\":1}"}]},
                {"role": "tool", "call_id": "c1", "content": "boom", "outcome": "error"}
            ])
        );
        assert_eq!(
            serde_json::from_value::<Vec<Message>>(value).unwrap(),
            messages
        );
    }

    #[test]
    fn arguments_parse_cases() {
        let call = |args: &str| ToolCall::new("id", "f", args);
        assert_eq!(call("  ").parse_arguments(), Ok(serde_json::Map::new()));
        assert_eq!(call("{\"a\":1}").parse_arguments().unwrap()["a"], json!(1));
        assert_eq!(
            call("[1]").parse_arguments(),
            Err(ArgumentsError {
                name: "f".into(),
                reason: "got an array".into()
            })
        );
        assert!(call("{\"a\":").parse_arguments().is_err());
    }

    #[test]
    fn arguments_error_tells_the_model_what_to_send() {
        let error = ToolCall::new("id", "f", "[1]")
            .parse_arguments()
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the arguments of tool call `f` are not a JSON object (got an array); the model must \
             send an object such as {\"key\": \"value\"}"
        );
    }
}
