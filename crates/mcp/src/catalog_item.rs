//! The unified catalog entry (seed D1) and per-server feature flags (seed D7). Shared by the
//! catalog listing, search, describe and the meta-function gating.

use serde::{Deserialize, Serialize};

/// What a catalog entry is. Serialised in snake_case (`resource_template`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CatalogKind {
    Tool,
    Resource,
    ResourceTemplate,
    Prompt,
}

impl CatalogKind {
    pub const ALL: [CatalogKind; 4] = [
        CatalogKind::Tool,
        CatalogKind::Resource,
        CatalogKind::ResourceTemplate,
        CatalogKind::Prompt,
    ];

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
    pub kind: CatalogKind,
    pub id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Annotations as sent by the server (tool annotations, resource `audience`/`priority`…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<serde_json::Value>,
}

impl CatalogItem {
    /// The catalog key `"{kind}:{id}"` (D1): a tool and a resource may share a name.
    pub fn key(&self) -> String {
        format!("{}:{}", self.kind.as_str(), self.id)
    }
}

/// What a connected server offers, computed from its live handle (D7). `peer_info_missing`
/// means the handshake result was unavailable: invoke is then emitted anyway (fail-open).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct McpServerFeatures {
    pub name: String,
    pub tools: bool,
    pub resources: bool,
    pub prompts: bool,
    pub completions: bool,
    pub peer_info_missing: bool,
}
