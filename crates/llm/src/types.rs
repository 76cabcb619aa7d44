//! One chat request and its assembled response, around the provider-neutral conversation of
//! `coyote_protocol::message` (re-exported here at its old paths). Providers translate these
//! into their wire shapes; nothing here knows HTTP, JSON wire formats or MCP.

use coyote_protocol::FunctionDeclaration;
pub use coyote_protocol::message::{
    ArgumentsError, AssistantMessage, Message, ToolCall, ToolOutcome, ToolResult, Usage,
};
use serde::{Deserialize, Serialize};
/// Whether the answer is streamed as it is generated or fetched whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamMode {
    /// Stream the answer as it is generated (SSE).
    #[default]
    Streaming,
    /// One non-streaming request; the provider still yields [`crate::StreamEvent`]s, all at
    /// once when the answer arrives, so callers have a single code path.
    Whole,
}

/// Whether the model may, must, or must not call the declared functions in its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides (the providers' default; nothing extra is sent).
    #[default]
    Auto,
    /// The model must call one of the declared functions.
    Required,
    /// The model must answer in text. The providers render this so that no server can still
    /// show the declarations to the model (see each provider's module).
    None,
}

/// One request to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The model name as the provider knows it.
    pub model: String,
    /// The conversation, system messages included.
    pub messages: Vec<Message>,
    /// Functions the model may call; sent only when non-empty.
    pub tools: Vec<FunctionDeclaration>,
    /// Sampling temperature; `None` leaves the provider's default.
    pub temperature: Option<f64>,
    /// Output limit. Anthropic requires one and uses [`crate::DEFAULT_ANTHROPIC_MAX_TOKENS`]
    /// when unset.
    pub max_tokens: Option<u32>,
    /// Streamed or whole.
    pub stream: StreamMode,
    /// Ignored when `tools` is empty.
    pub tool_choice: ToolChoice,
}

impl ChatRequest {
    /// A streaming request without tools or sampling options.
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        ChatRequest {
            model: model.into(),
            messages,
            tools: Vec::new(),
            temperature: None,
            max_tokens: None,
            stream: StreamMode::Streaming,
            tool_choice: ToolChoice::Auto,
        }
    }

    /// Sets whether the model may, must or must not call the declared functions.
    pub fn with_tool_choice(mut self, tool_choice: ToolChoice) -> Self {
        self.tool_choice = tool_choice;
        self
    }

    /// Sets the declared functions.
    pub fn with_tools(mut self, tools: Vec<FunctionDeclaration>) -> Self {
        self.tools = tools;
        self
    }

    /// Sets the sampling temperature.
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the output limit.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets streamed or whole.
    pub fn with_stream(mut self, stream: StreamMode) -> Self {
        self.stream = stream;
        self
    }
}

/// Why the model stopped. Callers decide whether to run tools from
/// [`AssistantMessage::tool_calls`], not from this value: some OpenAI-compatible servers report
/// `stop` even when they emitted tool calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end (OpenAI `stop`, Anthropic `end_turn` / `stop_sequence`).
    Stop,
    /// The output limit was hit (`length` / `max_tokens`).
    Length,
    /// The model wants its tool calls run (`tool_calls` / `tool_use`).
    ToolCalls,
    /// Filtered or refused (`content_filter` / `refusal`).
    ContentFilter,
    /// Anything else, verbatim.
    Other(String),
}

/// The assembled answer of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// What the model said.
    pub message: AssistantMessage,
    /// Absent when the server reported none.
    pub usage: Option<Usage>,
    /// Why it stopped.
    pub finish_reason: FinishReason,
}
