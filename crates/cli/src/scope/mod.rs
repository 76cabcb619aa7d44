//! Choosing the model and the servers, for one-shot chat and the REPL alike. What scopes a
//! conversation: the role, the agent layer, the saved session's own MCP selection and the
//! model the user chose — and the ONE derivation of what they mean for the turn loop: the
//! server selection (through `coyote_config::resolve_selection`, the single helper shared by
//! request building, `.list` and `.prompt` completion) and the model settings.
//!
//! Invariants:
//! - Selection precedence is config < role < agent < session (most specific wins, lists are
//!   not merged); aliases are expanded by the config helper only.
//! - Model precedence: the user's explicit choice (`-m`, `.model`) > agent > role > config.
//! - One-shot chat and the REPL both derive from a [`Scope`] with these functions, so they
//!   cannot disagree; a saved session records and restores its scope through [`saved`].

pub mod saved;

use std::sync::{Arc, RwLock};

use coyote_config::{
    AppConfig, ResolvedSelection, Role, Selection, SelectionLayers, SelectionSource, ServerList,
    resolve_selection,
};
use coyote_llm::Provider;
use coyote_session::{ContextPolicy, ModelSettings, ServerSelection};

/// The agent's part of the scope (set by the agent wiring, `.agent NAME` / `-a NAME`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgentLayer {
    pub name: String,
    pub model: Option<String>,
    pub temperature: Option<f64>,
    pub enabled_mcp_servers: Option<ServerList>,
}

/// Everything that scopes the current conversation besides config.yaml.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scope {
    pub role: Option<Role>,
    pub agent: Option<AgentLayer>,
    /// The saved session this conversation belongs to (`--session`, `.session save|load`).
    pub session_name: Option<String>,
    /// The session's own `enabled_mcp_servers` (`.mcp enable|disable`, a loaded session).
    pub session_servers: Option<ServerList>,
    /// `-m` or `.model`: wins over agent and role models.
    pub model_override: Option<String>,
}

/// The selection shared by the session, `.list` and completion (read at each use).
pub type SharedSelection = Arc<RwLock<ServerSelection>>;

/// A model ready for the session.
pub struct ModelChoice {
    pub provider: Arc<dyn Provider>,
    pub settings: ModelSettings,
    pub context: ContextPolicy,
    /// `client:model`, for messages.
    pub id: String,
    /// The model takes images (`supports_images`, or its provider's default).
    pub supports_images: bool,
}

impl Scope {
    /// The four `enabled_mcp_servers` layers.
    pub fn layers(&self, config: Option<&AppConfig>) -> SelectionLayers {
        SelectionLayers {
            config: config.and_then(|c| c.enabled_mcp_servers.clone()),
            role: self
                .role
                .as_ref()
                .and_then(|r| r.enabled_mcp_servers.clone()),
            agent: self
                .agent
                .as_ref()
                .and_then(|a| a.enabled_mcp_servers.clone()),
            session: self.session_servers.clone(),
        }
    }

    /// The selection in force and the layer that decided it.
    pub fn selection(&self, config: Option<&AppConfig>) -> ResolvedSelection {
        let empty = std::collections::BTreeMap::new();
        let mapping = config.map_or(&empty, |c| &c.mapping_mcp_servers);
        resolve_selection(&self.layers(config), mapping)
    }

    /// The model to use: explicit choice > agent > role > config.yaml.
    pub fn requested_model(&self) -> Option<&str> {
        self.model_override
            .as_deref()
            .or_else(|| self.agent.as_ref().and_then(|a| a.model.as_deref()))
            .or_else(|| self.role.as_ref().and_then(|r| r.model.as_deref()))
    }

    /// The temperature: agent > role > config.yaml.
    pub fn temperature(&self, config: &AppConfig) -> Option<f64> {
        self.agent
            .as_ref()
            .and_then(|a| a.temperature)
            .or_else(|| self.role.as_ref().and_then(|r| r.temperature))
            .or(config.temperature)
    }
}

/// The session's form of a resolved selection.
pub fn server_selection(selection: &Selection) -> ServerSelection {
    match selection {
        Selection::All => ServerSelection::All,
        Selection::Only(names) => ServerSelection::Only(names.clone()),
    }
}

/// A resolved selection written back as a session layer (after `.mcp enable|disable`).
pub fn as_server_list(selection: &Selection) -> ServerList {
    match selection {
        Selection::All => ServerList::All,
        Selection::Only(names) => ServerList::Names(names.clone()),
    }
}

/// Builds the provider and settings for the scope's model.
pub fn choose_model(config: &AppConfig, scope: &Scope) -> Result<ModelChoice, String> {
    let resolved = config
        .resolve_model(scope.requested_model())
        .map_err(|e| e.to_string())?;
    let provider =
        coyote_llm::build_provider(resolved.provider.clone()).map_err(|e| e.to_string())?;
    let settings = ModelSettings {
        name: resolved.model.name.clone(),
        max_tokens: resolved.model.max_tokens,
        temperature: scope.temperature(config),
    };
    let mut context = ContextPolicy::for_model(
        &resolved.model.name,
        resolved.provider.context_window(&resolved.model),
    );
    context.threshold_percent = config.compact_threshold;
    Ok(ModelChoice {
        provider,
        context,
        settings,
        id: resolved.id(),
        supports_images: resolved.provider.supports_images(&resolved.model),
    })
}

/// Where a selection came from, for messages.
pub fn source_label(source: SelectionSource) -> &'static str {
    match source {
        SelectionSource::Session => "set in this session",
        SelectionSource::Agent => "from the agent",
        SelectionSource::Role => "from the role",
        SelectionSource::Config => "from config.yaml",
        SelectionSource::Default => "default",
    }
}

/// One line for `.info`: which servers are selected and by which layer.
pub fn describe_selection(resolved: &ResolvedSelection) -> String {
    let what = match &resolved.selection {
        Selection::All => "all servers".to_owned(),
        Selection::Only(names) if names.is_empty() => "none".to_owned(),
        Selection::Only(names) => names.join(", "),
    };
    format!("{what} ({})", source_label(resolved.source))
}
