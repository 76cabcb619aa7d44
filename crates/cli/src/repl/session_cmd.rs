//! Saved sessions: `.session new|save NAME|load NAME|list` and `--session NAME` (REPL and
//! one-shot). A session file holds the conversation (system prompt, messages, token usage) and
//! the scope: role, agent name, the session's own MCP selection and an explicit model choice.
//!
//! Invariants:
//! - Files are written by `coyote_config::SessionStore` (atomic, 0600); a corrupt file is
//!   reported and never overwritten — a session whose load failed is not made current, so
//!   nothing is auto-saved over it.
//! - A named session is saved after every turn (and `.compact`), so a crash loses at most the
//!   turn in flight.
//! - Loading a session whose role file is gone keeps the conversation (with its saved system
//!   prompt) and warns; the REPL keeps running.

use coyote_config::{SessionFile, SessionStore, SessionStoreError};
use coyote_session::Conversation;

use super::Repl;
use super::commands::SessionCommand;
use crate::output::Table;
use crate::scope::saved::{save, scope_of};

impl Repl {
    fn store(&self) -> Option<SessionStore> {
        self.paths
            .as_ref()
            .map(|p| SessionStore::new(p.sessions_dir()))
    }

    /// `.session …`.
    pub(super) fn session_command(&mut self, command: &SessionCommand) {
        let Some(store) = self.store() else {
            self.screen
                .line("coyote: no configuration directory is known");
            return;
        };
        match command {
            SessionCommand::New => {
                let mut scope = self.scope.clone();
                scope.session_name = None;
                scope.session_servers = None;
                let system = scope.role.as_ref().map(|r| r.prompt.clone());
                if let Err(e) = self.apply_scope(scope) {
                    self.screen.line(&format!("coyote: {e}"));
                    return;
                }
                self.conversation = Conversation::new();
                self.conversation.system = system.filter(|s| !s.trim().is_empty());
                self.print("Started a new session (not saved until `.session save NAME`).\n");
            }
            SessionCommand::Save(name) => {
                match save(&store, name, &self.scope, &self.conversation) {
                    Ok(path) => {
                        self.scope.session_name = Some(name.clone());
                        self.print(&format!("Saved session '{name}' to {}.\n", path.display()));
                    }
                    Err(e) => self.screen.line(&format!("coyote: {e}")),
                }
            }
            SessionCommand::Load(name) => match self.load_session(name) {
                Ok(()) => self.print(&format!(
                    "Loaded session '{name}' ({} messages).\n",
                    self.conversation.messages.len()
                )),
                Err(e) => self.screen.line(&format!("coyote: {e}")),
            },
            SessionCommand::List => {
                let entries = store.list();
                if entries.is_empty() {
                    self.print(&format!(
                        "No saved sessions in {}; save one with `.session save NAME`.\n",
                        store.dir().display()
                    ));
                    return;
                }
                let current = self.scope.session_name.as_deref();
                let mut table = Table::new(vec!["session", "file"]);
                for entry in entries {
                    let name = if Some(entry.name.as_str()) == current {
                        format!("{} (current)", entry.name)
                    } else {
                        entry.name.clone()
                    };
                    table.row(vec![name, entry.path.display().to_string()]);
                }
                self.print(&table.render());
            }
        }
    }

    /// Makes session `name` current: its conversation and scope. A missing or corrupt file
    /// changes nothing.
    pub fn load_session(&mut self, name: &str) -> Result<(), String> {
        let (Some(store), Some(paths)) = (self.store(), self.paths.as_ref()) else {
            return Err("no configuration directory is known".to_owned());
        };
        let file: SessionFile<Conversation> = store.load(name).map_err(|e| e.to_string())?;
        let (scope, warnings) = scope_of(&file.meta, name, &paths.roles_dir());
        for warning in warnings {
            self.screen.line(&format!("coyote: warning: {warning}"));
        }
        // The saved agent runs again with its own session (agent_cmd.rs).
        let scope = self.restore_agent(scope);
        self.apply_scope(scope)?;
        self.conversation = file.conversation;
        Ok(())
    }

    /// `--session NAME` at start-up: load it, or start a new session of that name when no
    /// file exists yet. A corrupt file is reported and the REPL starts without a session.
    pub fn start_session(&mut self, name: &str) {
        let Some(store) = self.store() else { return };
        match store.load::<Conversation>(name) {
            Err(SessionStoreError::NotFound { .. }) => {
                self.scope.session_name = Some(name.to_owned());
            }
            Err(e) => self
                .screen
                .line(&format!("coyote: {e}; starting without a saved session")),
            Ok(_) => {
                if let Err(e) = self.load_session(name) {
                    self.screen.line(&format!("coyote: {e}"));
                }
            }
        }
    }

    /// Saves the current named session (after each turn); reports a failure.
    pub(super) fn autosave(&mut self) {
        let (Some(store), Some(name)) = (self.store(), self.scope.session_name.clone()) else {
            return;
        };
        if let Err(e) = save(&store, &name, &self.scope, &self.conversation) {
            self.screen.line(&format!("coyote: session not saved: {e}"));
        }
    }
}
