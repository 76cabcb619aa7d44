//! A saved session's scope: what a session file records of the [`Scope`] (role, agent name,
//! the session's own MCP selection, an explicit model choice) and what it restores, plus
//! saving a conversation under a name. The REPL (`.session`, `--session`) and one-shot chat
//! (`--session`) save and load through these, so a file written by one loads in the other.
//!
//! Files are written by `coyote_config::SessionStore` (atomic, 0600).

use std::path::Path;

use coyote_config::{
    SessionFile, SessionFormat, SessionMeta, SessionStore, SessionStoreError, load_role,
};
use coyote_session::Conversation;

use super::{AgentLayer, Scope};

/// The metadata a session file records for `scope`.
pub fn meta_of(scope: &Scope) -> SessionMeta {
    SessionMeta {
        role: scope.role.as_ref().map(|r| r.name.clone()),
        agent: scope.agent.as_ref().map(|a| a.name.clone()),
        enabled_mcp_servers: scope.session_servers.as_ref().map(Into::into),
        model: scope.model_override.clone(),
    }
}

/// The scope a session file restores (its role loaded from `roles_dir`), plus warnings. The
/// agent is restored by name only; the agent wiring fills in its layer.
pub fn scope_of(meta: &SessionMeta, name: &str, roles_dir: &Path) -> (Scope, Vec<String>) {
    let mut warnings = Vec::new();
    let role = meta
        .role
        .as_deref()
        .and_then(|role| match load_role(roles_dir, role) {
            Ok(role) => Some(role),
            Err(e) => {
                warnings.push(format!(
                    "session `{name}` used role `{role}`, which does not load ({e}); continuing \
                     without it"
                ));
                None
            }
        });
    let scope = Scope {
        role,
        agent: meta.agent.as_ref().map(|a| AgentLayer {
            name: a.clone(),
            ..AgentLayer::default()
        }),
        session_name: Some(name.to_owned()),
        session_servers: meta.enabled_mcp_servers.clone().map(Into::into),
        model_override: meta.model.clone(),
    };
    (scope, warnings)
}

/// Saves `conversation` as session `name`.
pub fn save(
    store: &SessionStore,
    name: &str,
    scope: &Scope,
    conversation: &Conversation,
) -> Result<std::path::PathBuf, SessionStoreError> {
    let file = SessionFile::new(meta_of(scope), conversation.clone());
    store.save(name, &file, SessionFormat::Yaml)
}
