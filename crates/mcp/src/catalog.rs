//! The catalog of one server, as our types (the ground floor of the host): the items as
//! listed — [`ToolInfo`], [`ResourceInfo`], [`ResourceTemplateInfo`], [`PromptInfo`] and its
//! [`PromptArgumentInfo`] — the unified entry they become ([`CatalogItem`], keyed
//! `"{kind}:{id}"`) and the [`Catalog`] of a server. Shared by the listing, search,
//! describe, direct exposure and the CLI.
//!
//! Plain data: this module imports no other module of the crate (listing fills it, `convert`
//! builds the items from rmcp's).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a catalog entry is. Serialised in snake_case (`resource_template`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CatalogKind {
    /// A tool (`tools/list`).
    Tool,
    /// A resource (`resources/list`).
    Resource,
    /// A resource template (`resources/templates/list`).
    ResourceTemplate,
    /// A prompt (`prompts/list`).
    Prompt,
}

impl CatalogKind {
    /// Every kind, in the order catalogs list them.
    pub const ALL: [CatalogKind; 4] = [
        CatalogKind::Tool,
        CatalogKind::Resource,
        CatalogKind::ResourceTemplate,
        CatalogKind::Prompt,
    ];

    /// The kind's snake_case name, as serialised and as `parse` reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            CatalogKind::Tool => "tool",
            CatalogKind::Resource => "resource",
            CatalogKind::ResourceTemplate => "resource_template",
            CatalogKind::Prompt => "prompt",
        }
    }

    /// Parses `tool | resource | resource_template | prompt` (also `template`).
    pub fn parse(s: &str) -> Option<CatalogKind> {
        match s {
            "tool" => Some(CatalogKind::Tool),
            "resource" => Some(CatalogKind::Resource),
            "resource_template" | "template" => Some(CatalogKind::ResourceTemplate),
            "prompt" => Some(CatalogKind::Prompt),
            _ => None,
        }
    }
}

impl std::fmt::Display for CatalogKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One item of a server's unified catalog, keyed `"{kind}:{id}"` where `id` is the tool name,
/// resource URI, template `uriTemplate` or prompt name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogItem {
    /// What the item is.
    pub kind: CatalogKind,
    /// Its key within the kind: tool name, resource URI, template `uriTemplate` or prompt name.
    pub id: String,
    /// The item's `name` as the server lists it.
    pub name: String,
    /// `title`, or for a tool its `title` annotation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The resource URI or template, for resources and templates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// `mimeType` as listed, for resources and templates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The declared size in bytes, for resources that give one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Annotations as sent by the server (tool annotations, resource `audience`/`priority`…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

impl CatalogItem {
    /// The catalog key `"{kind}:{id}"`: a tool and a resource may share a name.
    pub fn key(&self) -> String {
        format!("{}:{}", self.kind.as_str(), self.id)
    }
}

/// A tool as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// The tool's name, as called.
    pub name: String,
    /// `title` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The `inputSchema` JSON Schema object.
    pub input_schema: Value,
    /// The `outputSchema` its structured results follow, if declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The `annotations` object as sent (hints such as `readOnlyHint`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// A resource as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceInfo {
    /// The URI `resources/read` takes.
    pub uri: String,
    /// The resource's `name`.
    pub name: String,
    /// `title` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `mimeType` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The declared size in bytes, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The `annotations` object as sent (audience, priority).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// A resource template as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateInfo {
    /// The RFC 6570 template, e.g. `file:///{path}`.
    pub uri_template: String,
    /// The template's `name`.
    pub name: String,
    /// `title` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `mimeType` of what it reads to, if declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The `annotations` object as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// A prompt as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptInfo {
    /// The prompt's name, as `prompts/get` takes it.
    pub name: String,
    /// `title` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes, in the listed order.
    pub arguments: Vec<PromptArgumentInfo>,
}

/// One argument of a prompt, as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptArgumentInfo {
    /// The argument's name.
    pub name: String,
    /// `title` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description` as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` needs it.
    pub required: bool,
}

/// A server's unified catalog; `warnings` name the kinds (or items) that could not be listed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    /// Every item that could be listed, tools first, then resources, templates and prompts.
    pub items: Vec<CatalogItem>,
    /// One line per kind (or item) that could not be listed, for the user.
    pub warnings: Vec<String>,
}

/// A tool's entry; its title falls back to the `title` annotation.
impl From<ToolInfo> for CatalogItem {
    fn from(t: ToolInfo) -> Self {
        let title = t.title.or_else(|| {
            t.annotations
                .as_ref()?
                .get("title")?
                .as_str()
                .map(str::to_owned)
        });
        CatalogItem {
            kind: CatalogKind::Tool,
            id: t.name.clone(),
            name: t.name,
            title,
            description: t.description,
            uri: None,
            mime_type: None,
            size: None,
            annotations: t.annotations,
        }
    }
}

impl From<ResourceInfo> for CatalogItem {
    fn from(r: ResourceInfo) -> Self {
        CatalogItem {
            kind: CatalogKind::Resource,
            id: r.uri.clone(),
            name: r.name,
            title: r.title,
            description: r.description,
            uri: Some(r.uri),
            mime_type: r.mime_type,
            size: r.size,
            annotations: r.annotations,
        }
    }
}

impl From<ResourceTemplateInfo> for CatalogItem {
    fn from(t: ResourceTemplateInfo) -> Self {
        CatalogItem {
            kind: CatalogKind::ResourceTemplate,
            id: t.uri_template.clone(),
            name: t.name,
            title: t.title,
            description: t.description,
            uri: Some(t.uri_template),
            mime_type: t.mime_type,
            size: None,
            annotations: t.annotations,
        }
    }
}

impl From<PromptInfo> for CatalogItem {
    fn from(p: PromptInfo) -> Self {
        CatalogItem {
            kind: CatalogKind::Prompt,
            id: p.name.clone(),
            name: p.name,
            title: p.title,
            description: p.description,
            uri: None,
            mime_type: None,
            size: None,
            annotations: None,
        }
    }
}
