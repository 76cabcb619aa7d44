//! Domain types shared by every coyote crate: MCP server specs, the function declarations a
//! model sees and the rules for their names, the conversation (messages, tool calls and
//! results), and the model/provider client configuration. Plain data with serde only — no
//! I/O, no tokio, no rmcp.

pub mod duration;
pub mod function;
pub mod kind;
pub mod message;
pub mod names;
pub mod oauth;
pub mod preset;
pub mod protocol_pin;
pub mod provider;
pub mod server;
pub mod utc;

pub use function::FunctionDeclaration;
pub use message::{
    ArgumentsError, AssistantMessage, ImagePart, Message, ReplayItem, ToolCall, ToolOutcome,
    ToolResult, Usage,
};
pub use names::{FunctionNameRules, MAX_FUNCTION_NAME_BYTES, NameCharset};
pub use oauth::{
    ClientCredentials, DpopMode, EnterpriseIdp, OAuthGrant, OAuthSpec, PrivateKey, TokenSource,
};
pub use protocol_pin::ProtocolPin;
pub use provider::{
    ANTHROPIC_API_BASE, ApiKey, AwsAuth, AwsCredentials, AzureAuth, DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_OPENAI_MODEL, HttpTimeouts, KeySource, MaxTokensField, ModelConfig, OPENAI_API_BASE,
    PRESETS, ParallelToolCalls, Preset, ProviderConfig, ProviderKind, Quirks, StreamUsage, WireApi,
    bedrock_runtime_base, preset,
};
pub use server::{
    ApprovalPolicy, ClientFeatureSettings, DEFAULT_INSTRUCTIONS_MAX_BYTES,
    DEFAULT_RETRIEVE_MAX_TOKENS, DEFAULT_RETRIEVE_TOP_K, DEFAULT_SAMPLING_MAX_TOKENS,
    DEFAULT_SAMPLING_PER_MINUTE, Exposure, HttpSpec, McpServerSpec, McpTransport, ResultLimits,
    RetrieveSettings, SamplingMode, StartMode, StartPolicy, StdioSpec, Timeouts, redact_url,
    redact_urls_in,
};
