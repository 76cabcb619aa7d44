//! The tools of a scenario: each [`ToolSpec`] as listed, and what a call does
//! ([`ToolBehavior`]: echo, fixed results, errors, waits, notifications, elicitation, raw wire
//! replies…).

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// Fails its first `times` calls with error -32042 (`URLElicitationRequiredError`: the
    /// user must open `url` first, as the TypeScript SDK's `elicitationUrlExample` does), then
    /// answers the text `page confirmed`.
    UrlRequired {
        /// The page to open.
        url: String,
        /// Why.
        message: String,
        /// How many calls fail before one succeeds.
        times: usize,
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
