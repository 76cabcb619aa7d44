//! The five model-facing meta-functions per MCP server — the ONLY place
//! that knows their prefixes. A name becomes behaviour exactly once, in [`MetaFunction::parse`]:
//! the leading prefix plus `_` decides the kind and the rest is the server name, so a server
//! named `a_mcp_read_b` is never mistaken for a read (`strip_prefix`, never `replace`). Names
//! that parse as no meta-function are rejected by the dispatcher — never a silent invoke.
//!
//! Declarations are gated by the server's live features: search and describe always,
//! invoke iff tools or the handshake result is missing (fail-open), read iff resources,
//! prompt iff prompts.
//!
//! Adaptive exposure ([`exposure`]): a server may instead be declared `direct` — each
//! tool as `<server>__<tool>` ([`direct`]) beside the gated read/prompt functions. The names a
//! declaration set generated are the only way back to `(server, tool)`: [`FunctionTarget::parse`]
//! looks them up before parsing meta prefixes, and the dispatcher runs a direct call through
//! the very invoke path `mcp_invoke_` takes.

pub mod actions;
mod annotations;
mod call;
mod callable;
mod declarations;
pub mod direct;
pub mod dispatch;
mod error;
pub mod exposure;
mod health;
mod outcome;
mod page_cache;
pub mod retrieve;
mod skills;
mod surface;

pub use annotations::ANNOTATION_MEMO_CAPACITY;
pub use callable::Callable;
pub use declarations::{META_GUIDE, declarations, declarations_for_all};
pub use direct::{DirectNames, DirectTool, MAX_FUNCTION_NAME_BYTES};
pub use dispatch::{DispatchBody, DispatchError, DispatchOutcome, MetaDispatcher};
pub use exposure::{
    BYTES_PER_TOKEN, DIRECT_MAX_TOKENS, DIRECT_MAX_TOOLS, EffectiveExposure, ExposurePolicies,
    ExposureReport, estimate_tokens,
};
pub use health::{HEALTH_MAX_TOKENS, HEALTH_REASON_MAX_BYTES, health_line};
pub use page_cache::{PAGE_CACHE_MAX_BYTES, PAGE_CACHE_TTL};
pub use retrieve::{RetrieveContext, Retrieved, Why};
pub use skills::{SKILLS_INDEX_MAX_BYTES, SKILLS_INDEX_URI};

use crate::server::McpServerFeatures;

/// Which meta-function. Exhaustive: adding a sixth means touching every `match` below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MetaKind {
    /// `mcp_invoke_<server>`: call a tool.
    Invoke,
    /// `mcp_search_<server>`: rank the catalog for a query.
    Search,
    /// `mcp_describe_<server>`: one item in full.
    Describe,
    /// `mcp_read_<server>`: read a resource, a template or a result handle.
    Read,
    /// `mcp_prompt_<server>`: get a prompt, flattened into text.
    Prompt,
}

impl MetaKind {
    /// Every kind, in declaration order (search first: it is how the model starts).
    pub const ALL: [MetaKind; 5] = [
        MetaKind::Search,
        MetaKind::Describe,
        MetaKind::Invoke,
        MetaKind::Read,
        MetaKind::Prompt,
    ];

    /// The name prefix without the trailing `_` (`mcp_invoke`, …). None is a prefix of another,
    /// so a leading-prefix match is unambiguous.
    pub const fn prefix(self) -> &'static str {
        match self {
            MetaKind::Invoke => "mcp_invoke",
            MetaKind::Search => "mcp_search",
            MetaKind::Describe => "mcp_describe",
            MetaKind::Read => "mcp_read",
            MetaKind::Prompt => "mcp_prompt",
        }
    }

    /// The function name for `server`: `{prefix}_{server}`.
    pub fn function_name(self, server: &str) -> String {
        format!("{}_{server}", self.prefix())
    }

    /// Gating by the server's live features: is this meta-function declared for a server with `features`?
    pub fn is_enabled_for(self, features: &McpServerFeatures) -> bool {
        match self {
            MetaKind::Search | MetaKind::Describe => true,
            MetaKind::Invoke => features.tools || features.peer_info_missing,
            MetaKind::Read => features.resources || features.skills,
            MetaKind::Prompt => features.prompts,
        }
    }
}

impl std::fmt::Display for MetaKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.prefix())
    }
}

/// A parsed meta-function name: which kind, on which server.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MetaFunction {
    /// Which meta-function.
    pub kind: MetaKind,
    /// The server it addresses.
    pub server: String,
}

impl MetaFunction {
    /// The meta-function `kind` of `server`.
    pub fn new(kind: MetaKind, server: impl Into<String>) -> Self {
        MetaFunction {
            kind,
            server: server.into(),
        }
    }

    /// Parses `{prefix}_{server}` by the leading prefix only. The server part must be non-empty.
    /// `mcp_search_a_mcp_read_b` → (Search, `a_mcp_read_b`); `mcp_bogus_x` → `None`.
    pub fn parse(name: &str) -> Option<MetaFunction> {
        MetaKind::ALL.into_iter().find_map(|kind| {
            let server = name.strip_prefix(kind.prefix())?.strip_prefix('_')?;
            (!server.is_empty()).then(|| MetaFunction::new(kind, server))
        })
    }

    /// The function name the model sees.
    pub fn name(&self) -> String {
        self.kind.function_name(&self.server)
    }
}

impl std::fmt::Display for MetaFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_{}", self.kind.prefix(), self.server)
    }
}

/// What a model-visible function name addresses: THE parser of called names. A direct name is
/// looked up in the table its declaration set was generated from ([`DirectNames`]); any other
/// name is parsed by its meta-function prefix. `None`: coyote declared no such function.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FunctionTarget {
    /// A meta-function.
    Meta(MetaFunction),
    /// A server's tool, declared directly.
    Direct(DirectTool),
}

impl FunctionTarget {
    /// What `name` addresses in a request whose direct declarations are `direct`.
    pub fn parse(name: &str, direct: &DirectNames) -> Option<FunctionTarget> {
        if let Some(tool) = direct.resolve(name) {
            return Some(FunctionTarget::Direct(tool.clone()));
        }
        MetaFunction::parse(name).map(FunctionTarget::Meta)
    }

    /// The server the function belongs to.
    pub fn server(&self) -> &str {
        match self {
            FunctionTarget::Meta(f) => &f.server,
            FunctionTarget::Direct(t) => &t.server,
        }
    }
}

/// Is `name` one of the five meta-functions of some server?
pub fn is_mcp_meta_function(name: &str) -> bool {
    MetaFunction::parse(name).is_some()
}

/// All five candidate names for `server` (ungated; filter by declarations where gating matters).
pub fn mcp_meta_function_names(server: &str) -> Vec<String> {
    MetaKind::ALL
        .iter()
        .map(|kind| kind.function_name(server))
        .collect()
}

/// The meta-function kinds declared for a server with `features`, in declaration order.
pub fn enabled_kinds(features: &McpServerFeatures) -> Vec<MetaKind> {
    MetaKind::ALL
        .into_iter()
        .filter(|kind| kind.is_enabled_for(features))
        .collect()
}

#[cfg(test)]
#[path = "meta_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "meta/docs_tests.rs"]
mod docs_tests;
