//! Our own content model, converted from rmcp's at the host boundary (style rule 4). Binary
//! payloads stay as the server's base64 `String` (moved, never copied, never a
//! `serde_json::Value`) until `render` decodes them in a stream. Off-spec items become
//! `Invalid` entries instead of failing the whole result (R1).

use serde::{Deserialize, Serialize};

/// One `resources/read` content entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResourceContent {
    Text {
        uri: String,
        mime_type: Option<String>,
        text: String,
    },
    Blob {
        uri: String,
        mime_type: Option<String>,
        /// The server's base64 — or, for a big blob the stdio transport decoded while it
        /// arrived, a token standing for it: read it only through `render::decode_blob`.
        blob_base64: String,
    },
    /// Both or neither of `text`/`blob`, or otherwise unparseable: reported, never a panic.
    Invalid { uri: Option<String>, reason: String },
}

/// One content block of a tool result or prompt message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentItem {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<serde_json::Value>,
    },
    Image {
        data_base64: String,
        mime_type: Option<String>,
    },
    Audio {
        data_base64: String,
        mime_type: Option<String>,
    },
    /// A `resource_link`: the model can follow up with `mcp_read_<server>`.
    ResourceLink {
        uri: String,
        name: Option<String>,
        title: Option<String>,
        description: Option<String>,
        mime_type: Option<String>,
        size: Option<u64>,
    },
    /// An embedded resource.
    Resource { resource: ResourceContent },
    /// An off-spec block (unknown type, missing field…), kept in place so valid neighbours
    /// still reach the model.
    Invalid { index: usize, reason: String },
}

/// A `tools/call` result in our model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallOutcome {
    pub content: Vec<ContentItem>,
    pub structured_content: Option<serde_json::Value>,
    pub is_error: bool,
}

/// Role of a prompt message. MCP defines user and assistant; anything else is kept as text so
/// one odd message does not fail the prompt (R1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptMessageRole {
    User,
    Assistant,
    Other(String),
}

impl PromptMessageRole {
    pub fn label(&self) -> &str {
        match self {
            PromptMessageRole::User => "user",
            PromptMessageRole::Assistant => "assistant",
            PromptMessageRole::Other(s) => s,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    pub role: PromptMessageRole,
    pub content: ContentItem,
}

/// A `prompts/get` result in our model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptResult {
    pub description: Option<String>,
    pub messages: Vec<PromptMessage>,
}
