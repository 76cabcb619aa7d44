//! The scenario: everything the fake MCP server does, as serde data.
//!
//! One `Scenario` drives both the in-process server (`crate::in_process`) and the
//! `coyote-fake-mcp` binary (as a JSON file). Every field has a default, so a scenario file
//! may be as small as `{}` (an empty server advertising tools, resources, prompts and
//! completions). Unknown keys are rejected so a typo in a test's scenario fails loudly
//! instead of silently testing the default.
//!
//! Tests build scenarios with [`Scenario::builder`] and write them with
//! [`ScenarioBuilder::write_to`], which also picks the event-log path.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

mod builder;
mod catalog_items;
mod file;
mod skills;
mod tools;

pub use builder::ScenarioBuilder;
pub use catalog_items::{
    CompletionMode, CompletionSpec, CompletionTarget, PromptArgSpec, PromptContent,
    PromptMessageSpec, PromptRole, PromptSpec, ResourceBody, ResourceSpec, TemplateSpec,
};
pub use file::{FAKE_MCP_BIN_ENV, SCENARIO_ENV, ScenarioFile, fake_mcp_bin};
pub use skills::{SkillFileSpec, SkillSpec, SkillTamper, sha256_digest};
pub use tools::{RAW_REPLY_INJECT_MARK, ServerNotice, ToolBehavior, ToolSpec};

/// The whole behaviour of one fake server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// `serverInfo.name` (default `coyote-fake`).
    pub server_name: String,
    /// `serverInfo.version` (default `0.0.0`).
    pub server_version: String,
    /// `instructions` of the `initialize` answer; `None` leaves it out.
    pub instructions: Option<String>,
    /// Force this protocol version in the `initialize` answer (e.g. `"2025-03-26"`) whatever
    /// the client asks; `None` = rmcp's negotiation (echo the client's version if known,
    /// else 2025-11-25).
    pub protocol_version: Option<String>,
    /// Also speak protocol 2026-07-28 (`server/discover`, per-request metadata): a dual-era
    /// server. Default `false`: 2025-11-25 and earlier only, as most servers in use are (a
    /// `server/discover` is answered with the supported revisions, and the client falls back
    /// to `initialize`).
    pub speaks_2026: bool,
    /// Which capabilities `initialize` advertises. Handlers of a kind that is not advertised
    /// answer -32601 (rmcp's default behaviour), like a real server would.
    pub capabilities: Capabilities,
    /// Items per page for every list (`None` or 0 = everything in one page).
    pub page_size: Option<usize>,
    /// How `nextCursor` behaves on every list.
    pub pagination: PaginationMode,
    /// Generated items, listed before the explicit ones.
    pub generated: Generated,
    /// Explicit tools, listed after the generated ones.
    pub tools: Vec<ToolSpec>,
    /// Explicit resources, listed after the generated ones.
    pub resources: Vec<ResourceSpec>,
    /// Explicit resource templates, listed after the generated ones.
    pub templates: Vec<TemplateSpec>,
    /// Explicit prompts, listed after the generated ones.
    pub prompts: Vec<PromptSpec>,
    /// Values `completion/complete` offers, per prompt or template argument.
    pub completions: Vec<CompletionSpec>,
    /// Whether `completion/complete` is answered at all.
    pub completion_mode: CompletionMode,
    /// What the process does before (or instead of) the handshake.
    pub startup: Startup,
    /// Where events are appended as JSON lines (one flushed write per event).
    pub event_log: Option<PathBuf>,
    /// Advertise `resources.subscribe` and send updates after each `resources/subscribe`.
    pub resource_updates: Option<ResourceUpdatesSpec>,
    /// Skills served through the skills extension (declared only when there are some).
    pub skills: Vec<SkillSpec>,
}

/// What the fake does after `resources/subscribe`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceUpdatesSpec {
    /// How many `notifications/resources/updated` for the URI.
    pub count: u32,
    /// Time before each, in milliseconds.
    pub every_ms: u64,
    /// After the last one the process exits (code 3; in-process: the transport closes).
    #[serde(default)]
    pub exit_after: bool,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            server_name: "coyote-fake".to_owned(),
            server_version: "0.0.0".to_owned(),
            instructions: None,
            protocol_version: None,
            speaks_2026: false,
            capabilities: Capabilities::default(),
            page_size: None,
            pagination: PaginationMode::Normal,
            generated: Generated::default(),
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            completions: Vec::new(),
            completion_mode: CompletionMode::Answer,
            startup: Startup::default(),
            event_log: None,
            resource_updates: None,
            skills: Vec::new(),
        }
    }
}

/// Advertised capabilities. Default: tools, resources, prompts, completions; no logging.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Capabilities {
    /// Advertise `tools` (list and call).
    pub tools: bool,
    /// Advertise `resources` (list, templates, read).
    pub resources: bool,
    /// Advertise `prompts` (list and get).
    pub prompts: bool,
    /// Advertise `completions` (`completion/complete`).
    pub completions: bool,
    /// Advertise `logging` (`logging/setLevel`).
    pub logging: bool,
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            tools: true,
            resources: true,
            prompts: true,
            completions: true,
            logging: false,
        }
    }
}

impl Capabilities {
    /// Nothing advertised; chain `with_*` to add kinds.
    pub fn none() -> Self {
        Capabilities {
            tools: false,
            resources: false,
            prompts: false,
            completions: false,
            logging: false,
        }
    }
    /// Everything, logging included.
    pub fn all() -> Self {
        Capabilities {
            tools: true,
            resources: true,
            prompts: true,
            completions: true,
            logging: true,
        }
    }
    /// Adds `tools`.
    pub fn with_tools(mut self) -> Self {
        self.tools = true;
        self
    }
    /// Adds `resources`.
    pub fn with_resources(mut self) -> Self {
        self.resources = true;
        self
    }
    /// Adds `prompts`.
    pub fn with_prompts(mut self) -> Self {
        self.prompts = true;
        self
    }
    /// Adds `completions`.
    pub fn with_completions(mut self) -> Self {
        self.completions = true;
        self
    }
    /// Adds `logging`.
    pub fn with_logging(mut self) -> Self {
        self.logging = true;
        self
    }
}

/// How `nextCursor` behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaginationMode {
    /// Cursors are offsets; the last page has no `nextCursor`.
    #[default]
    Normal,
    /// Bug mode: every page (including the first) answers `nextCursor: "repeat"` and the
    /// cursor `"repeat"` returns the first page again — a client without a guard loops.
    RepeatedCursor,
}

/// Counts of generated items (see the crate docs for their names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Generated {
    /// `gen_tool_0000`… (echo tools).
    pub tools: usize,
    /// `fake://gen/0000`… (text `generated resource N`).
    pub resources: usize,
    /// `fake://gen/N/{id}` (text `generated template N item {id}`).
    pub templates: usize,
    /// `gen_prompt_0000`… (no arguments, one user message).
    pub prompts: usize,
}

/// Process start-up behaviour (the binary; in-process honours `delay_ms` and `mode`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Startup {
    /// Sleep before reading stdin / binding.
    pub delay_ms: u64,
    /// Lines written to stderr at start.
    pub stderr_lines: Vec<String>,
    /// Lines written raw to stdout before the handshake (stdio only; a chatty server's banner).
    pub stdout_lines: Vec<String>,
    /// Start normally, hang, or crash before the handshake.
    pub mode: StartupMode,
    /// Spawn `sleep 1000` (same process group, stdio null) and log its pid as `grandchild`.
    pub spawn_grandchild: bool,
    /// Exit after this long whatever happens (a leak guard; default 600 000 ms).
    pub max_lifetime_ms: Option<u64>,
}

/// How the server starts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StartupMode {
    /// Answer the handshake.
    #[default]
    Normal,
    /// Receive `initialize` (logged) and never answer it.
    HangAtInitialize,
    /// Write `stderr` and exit with `exit_code` before speaking MCP.
    CrashAtStart {
        /// Written to stderr before exiting.
        stderr: String,
        /// The process's exit status.
        exit_code: i32,
    },
}

impl Scenario {
    /// A builder starting from the default scenario (an empty server, default capabilities).
    pub fn builder() -> ScenarioBuilder {
        ScenarioBuilder::new(Scenario::default())
    }

    /// Parse a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: path.to_owned(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| ScenarioError::Parse {
            path: path.to_owned(),
            source,
        })
    }
}

/// Why a scenario file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error(
        "cannot read scenario file {path}: {source}; pass an existing JSON file as argv[1] or COYOTE_FAKE_SCENARIO"
    )]
    Read {
        /// The scenario file.
        path: PathBuf,
        /// The read error.
        source: std::io::Error,
    },
    /// The file is not a valid scenario.
    #[error(
        "invalid scenario file {path}: {source}; see crates/test-support/src/scenario.rs for the schema"
    )]
    Parse {
        /// The scenario file.
        path: PathBuf,
        /// What serde rejected, with line and column.
        source: serde_json::Error,
    },
    /// The file could not be written.
    #[error("cannot write scenario file {path}: {source}")]
    Write {
        /// The scenario file.
        path: PathBuf,
        /// The write error.
        source: std::io::Error,
    },
}
