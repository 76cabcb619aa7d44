//! One-shot chat with `-r/--role` and `--session`: the same [`Scope`] derivation as the REPL
//! (`scope/`), so the model, the system prompt and the MCP selection cannot differ
//! between the two. Problems with a role or session file are usage errors (exit 2) naming the
//! file, the key and the fix; a corrupt session file is never overwritten.

use coyote_config::{
    AppConfig, ConfigPaths, SessionFile, SessionStore, SessionStoreError, load_role,
};
use coyote_protocol::McpServerSpec;
use coyote_session::{Conversation, ServerSelection};

use crate::args::ChatArgs;
use crate::exit::{CliError, CliResult};
use crate::scope::saved::{save, scope_of};
use crate::scope::{Scope, server_selection, source_label};

/// The scope and conversation a one-shot turn starts from.
pub struct Prepared {
    pub scope: Scope,
    pub conversation: Conversation,
    store: SessionStore,
}

/// Loads `--session` (a missing file starts it) and `-r`; `-m` wins over both.
pub fn prepare(paths: &ConfigPaths, args: &ChatArgs) -> CliResult<Prepared> {
    let store = SessionStore::new(paths.sessions_dir());
    let (mut scope, mut conversation) = match args.scope.session.as_deref() {
        None => (Scope::default(), Conversation::new()),
        Some(name) => match store.load::<Conversation>(name) {
            Ok(SessionFile {
                meta, conversation, ..
            }) => {
                let (scope, warnings) = scope_of(&meta, name, &paths.roles_dir());
                for warning in warnings {
                    crate::term::warning_line(&warning.to_string());
                }
                (scope, conversation)
            }
            Err(SessionStoreError::NotFound { .. }) => (
                Scope {
                    session_name: Some(name.to_owned()),
                    ..Scope::default()
                },
                Conversation::new(),
            ),
            Err(e) => return Err(CliError::usage(e.to_string())),
        },
    };
    if let Some(name) = args.scope.role.as_deref() {
        let role =
            load_role(&paths.roles_dir(), name).map_err(|e| CliError::usage(e.to_string()))?;
        for warning in &role.warnings {
            crate::term::warning_line(&warning.to_string());
        }
        conversation.system = Some(role.prompt.clone()).filter(|p| !p.trim().is_empty());
        scope.role = Some(role);
    }
    if args.model.is_some() {
        scope.model_override = args.model.clone();
    }
    Ok(Prepared {
        scope,
        conversation,
        store,
    })
}

/// The servers to start (only the selected ones) and the session's selection. Names that no
/// mcp.json defines are warned about.
pub fn selected_specs(
    app: &AppConfig,
    scope: &Scope,
    servers: Vec<McpServerSpec>,
) -> (Vec<McpServerSpec>, ServerSelection) {
    let resolved = scope.selection(Some(app));
    let known: Vec<String> = servers.iter().map(|s| s.name.clone()).collect();
    for name in resolved.selection.unknown_names(&known) {
        crate::term::warning_line(&format!(
            "`enabled_mcp_servers` ({}) names \"{name}\", which no mcp.json defines; ignored",
            source_label(resolved.source)
        ));
    }
    let specs = resolved.selection.select(&servers, |s| s.name.as_str());
    (specs, server_selection(&resolved.selection))
}

impl Prepared {
    /// Saves the conversation back into `--session NAME` (no-op without a session).
    pub fn save(&self) -> CliResult {
        let Some(name) = self.scope.session_name.as_deref() else {
            return Ok(());
        };
        save(&self.store, name, &self.scope, &self.conversation)
            .map(|_| ())
            .map_err(|e| CliError::failure(format!("session not saved: {e}")))
    }
}
