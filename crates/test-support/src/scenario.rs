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
use serde_json::Value;

use crate::scenario_builder::ScenarioBuilder;

/// The whole behaviour of one fake server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// `serverInfo.name` (default `coyote-fake`).
    pub server_name: String,
    /// `serverInfo.version` (default `0.0.0`).
    pub server_version: String,
    pub instructions: Option<String>,
    /// Force this protocol version in the `initialize` answer (e.g. `"2025-03-26"`) whatever
    /// the client asks; `None` = rmcp's negotiation (echo the client's version if known,
    /// else 2025-11-25).
    pub protocol_version: Option<String>,
    /// Which capabilities `initialize` advertises. Handlers of a kind that is not advertised
    /// answer -32601 (rmcp's default behaviour), like a real server would.
    pub capabilities: Capabilities,
    /// Items per page for every list (`None` or 0 = everything in one page).
    pub page_size: Option<usize>,
    pub pagination: PaginationMode,
    /// Generated items, listed before the explicit ones.
    pub generated: Generated,
    pub tools: Vec<ToolSpec>,
    pub resources: Vec<ResourceSpec>,
    pub templates: Vec<TemplateSpec>,
    pub prompts: Vec<PromptSpec>,
    pub completions: Vec<CompletionSpec>,
    pub completion_mode: CompletionMode,
    pub startup: Startup,
    /// Where events are appended as JSON lines (one flushed write per event).
    pub event_log: Option<PathBuf>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            server_name: "coyote-fake".to_owned(),
            server_version: "0.0.0".to_owned(),
            instructions: None,
            protocol_version: None,
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
        }
    }
}

/// Advertised capabilities. Default: tools, resources, prompts, completions; no logging.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Capabilities {
    pub tools: bool,
    pub resources: bool,
    pub prompts: bool,
    pub completions: bool,
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
    pub fn with_tools(mut self) -> Self {
        self.tools = true;
        self
    }
    pub fn with_resources(mut self) -> Self {
        self.resources = true;
        self
    }
    pub fn with_prompts(mut self) -> Self {
        self.prompts = true;
        self
    }
    pub fn with_completions(mut self) -> Self {
        self.completions = true;
        self
    }
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

/// One explicit tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema; default `{"type":"object","properties":{"text":{"type":"string"}}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Wire-form `ToolAnnotations`, e.g. `{"destructiveHint": true}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    pub behavior: ToolBehavior,
}

/// What a tool does when called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolBehavior {
    /// Text result: the `text` argument if it is a string, else the arguments as JSON.
    Echo,
    /// A fixed text result.
    Text { text: String },
    /// `isError: true` with this text.
    Error { text: String },
    /// Sleeps `duration_ms` (in steps), sending `notifications/progress` every
    /// `progress_every_ms` when the request carries a progress token. A cancellation is
    /// observed and logged as `tool_cancelled`.
    Slow {
        duration_ms: u64,
        progress_every_ms: Option<u64>,
    },
    /// Never answers; logs `tool_cancelled` when cancelled.
    Hang,
    /// Writes `stderr` to stderr and exits the process with `exit_code` (in-process: closes
    /// the transport instead).
    Crash { stderr: String, exit_code: i32 },
    /// Writes `line` (plus `\n`) raw to the protocol stream, then answers `ok`.
    GarbageStdout { line: String },
    /// Writes `text` `lines` times to stderr, then answers `ok`.
    StderrNoise { lines: u32, text: String },
    /// Answers one text block of `mib` MiB of `x`, streamed (never built in memory on stdio).
    Oversized { mib: u64 },
    /// Answers one text block of exactly `bytes` bytes of [`crate::big_text`].
    BigText { bytes: u64 },
    /// Answers one PNG image block ([`crate::PNG_BYTES`]) next to a text block.
    Image,
    /// Answers with this exact JSON as the JSON-RPC `result` (raw escape hatch; stdio and
    /// in-process only). See [`ToolBehavior::off_spec_mixed`].
    RawResult { result: Value },
    /// Sends `elicitation/create` (form mode) with `schema`, then answers a text block with
    /// the client's answer as JSON `{"action": …, "content": …}`.
    Elicit { message: String, schema: Value },
    /// Answers `structuredContent: value` and its JSON as text.
    Structured { value: Value },
    /// Sends these notifications in order, then answers `ok`.
    Notify { notifications: Vec<ServerNotice> },
}

/// A notification a `notify` tool sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ServerNotice {
    ToolsListChanged,
    ResourcesListChanged,
    PromptsListChanged,
    ResourceUpdated {
        uri: String,
    },
    /// `notifications/message` with this level (`info`, `warning`, …) and data.
    Log {
        level: String,
        data: Value,
    },
}

impl ToolBehavior {
    /// A result whose middle content block is off-spec (unknown `type`) between two valid
    /// ones: text `before off-spec` and text `after off-spec`.
    pub fn off_spec_mixed() -> Self {
        ToolBehavior::RawResult {
            result: serde_json::json!({
                "content": [
                    {"type": "text", "text": "before off-spec"},
                    {"type": "hologram", "data": "???"},
                    {"type": "text", "text": "after off-spec"}
                ]
            }),
        }
    }

    /// An elicitation with string, number, boolean and enum fields, each with a default.
    pub fn elicit_form() -> Self {
        ToolBehavior::Elicit {
            message: "Please fill in the form".to_owned(),
            schema: crate::content::sample_elicitation_schema(),
        }
    }
}

/// One explicit resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceSpec {
    pub uri: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Wire-form `Annotations`, e.g. `{"audience": ["user"]}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    pub body: ResourceBody,
}

/// What `resources/read` of a resource returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ResourceBody {
    Text {
        text: String,
    },
    /// A blob of [`crate::PNG_BYTES`].
    Png,
    /// A blob that is base64 of this UTF-8 text (server-everything style).
    Base64Text {
        text: String,
    },
    /// A blob given as base64.
    Blob {
        base64: String,
    },
    /// A blob of `bytes` bytes of [`crate::generated_blob`] (not UTF-8), streamed on stdio.
    GeneratedBlob {
        bytes: u64,
    },
    /// Raw `contents` array of the result (stdio and in-process only), e.g. an item with both
    /// or neither of `text`/`blob`.
    RawContents {
        contents: Value,
    },
}

/// One resource template; reading a matching URI answers `text` with `{var}` substituted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateSpec {
    pub uri_template: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    pub text: String,
}

/// One explicit prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub arguments: Vec<PromptArgSpec>,
    /// Messages; `{arg}` in text is replaced by the argument's value. Empty = one user message
    /// `prompt NAME` followed by the arguments as JSON.
    #[serde(default)]
    pub messages: Vec<PromptMessageSpec>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptArgSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptMessageSpec {
    pub role: PromptRole,
    pub content: PromptContent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptRole {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PromptContent {
    Text {
        text: String,
    },
    /// An image block of [`crate::PNG_BYTES`].
    Image,
    /// An embedded text resource.
    Resource {
        uri: String,
        mime_type: Option<String>,
        text: String,
    },
}

/// Completion values for one argument of one prompt or resource template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompletionSpec {
    pub target: CompletionTarget,
    pub argument: String,
    /// Offered values; those starting with the typed value are answered.
    pub values: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CompletionTarget {
    Prompt {
        name: String,
    },
    /// `uri` is the template string as listed, e.g. `fake://item/{id}`.
    ResourceTemplate {
        uri: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionMode {
    #[default]
    Answer,
    /// `completion/complete` is logged and never answered (until cancelled).
    NeverAnswer,
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
    pub mode: StartupMode,
    /// Spawn `sleep 1000` (same process group, stdio null) and log its pid as `grandchild`.
    pub spawn_grandchild: bool,
    /// Exit after this long whatever happens (a leak guard; default 600 000 ms).
    pub max_lifetime_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StartupMode {
    #[default]
    Normal,
    /// Receive `initialize` (logged) and never answer it.
    HangAtInitialize,
    /// Write `stderr` and exit with `exit_code` before speaking MCP.
    CrashAtStart { stderr: String, exit_code: i32 },
}

impl Scenario {
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

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error(
        "cannot read scenario file {path}: {source}; pass an existing JSON file as argv[1] or COYOTE_FAKE_SCENARIO"
    )]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "invalid scenario file {path}: {source}; see crates/test-support/src/scenario.rs for the schema"
    )]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot write scenario file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}
