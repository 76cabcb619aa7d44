//! Test support for coyote (publish = false, dev-dependency only): a fake MCP server driven
//! by a [`Scenario`] — in-process over duplex pipes ([`in_process`]), over streamable HTTP
//! ([`FakeHttpServer`]), or as the `coyote-fake-mcp` binary ([`ScenarioFile`],
//! [`fake_mcp_bin`]) — and the deterministic payloads it sends ([`content`]).
//! [`structure`] checks a crate's module graph (import cycles, floors) for the structure tests.
//!
//! Generated item names: tools `gen_tool_0000`… (echo), resources `fake://gen/0000`… (text
//! `generated resource N`), templates `fake://gen/N/{id}` (text `generated template N item
//! {id}`), prompts `gen_prompt_0000`… (no arguments).
// A lint exception is `#[expect(…, reason = …)]`, so one that is no longer needed fails the
// build instead of lingering.
#![deny(clippy::allow_attributes)]

mod catalog;
pub mod content;
pub mod events;
pub mod fake_llm;
pub mod fake_oauth;
mod http;
mod in_process;
mod items;
pub mod oauth_peers;
pub mod peers;
pub mod scenario;
mod server;
pub mod sse_peers;
pub mod structure;
pub mod test_as;
mod tools;
mod transport;
pub mod user_text;

#[doc(hidden)]
pub mod binary;

pub use catalog::REPEATED_CURSOR;
pub use content::{PNG_BYTES, big_text, generated_blob, png_base64, sample_elicitation_schema};
pub use events::{Event, EventLog, ListKind, WaitError};
pub use http::FakeHttpServer;
pub use in_process::{ClientHalves, FakeHandle, in_process};
pub use scenario::{
    Capabilities, CompletionMode, CompletionSpec, CompletionTarget, Generated, PaginationMode,
    PromptArgSpec, PromptContent, PromptMessageSpec, PromptRole, PromptSpec, ResourceBody,
    ResourceSpec, ResourceUpdatesSpec, Scenario, ScenarioError, ServerNotice, SkillFileSpec,
    SkillSpec, SkillTamper, Startup, StartupMode, TemplateSpec, ToolBehavior, ToolSpec,
};
pub use scenario::{FAKE_MCP_BIN_ENV, SCENARIO_ENV, ScenarioBuilder, ScenarioFile, fake_mcp_bin};
