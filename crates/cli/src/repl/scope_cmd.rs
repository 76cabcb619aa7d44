//! The REPL side of scoping: `.role`, `.mcp enable|disable`, `.list roles`, `.compact`, the
//! scope lines of `.info`, and applying a changed [`Scope`] to the session (model, system
//! prompt, server selection) in one place.
//!
//! Invariants: every change of role, agent or session layer goes through
//! [`Repl::apply_scope`], which updates the session's selection and the shared selection read by
//! `.list` and completion together; an error (bad role file, unknown model) is printed and the
//! previous scope stays in force — the REPL keeps running.

use coyote_config::{Toggle, list_roles, load_role};
use coyote_session::{CompactTrigger, TurnContext};

use super::Repl;
use super::render::TurnRenderer;
use crate::output::Table;
use crate::scope::{Scope, as_server_list, choose_model, describe_selection, server_selection};

impl Repl {
    /// Makes `scope` current: model (when config.yaml is loaded) and selection. On error
    /// nothing changes.
    pub fn apply_scope(&mut self, scope: Scope) -> Result<(), String> {
        if let Some(config) = self.app_config.as_ref() {
            let choice = choose_model(config, &scope)?;
            self.session.set_model(choice.provider, choice.settings);
            self.session.set_context(choice.context);
        }
        self.scope = scope;
        self.apply_selection();
        Ok(())
    }

    /// Pushes the scope's resolved selection to the session and the shared filter.
    pub(super) fn apply_selection(&mut self) {
        let resolved = self.scope.selection(self.app_config.as_ref());
        let selection = server_selection(&resolved.selection);
        self.session.set_servers(selection.clone());
        *self.selection.write().unwrap_or_else(|p| p.into_inner()) = selection;
        let known = self.server_names();
        let unknown = resolved.selection.unknown_names(&known);
        if !unknown.is_empty() && !known.is_empty() {
            self.screen.line(&format!(
                "coyote: warning: `enabled_mcp_servers` ({}) names {}, which no mcp.json \
                 defines; ignored (configured: {})",
                crate::scope::source_label(resolved.source),
                unknown.join(", "),
                known.join(", ")
            ));
        }
    }

    /// Every server of the runtime (configured ones, whatever their state).
    fn server_names(&self) -> Vec<String> {
        self.runtime()
            .statuses()
            .into_iter()
            .map(|s| s.name)
            .collect()
    }

    /// `.role NAME` / `.role`: prints what changed or why nothing did.
    pub(crate) fn role_command(&mut self, name: Option<&str>) {
        match self.change_role(name) {
            Ok(message) => self.print(&message),
            Err(error) => self.screen.line(&format!("coyote: {error}")),
        }
    }

    /// Switches to role `name` (or leaves the role); on error nothing changes.
    pub(super) fn change_role(&mut self, name: Option<&str>) -> Result<String, String> {
        let mut scope = self.scope.clone();
        let Some(name) = name else {
            let Some(old) = scope.role.take() else {
                return Ok("No role is active.\n".to_owned());
            };
            self.apply_scope(scope)?;
            if self.conversation.system.as_deref() == Some(old.prompt.as_str()) {
                self.conversation.system = None;
            }
            return Ok(format!("Left role '{}'.\n", old.name));
        };
        let paths = self
            .paths
            .as_ref()
            .ok_or("no configuration directory is known")?;
        let role = load_role(&paths.roles_dir(), name).map_err(|e| e.to_string())?;
        for warning in &role.warnings {
            self.screen.line(&format!("coyote: warning: {warning}"));
        }
        let prompt = role.prompt.clone();
        let role_name = role.name.clone();
        scope.role = Some(role);
        self.apply_scope(scope)?;
        self.conversation.system = Some(prompt).filter(|p| !p.trim().is_empty());
        Ok(format!(
            "Role '{role_name}' (model {}, MCP servers: {}).\n",
            self.session.model_label(),
            describe_selection(&self.scope.selection(self.app_config.as_ref()))
        ))
    }

    /// `.mcp enable NAME` / `.mcp disable NAME`: the session layer becomes the current
    /// selection with NAME toggled (aliases expand; `all` works).
    pub(super) fn mcp_toggle(&mut self, toggle: &Toggle) {
        let known = self.server_names();
        let empty = std::collections::BTreeMap::new();
        let mapping = self
            .app_config
            .as_ref()
            .map_or(&empty, |c| &c.mapping_mcp_servers);
        let name = match toggle {
            Toggle::Enable(n) | Toggle::Disable(n) => n,
        };
        let is_known = known.contains(name)
            || mapping.contains_key(name)
            || name == coyote_config::ALL_SERVERS;
        if !is_known {
            self.screen.line(&format!(
                "coyote: unknown MCP server '{name}'; configured: {}",
                known.join(", ")
            ));
            return;
        }
        let current = self.scope.selection(self.app_config.as_ref()).selection;
        let next = current.toggled(toggle, &known, mapping);
        self.scope.session_servers = Some(as_server_list(&next));
        self.apply_selection();
        self.print(&format!(
            "MCP servers for this session: {}\n",
            describe_selection(&self.scope.selection(self.app_config.as_ref()))
        ));
    }

    /// `.list roles`.
    pub(super) fn list_roles(&self) -> String {
        let Some(paths) = self.paths.as_ref() else {
            return "No configuration directory is known.\n".to_owned();
        };
        let dir = paths.roles_dir();
        let listing = list_roles(&dir);
        let mut out = String::new();
        if listing.items.is_empty() && listing.errors.is_empty() {
            return format!(
                "No roles in {}; create NAME.md there (see `coyote help agents`).\n",
                dir.display()
            );
        }
        let current = self.scope.role.as_ref().map(|r| r.name.as_str());
        let mut table = Table::new(vec!["role", "model", "mcp servers", "description"]);
        for role in &listing.items {
            let mark = if Some(role.name.as_str()) == current {
                format!("{} (active)", role.name)
            } else {
                role.name.clone()
            };
            let servers = match &role.enabled_mcp_servers {
                None => "-".to_owned(),
                Some(coyote_config::ServerList::All) => "all".to_owned(),
                Some(coyote_config::ServerList::Names(n)) if n.is_empty() => "none".to_owned(),
                Some(coyote_config::ServerList::Names(n)) => n.join(", "),
            };
            table.row(vec![
                mark,
                role.model.clone().unwrap_or_else(|| "-".to_owned()),
                servers,
                role.description.clone().unwrap_or_default(),
            ]);
        }
        out.push_str(&table.render());
        for error in &listing.errors {
            out.push_str(&format!("error: {error}\n"));
        }
        out
    }

    /// The scope lines of `.info`.
    pub(super) fn scope_info(&self) -> String {
        let role = self.scope.role.as_ref().map_or("none".to_owned(), |r| {
            format!("{} ({})", r.name, r.file.display())
        });
        let agent = self
            .scope
            .agent
            .as_ref()
            .map_or("none".to_owned(), |a| a.name.clone());
        let session = self
            .scope
            .session_name
            .clone()
            .unwrap_or_else(|| "none (not saved)".to_owned());
        let usage = self.session.context_usage(&self.conversation);
        let policy = self.session.context();
        format!(
            "role             {role}\n\
             agent            {agent}\n\
             session          {session}\n\
             mcp selection    {}\n\
             context          ~{} of {} tokens ({} %), compacts at {} %\n",
            describe_selection(&self.scope.selection(self.app_config.as_ref())),
            usage.used,
            usage.window,
            usage.percent(),
            policy.threshold_percent,
        )
    }

    /// `.compact`.
    pub(super) fn compact_command(&mut self) {
        let renderer = TurnRenderer::new(self.screen.clone());
        let session = &self.session;
        let conversation = &mut self.conversation;
        let approver = &self.questions;
        let result = self.runtime_handle.block_on(async {
            let ctx = TurnContext {
                events: &renderer,
                approver,
                cancel: coyote_session::CancellationToken::new(),
            };
            session
                .compact(conversation, CompactTrigger::OnDemand, &ctx)
                .await
        });
        self.screen.finish();
        if let Err(e) = result {
            self.screen.line(&format!("coyote: {e}"));
        }
        self.autosave();
    }
}

#[cfg(test)]
#[path = "scope_tests.rs"]
mod tests;
