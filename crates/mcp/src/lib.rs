//! coyote-mcp — the MCP host: connections, runtime, catalog, content policy (render),
//! meta-functions, prompt flattening, URI templates and the client handler. The only
//! client-side user of rmcp; rmcp types never leave this crate.
//!
//! Modules by floor (a module imports only its own floor or lower ones; no import cycles —
//! `crates/test-support/tests/structure.rs` checks it; `docs/architecture.md` has the table):
//! ground `server`, `catalog`, `error`, `content`, `schema_check`, `browser`; transport `connect`, `convert`,
//! `client_handler`, `activity`; one server's conversation `handle`, `listing`, `skills`; the runtime
//! `runtime`, `factory`, `catalog_cache`; policy `render`, `uri_template`, `prompt`, `search`; top `meta`.
// A lint exception is `#[expect(…, reason = …)]`, so one that is no longer needed fails the
// build instead of lingering.
#![deny(clippy::allow_attributes)]

// Ground floor: what one server is.
pub mod browser;
pub mod catalog;
pub mod content;
pub mod error;
pub mod progress;
pub mod schema_check;
pub mod server;

// Transport floor.
mod activity;
pub mod client_handler;
pub mod connect;
mod convert;

// One server's conversation.
pub mod completion;
pub mod handle;
pub mod listing;
pub mod skills;
pub mod subscription;
pub mod tasks;

// The runtime.
pub mod catalog_cache;
pub mod factory;
pub mod runtime;

// Policy.
pub mod prompt;
pub mod render;
pub mod search;
pub mod uri_template;

// Top floor: what the model sees.
pub mod meta;
mod mrtr;

pub use catalog::{
    Catalog, CatalogItem, CatalogKind, PromptArgumentInfo, PromptInfo, ResourceInfo,
    ResourceTemplateInfo, ToolInfo,
};
pub use client_handler::{
    ClientIdentity, DeclineElicitation, ElicitationHook, ElicitationRequest, ElicitationResponse,
    ListGenerations, McpLogLevel, NoServerLog, PROTOCOL_VERSION, ResourceVersion, RootEntry, Roots,
    SamplingContent, SamplingHook, SamplingMessage, SamplingRefusal, SamplingRequest,
    SamplingResponse, SamplingRole, SamplingStop, SamplingTool, SamplingToolChoice,
    ServerLogMessage, ServerLogSink, UnknownLogLevel, UrlElicitationRequest,
};
pub use completion::Completion;
pub use connect::auth;
pub use connect::kill_every_process_group;
pub use connect::line::MAX_MESSAGE_BYTES;
pub use connect::{Lifecycle, ProtocolRevisions};
pub use content::{
    ContentItem, PromptMessage, PromptMessageRole, PromptResult, ResourceContent, ToolCallOutcome,
};
pub use error::{McpError, SkillRefusal, TimeoutPhase};
pub use factory::{AgentRuntime, AgentServerProblem, AgentServers, McpFactory, ServerLease};
pub use handle::{CompletionRef, ServerHandle};
pub use lazy_tls::install_crypto_provider;
pub use listing::MAX_LIST_PAGES;
pub use meta::{
    FunctionTarget, MetaFunction, MetaKind, is_mcp_meta_function, mcp_meta_function_names,
};
pub use mrtr::MAX_INPUT_ROUNDS;
pub use render::{RenderContext, RenderError, SpillStore};
pub use runtime::{LoginReport, McpRuntime, RuntimeOptions, login};
pub use server::{
    McpServerFeatures, ServerCapabilityFlags, ServerInfo, ServerInstructions, ServerState,
    ServerStatus, ShutdownTimeouts,
};
pub use skills::{LoadedSkill, Skill, SkillFile, SkillListing};
