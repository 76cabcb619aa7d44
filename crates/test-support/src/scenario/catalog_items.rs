//! The rest of a scenario's catalog: resources and what reading one returns, resource
//! templates, prompts with their arguments and messages, and the completion values of prompt
//! and template arguments.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
