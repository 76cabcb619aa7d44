//! coyote-llm: LLM providers for coyote — OpenAI-compatible chat completions and the Responses
//! API (also on Azure OpenAI), Anthropic Messages, Ollama's native chat, Google Gemini and
//! Amazon Bedrock Converse — behind one object-safe [`Provider`] trait: request building,
//! streaming parse (text, reasoning and several parallel tool calls), usage, typed errors, and
//! a bounded retry. Host differences come from the quirks table of `coyote_protocol::preset`.
//! It knows nothing about MCP and depends on no terminal, clap or config crate.
//!
//! Choice: our own wire code over `reqwest`, not a provider crate. Why: (1) streamed tool-call
//! deltas must work against *any* OpenAI-compatible base URL (Ollama, vLLM, llama.cpp, LM Studio,
//! OpenRouter, Groq), each with its own quirks — missing `index`/`id`, repeated names, arguments
//! as objects, usage in odd places — which we must be able to tolerate in one place;
//! (2) errors must be typed by cause (auth, rate limit with `Retry-After`, context length, …)
//! from status codes and bodies, which provider crates flatten into strings; (3) tests must see
//! the raw request bodies and feed raw SSE bytes split at any point; (4) one small dependency
//! set (reqwest + rustls/ring, shared with rmcp) instead of a crate per vendor.

#![deny(clippy::print_stdout)]

mod anthropic;
mod anthropic_stream;
mod bedrock;
mod bedrock_stream;
mod builder;
mod credential;
mod error;
mod error_body;
mod event;
mod eventstream;
mod framing;
mod gemini;
mod gemini_schema;
mod gemini_stream;
mod http;
mod ollama;
mod openai;
mod openai_route;
mod openai_stream;
mod provider;
mod responses;
mod responses_stream;
mod retry;
mod sigv4;
mod sse;
mod stream;
mod types;
mod validate;

pub use anthropic::{ANTHROPIC_VERSION, Anthropic, DEFAULT_ANTHROPIC_MAX_TOKENS};
// The client configuration and function-name rules live in `coyote-protocol` (so config
// depends on no provider code); re-exported at their old paths.
pub use bedrock::Bedrock;
pub use builder::{ProviderBuilder, build_provider};
pub use coyote_protocol::names::{FunctionNameRules, MAX_FUNCTION_NAME_BYTES, NameCharset};
pub use coyote_protocol::provider::{
    ANTHROPIC_API_BASE, ApiKey, AwsAuth, AwsCredentials, AzureAuth, DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_OPENAI_MODEL, HttpTimeouts, KeySource, ModelConfig, OPENAI_API_BASE, ProviderConfig,
    ProviderKind, Quirks, WireApi,
};
pub use coyote_protocol::{ReplayItem, bedrock_runtime_base, preset};
pub use credential::{KEY_COMMAND_TIMEOUT, KEY_COMMAND_TTL};
pub use error::{LlmError, TimeoutPhase};
pub use event::{ResponseAssembler, StreamEvent};
pub use gemini::{Gemini, NO_THINKING_PREFIXES};
pub use http::install_crypto_provider;
pub use ollama::Ollama;
pub use openai::OpenAiCompatible;
pub use openai_route::AZURE_API_VERSION;
pub use provider::Provider;
pub use responses::OpenAiResponses;
pub use retry::{
    BASE_BACKOFF, MAX_RETRIES, MAX_RETRY_AFTER, MAX_RETRY_WAIT, RetryClock, RetryPolicy, TokioClock,
};
pub use sse::MAX_SSE_LINE_BYTES;
pub use stream::EventStream;
pub use types::{
    ArgumentsError, AssistantMessage, ChatRequest, ChatResponse, FinishReason, Message, StreamMode,
    ToolCall, ToolChoice, ToolOutcome, ToolResult, Usage,
};
pub use validate::{ConversationError, validate_conversation};
