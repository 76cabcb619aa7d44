//! Our own content model, converted from rmcp's at the host boundary (style rule 4). Binary
//! payloads stay as the server's base64 `String` (moved, never copied, never a
//! `serde_json::Value`) until `render` decodes them in a stream. Off-spec items become
//! `Invalid` entries instead of failing the whole result.

use serde::{Deserialize, Serialize};

/// One `resources/read` content entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResourceContent {
    /// A text item.
    Text {
        /// The resource's URI.
        uri: String,
        /// `mimeType`, if the server sent one.
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// A binary item.
    Blob {
        /// The resource's URI.
        uri: String,
        /// `mimeType`, if the server sent one.
        mime_type: Option<String>,
        /// The server's base64 — or, for a big blob the stdio transport decoded while it
        /// arrived, a token standing for it: read it only through `render::decode_blob`.
        blob_base64: String,
    },
    /// Both or neither of `text`/`blob`, or otherwise unparseable: reported, never a panic.
    Invalid {
        /// The item's URI, when it had a readable one.
        uri: Option<String>,
        /// What was wrong with it.
        reason: String,
    },
}

/// One content block of a tool result or prompt message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentItem {
    /// A text block.
    Text {
        /// The text.
        text: String,
        /// The block's `annotations` object, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<serde_json::Value>,
    },
    /// An image, still base64.
    Image {
        /// The image bytes as the server's base64.
        data_base64: String,
        /// `mimeType`, if the server sent one.
        mime_type: Option<String>,
    },
    /// An audio clip, still base64.
    Audio {
        /// The audio bytes as the server's base64.
        data_base64: String,
        /// `mimeType`, if the server sent one.
        mime_type: Option<String>,
    },
    /// A `resource_link`: the model can follow up with `mcp_read_<server>`.
    ResourceLink {
        /// The linked resource's URI.
        uri: String,
        /// `name`, if given.
        name: Option<String>,
        /// `title`, if given.
        title: Option<String>,
        /// `description`, if given.
        description: Option<String>,
        /// `mimeType`, if given.
        mime_type: Option<String>,
        /// The declared size in bytes, if given.
        size: Option<u64>,
    },
    /// An embedded resource.
    Resource {
        /// The resource's contents, as `resources/read` would return them.
        resource: ResourceContent,
    },
    /// An off-spec block (unknown type, missing field…), kept in place so valid neighbours
    /// still reach the model.
    Invalid {
        /// The block's position in the result.
        index: usize,
        /// What was wrong with it.
        reason: String,
    },
}

/// A `tools/call` result in our model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallOutcome {
    /// The content blocks, in order.
    pub content: Vec<ContentItem>,
    /// `structuredContent`, if the tool returned it.
    pub structured_content: Option<serde_json::Value>,
    /// `isError`: the tool ran and reports a failure in `content`.
    pub is_error: bool,
    /// Set when `structured_content` does not match the tool's `outputSchema`: what does not
    /// match (the content is still delivered; the model and the log are warned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_warning: Option<String>,
    /// The result's `_meta`, verbatim (protocol-level metadata the server attached).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Value>,
    /// The task that ran the call, in its latest known state, when the server ran it as one
    /// (an MCP task): still running when the caller stopped waiting (`status` not terminal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskInfo>,
}

/// Role of a prompt message. MCP defines user and assistant; anything else is kept as text so
/// one odd message does not fail the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptMessageRole {
    /// The user's turn.
    User,
    /// The assistant's turn.
    Assistant,
    /// A role MCP does not define, kept as sent.
    Other(String),
}

impl PromptMessageRole {
    /// The role as shown to people and to the model.
    pub fn label(&self) -> &str {
        match self {
            PromptMessageRole::User => "user",
            PromptMessageRole::Assistant => "assistant",
            PromptMessageRole::Other(s) => s,
        }
    }
}

/// One message of a `prompts/get` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: PromptMessageRole,
    /// What it says (one content block).
    pub content: ContentItem,
}

/// A `prompts/get` result in our model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptResult {
    /// `description` of the result, if any.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

/// One task's state, as the server reports it (`tasks/get`, `tasks/list`, `tasks/cancel`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskInfo {
    /// The server's id of the task.
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// The server's latest words on it (raw: sanitize before showing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When its status last changed (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_updated_at: Option<String>,
    /// How long its result is kept after it ends (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// The server's suggested poll interval (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

impl TaskInfo {
    /// Reads a task object of either wire (`ttl`/`pollInterval` or `ttlMs`/`pollIntervalMs`).
    pub(crate) fn from_wire(task: &serde_json::Value) -> Option<TaskInfo> {
        let text = |key: &str| {
            task.get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        let number = |a: &str, b: &str| {
            task.get(a)
                .or_else(|| task.get(b))
                .and_then(serde_json::Value::as_u64)
        };
        Some(TaskInfo {
            task_id: text("taskId")?,
            status: text("status")?,
            status_message: text("statusMessage"),
            created_at: text("createdAt"),
            last_updated_at: text("lastUpdatedAt"),
            ttl_ms: number("ttl", "ttlMs"),
            poll_interval_ms: number("pollInterval", "pollIntervalMs"),
        })
    }

    /// Whether the task has ended (`completed`, `failed` or `cancelled`).
    pub fn is_terminal(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }
}
