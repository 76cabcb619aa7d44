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
    /// `instructions` of the `initialize` answer; `None` leaves it out.
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

/// One explicit tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    /// The tool's `name`, unique in the scenario.
    pub name: String,
    /// `title` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema; default `{"type":"object","properties":{"text":{"type":"string"}}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Wire-form `ToolAnnotations`, e.g. `{"destructiveHint": true}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// `outputSchema` as listed, if any (results are not checked against it: a test can
    /// make a tool break its own schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// What a call of this tool does.
    pub behavior: ToolBehavior,
}

/// What a tool does when called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolBehavior {
    /// Text result: the `text` argument if it is a string, else the arguments as JSON.
    Echo,
    /// A fixed text result.
    Text {
        /// The result's only text block.
        text: String,
    },
    /// `isError: true` with this text.
    Error {
        /// The error result's text block.
        text: String,
    },
    /// Sleeps `duration_ms` (in steps), sending `notifications/progress` every
    /// `progress_every_ms` when the request carries a progress token. A cancellation is
    /// observed and logged as `tool_cancelled`.
    Slow {
        /// Total time before the answer, in milliseconds.
        duration_ms: u64,
        /// Interval between progress notifications; `None` sends none.
        progress_every_ms: Option<u64>,
    },
    /// Sends `count` `notifications/progress` as fast as it can (progress 1..=count of
    /// `count`, message "step N"), then answers "flooded N".
    ProgressFlood {
        /// How many notifications.
        count: u64,
    },
    /// Never answers; logs `tool_cancelled` when cancelled.
    Hang,
    /// Writes `stderr` to stderr and exits the process with `exit_code` (in-process: closes
    /// the transport instead).
    Crash {
        /// Written to stderr before exiting.
        stderr: String,
        /// The process's exit status.
        exit_code: i32,
    },
    /// Writes `line` (plus `\n`) raw to the protocol stream, then answers `ok`.
    GarbageStdout {
        /// The raw line, not JSON-RPC.
        line: String,
    },
    /// Writes `text` `lines` times to stderr, then answers `ok`.
    StderrNoise {
        /// How many times `text` is written.
        lines: u32,
        /// The stderr line repeated.
        text: String,
    },
    /// Answers one text block of `mib` MiB of `x`, streamed (never built in memory on stdio).
    Oversized {
        /// Size of the text block in MiB.
        mib: u64,
    },
    /// Answers one text block of exactly `bytes` bytes of [`crate::big_text`].
    BigText {
        /// Exact size of the text block in bytes.
        bytes: u64,
    },
    /// Answers one PNG image block ([`crate::PNG_BYTES`]) next to a text block.
    Image,
    /// Answers with this exact JSON as the JSON-RPC `result` (raw escape hatch; stdio and
    /// in-process only). See [`ToolBehavior::off_spec_mixed`].
    RawResult {
        /// The JSON-RPC `result` sent as is.
        result: Value,
    },
    /// Answers with `result` written verbatim as the JSON-RPC `result` (so escapes such as a
    /// lone surrogate `\ud800` reach the client as written), with the bytes `inject` (e.g.
    /// `[255, 254]`, not UTF-8) put in place of the first [`RAW_REPLY_INJECT_MARK`]. stdio and
    /// in-process only.
    RawReply {
        /// The raw JSON text of the `result`.
        result: String,
        /// Bytes put in place of [`RAW_REPLY_INJECT_MARK`].
        #[serde(default)]
        inject: Vec<u8>,
    },
    /// Sends `elicitation/create` (form mode) with `schema`, then answers a text block with
    /// the client's answer as JSON `{"action": …, "content": …}`.
    Elicit {
        /// The elicitation's `message`.
        message: String,
        /// The `requestedSchema` of the form.
        schema: Value,
    },
    /// Answers `structuredContent: value` and its JSON as text.
    Structured {
        /// The `structuredContent` sent (and its JSON as text).
        value: Value,
    },
    /// Sends these notifications in order, then answers `ok`.
    Notify {
        /// Notifications sent before the answer, in order.
        notifications: Vec<ServerNotice>,
    },
    /// Sends `sampling/createMessage` (the `prompt` argument's text if given, else `prompt`,
    /// as one user message; `system`; `max_tokens`; `hints` as `modelPreferences`), then
    /// answers the model's text — or, when the client refused, an `isError` result with the
    /// refusal's message.
    Sample {
        /// The user message when the call has no `prompt` argument.
        prompt: String,
        /// The system prompt sent, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        system: Option<String>,
        /// `maxTokens` (the `max_tokens` argument wins when given).
        max_tokens: u32,
        /// `modelPreferences.hints[].name`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        hints: Vec<String>,
    },
    /// Asks `roots/list` and answers the roots as JSON; with `wait_for_change`, then waits
    /// (bounded by `wait_ms`, cancellable) for `notifications/roots/list_changed`, asks again
    /// and answers `{"before": […], "after": […]}`.
    Roots {
        /// Wait for a change notification and list again.
        wait_for_change: bool,
        /// Longest wait for the notification, in milliseconds.
        wait_ms: u64,
    },
}

/// Where a `raw_reply` tool puts its `inject` bytes.
pub const RAW_REPLY_INJECT_MARK: &str = "@@INJECT@@";

/// A notification a `notify` tool sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ServerNotice {
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/updated` for one URI.
    ResourceUpdated {
        /// The URI the update is about.
        uri: String,
    },
    /// `notifications/message` with this level (`info`, `warning`, …) and data.
    Log {
        /// The log level, as MCP names it.
        level: String,
        /// The log message's `data`.
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
    /// The resource's URI, as listed and read.
    pub uri: String,
    /// The resource's `name`.
    pub name: String,
    /// `title` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `mimeType` as listed and read, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Wire-form `Annotations`, e.g. `{"audience": ["user"]}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// What reading this resource returns.
    pub body: ResourceBody,
}

/// What `resources/read` of a resource returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ResourceBody {
    /// A text item.
    Text {
        /// The item's `text`.
        text: String,
    },
    /// A blob of [`crate::PNG_BYTES`].
    Png,
    /// A blob that is base64 of this UTF-8 text (server-everything style).
    Base64Text {
        /// The UTF-8 text the blob encodes.
        text: String,
    },
    /// A blob given as base64.
    Blob {
        /// The blob, already base64.
        base64: String,
    },
    /// A blob of `bytes` bytes of [`crate::generated_blob`] (not UTF-8), streamed on stdio.
    GeneratedBlob {
        /// Size of the generated blob.
        bytes: u64,
    },
    /// Text of exactly `bytes` bytes of [`crate::big_text`] (never written into the scenario).
    BigText {
        /// Its length in bytes.
        bytes: u64,
    },
    /// Raw `contents` array of the result (stdio and in-process only), e.g. an item with both
    /// or neither of `text`/`blob`.
    RawContents {
        /// The result's `contents` array, sent as is.
        contents: Value,
    },
}

/// One resource template; reading a matching URI answers `text` with `{var}` substituted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateSpec {
    /// The RFC 6570 template as listed, e.g. `fake://item/{id}`.
    pub uri_template: String,
    /// The template's `name`.
    pub name: String,
    /// `title` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `mimeType` as listed and read, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text answered for a matching URI, `{var}` replaced by the URI's value.
    pub text: String,
}

/// One explicit prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptSpec {
    /// The prompt's `name`.
    pub name: String,
    /// `title` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Arguments as listed; `get` substitutes them into the messages.
    #[serde(default)]
    pub arguments: Vec<PromptArgSpec>,
    /// Messages; `{arg}` in text is replaced by the argument's value. Empty = one user message
    /// `prompt NAME` followed by the arguments as JSON.
    #[serde(default)]
    pub messages: Vec<PromptMessageSpec>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptArgSpec {
    /// The argument's `name`.
    pub name: String,
    /// `description` as listed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument is listed as required.
    #[serde(default)]
    pub required: bool,
}

/// One message of a prompt's `prompts/get` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptMessageSpec {
    /// Who says it.
    pub role: PromptRole,
    /// What it says.
    pub content: PromptContent,
}

/// The role of a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptRole {
    /// The user's turn.
    User,
    /// The assistant's turn.
    Assistant,
}

/// The content block of a prompt message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PromptContent {
    /// A text block; `{arg}` is replaced by the argument's value.
    Text {
        /// The block's text.
        text: String,
    },
    /// An image block of [`crate::PNG_BYTES`].
    Image,
    /// An embedded text resource.
    Resource {
        /// The embedded resource's URI.
        uri: String,
        /// Its `mimeType`, if any.
        mime_type: Option<String>,
        /// Its text.
        text: String,
    },
}

/// Completion values for one argument of one prompt or resource template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompletionSpec {
    /// The prompt or template whose argument is completed.
    pub target: CompletionTarget,
    /// The argument's name.
    pub argument: String,
    /// Offered values; those starting with the typed value are answered.
    pub values: Vec<String>,
}

/// What a completion belongs to, as `completion/complete` names it (`ref/prompt`, `ref/resource`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CompletionTarget {
    /// A prompt argument.
    Prompt {
        /// The prompt's name.
        name: String,
    },
    /// `uri` is the template string as listed, e.g. `fake://item/{id}`.
    ResourceTemplate {
        /// The template string as listed.
        uri: String,
    },
}

/// Whether `completion/complete` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionMode {
    /// Answer with the matching values.
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
