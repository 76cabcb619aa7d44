//! MCP server selection: the ONE place that turns `enabled_mcp_servers` settings into the set
//! of servers a conversation may use.
//!
//! Invariants:
//! - Precedence is session > agent > role > config: the most specific layer that sets
//!   `enabled_mcp_servers` wins outright (lists are not merged). No layer set = every server.
//! - `mapping_mcp_servers` aliases are expanded wherever a list is accepted, by this helper
//!   only; an alias that names another alias is expanded too (cycles are cut, not looped).
//! - Selection works on server *names*. It never looks at function names, so a server whose
//!   features emit no `mcp_invoke_*` (resources-only, prompts-only) is selected like any other;
//!   gating what it offers is the job of its live features (`McpServerFeatures`). The
//!   feature filter is generic ([`Selection::select`]) because this crate does not depend on
//!   coyote-mcp: callers pass `runtime.server_features()` and `|f| &f.name`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::app_config::ServerList;

/// The name that selects every server.
pub const ALL_SERVERS: &str = "all";

/// The `enabled_mcp_servers` setting of each layer; `None` = the layer does not set it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SelectionLayers {
    /// config.yaml's setting.
    pub config: Option<ServerList>,
    /// The active role's setting.
    pub role: Option<ServerList>,
    /// The active agent's setting.
    pub agent: Option<ServerList>,
    /// The session's own setting (`.mcp enable/disable`, saved with it).
    pub session: Option<ServerList>,
}

/// Which layer decided the selection (for `.info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectionSource {
    /// The session set it.
    Session,
    /// The agent set it.
    Agent,
    /// The role set it.
    Role,
    /// config.yaml set it.
    Config,
    /// No layer sets it: every server is enabled.
    Default,
}

/// The servers a conversation may use, aliases expanded.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// Every server of the runtime.
    #[default]
    All,
    /// Exactly these names, in first-mention order; empty = none.
    Only(Vec<String>),
}

/// A selection and the layer it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedSelection {
    /// The servers selected.
    pub selection: Selection,
    /// The layer that decided.
    pub source: SelectionSource,
}

/// `.mcp enable NAME` / `.mcp disable NAME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Toggle {
    /// Enable this server (or alias).
    Enable(String),
    /// Disable this server (or alias).
    Disable(String),
}

/// Resolves the layers (most specific wins) and expands aliases.
pub fn resolve_selection(
    layers: &SelectionLayers,
    mapping: &BTreeMap<String, Vec<String>>,
) -> ResolvedSelection {
    let ordered = [
        (&layers.session, SelectionSource::Session),
        (&layers.agent, SelectionSource::Agent),
        (&layers.role, SelectionSource::Role),
        (&layers.config, SelectionSource::Config),
    ];
    for (layer, source) in ordered {
        if let Some(list) = layer {
            return ResolvedSelection {
                selection: expand_server_list(list, mapping),
                source,
            };
        }
    }
    ResolvedSelection {
        selection: Selection::All,
        source: SelectionSource::Default,
    }
}

/// Expands one list: `all` anywhere in it selects every server; aliases become their members.
pub fn expand_server_list(list: &ServerList, mapping: &BTreeMap<String, Vec<String>>) -> Selection {
    let names = match list {
        ServerList::All => return Selection::All,
        ServerList::Names(names) => names,
    };
    let mut out = Vec::new();
    for name in names {
        if expand_name(name, mapping, &mut Vec::new(), &mut out) {
            return Selection::All;
        }
    }
    Selection::Only(out)
}

/// Pushes `name`'s members into `out`; returns `true` when it stands for `all`.
fn expand_name(
    name: &str,
    mapping: &BTreeMap<String, Vec<String>>,
    seen: &mut Vec<String>,
    out: &mut Vec<String>,
) -> bool {
    if name == ALL_SERVERS {
        return true;
    }
    match mapping.get(name) {
        Some(members) if !seen.iter().any(|s| s == name) => {
            seen.push(name.to_owned());
            members
                .iter()
                .any(|member| expand_name(member, mapping, seen, out))
        }
        _ => {
            if !out.iter().any(|o| o == name) {
                out.push(name.to_owned());
            }
            false
        }
    }
}

impl Selection {
    /// Whether `server` is selected.
    pub fn includes(&self, server: &str) -> bool {
        match self {
            Selection::All => true,
            Selection::Only(names) => names.iter().any(|n| n == server),
        }
    }

    /// The selected names among `available`, in `available`'s order.
    pub fn select_names(&self, available: &[String]) -> Vec<String> {
        available
            .iter()
            .filter(|n| self.includes(n))
            .cloned()
            .collect()
    }

    /// The selected items (e.g. `McpServerFeatures` with `|f| &f.name`), in input order. The
    /// items are kept whole: what a server offers is decided by its features, never here.
    pub fn select<T: Clone>(&self, items: &[T], name_of: impl Fn(&T) -> &str) -> Vec<T> {
        items
            .iter()
            .filter(|item| self.includes(name_of(item)))
            .cloned()
            .collect()
    }

    /// Selected names that are not among `available` (typos, servers not configured).
    pub fn unknown_names(&self, available: &[String]) -> Vec<String> {
        match self {
            Selection::All => Vec::new(),
            Selection::Only(names) => names
                .iter()
                .filter(|n| !available.contains(n))
                .cloned()
                .collect(),
        }
    }

    /// The selection after `.mcp enable|disable NAME`; `available` resolves `All` when a
    /// server is disabled out of it. Aliases are expanded like everywhere else.
    pub fn toggled(
        &self,
        toggle: &Toggle,
        available: &[String],
        mapping: &BTreeMap<String, Vec<String>>,
    ) -> Selection {
        let (name, enable) = match toggle {
            Toggle::Enable(name) => (name, true),
            Toggle::Disable(name) => (name, false),
        };
        let targets = match expand_server_list(&ServerList::Names(vec![name.clone()]), mapping) {
            Selection::All if enable => return Selection::All,
            Selection::All => return Selection::Only(Vec::new()),
            Selection::Only(targets) => targets,
        };
        let mut current = match self {
            Selection::All if enable => return Selection::All,
            Selection::All => available.to_vec(),
            Selection::Only(names) => names.clone(),
        };
        if enable {
            for t in targets {
                if !current.contains(&t) {
                    current.push(t);
                }
            }
        } else {
            current.retain(|n| !targets.contains(n));
        }
        Selection::Only(current)
    }
}

/// `enabled_mcp_servers` as written in a YAML/JSON file: `all`, `a,b`, `[a, b]`, `[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ServerListValue {
    /// A string: `all`, or names separated by commas.
    Text(String),
    /// A list of names.
    List(Vec<String>),
}

impl From<&ServerList> for ServerListValue {
    fn from(list: &ServerList) -> Self {
        match list {
            ServerList::All => ServerListValue::Text(ALL_SERVERS.to_owned()),
            ServerList::Names(names) => ServerListValue::List(names.clone()),
        }
    }
}

impl From<ServerListValue> for ServerList {
    fn from(value: ServerListValue) -> Self {
        match value {
            ServerListValue::Text(t) if t.trim() == ALL_SERVERS => ServerList::All,
            ServerListValue::Text(t) => ServerList::Names(
                t.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ),
            ServerListValue::List(names) => ServerList::Names(names),
        }
    }
}

#[cfg(test)]
#[path = "selection_tests.rs"]
mod tests;
