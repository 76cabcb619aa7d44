//! coyote-mcp — the MCP host: connections, runtime, catalog, content policy (render),
//! meta-functions, prompt flattening, URI templates and the client handler. The only
//! client-side user of rmcp; rmcp types never leave this crate (ARCHITECTURE.md).

pub mod catalog_item;
pub mod content;
pub mod meta;
pub mod prompt;
pub mod render;
pub mod search;
pub mod uri_template;

pub use catalog_item::{CatalogItem, CatalogKind, McpServerFeatures};
pub use content::{
    ContentItem, PromptMessage, PromptMessageRole, PromptResult, ResourceContent, ToolCallOutcome,
};
pub use meta::{
    FunctionTarget, MetaFunction, MetaKind, is_mcp_meta_function, mcp_meta_function_names,
};
pub use render::{RenderContext, RenderError, SpillStore};

mod activity;
pub mod connect;
mod convert;
pub mod error;
pub mod factory;
pub mod handle;
pub mod handler;
pub mod listing;
pub mod runtime;

pub use connect::http::install_crypto_provider;
pub use connect::line::MAX_MESSAGE_BYTES;
pub use error::{McpError, TimeoutPhase};
pub use factory::{AgentRuntime, AgentServerProblem, AgentServers, McpFactory, ServerLease};
pub use handle::{CompletionRef, ServerCapabilityFlags, ServerHandle, ServerInfo};
pub use handler::{
    ClientIdentity, DeclineElicitation, ElicitationHook, ElicitationRequest, ElicitationResponse,
    ListGenerations, PROTOCOL_VERSION,
};
pub use listing::{
    Catalog, MAX_LIST_PAGES, PromptArgumentInfo, PromptInfo, ResourceInfo, ResourceTemplateInfo,
    ToolInfo,
};
pub use runtime::{McpRuntime, RuntimeOptions, ServerState, ServerStatus, ShutdownTimeouts};
