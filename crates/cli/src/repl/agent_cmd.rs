//! The REPL side of agents: `.agent NAME` (and `-a NAME` at start), `.agent` to leave, and
//! `.list agents`. Starting an agent swaps in its own session (model, instructions as the
//! system prompt, a runtime with its own servers from the factory plus the app servers,
//! delegates) and conversation; leaving swaps the previous ones back and releases the agent's
//! servers (a connection no other agent uses is closed).
//!
//! Invariants:
//! - A bad agent file, a missing variable or an unknown model prints one error naming the
//!   file, the key and the fix; the previous session stays in force (the REPL keeps running).
//! - The agent layer of the scope always includes the agent's own servers, so a selection from
//!   config.yaml or a role never hides them; app servers follow the usual precedence.
//! - Missing variables are asked (inquire) on a terminal; without one the error says how to
//!   pass them (`--var NAME=VALUE` at start, or a `default:`).

use std::collections::BTreeMap;
use std::io::IsTerminal;

use coyote_config::{Agent, Selection, ServerList, check_delegates};
use coyote_mcp::AgentRuntime;
use coyote_session::{Conversation, Session};

use super::Repl;
use crate::agent::{AgentHost, AgentStart, AppServers, HostParts};
use crate::output::Table;
use crate::scope::{AgentLayer, Scope, describe_selection};

/// The REPL's agent state: the host (built on first use) and the running agent.
#[derive(Default)]
pub struct AgentSlot {
    host: Option<AgentHost>,
    active: Option<ActiveAgent>,
}

/// A running agent and what to return to when it is left.
struct ActiveAgent {
    name: String,
    runtime: AgentRuntime,
    saved_session: Session,
    saved_conversation: Conversation,
}

impl AgentSlot {
    /// The running agent's name.
    pub fn active_name(&self) -> Option<&str> {
        self.active.as_ref().map(|a| a.name.as_str())
    }
}

impl Repl {
    fn agent_host(&mut self) -> Result<AgentHost, String> {
        if let Some(host) = &self.agents.host {
            return Ok(host.clone());
        }
        let paths = self
            .paths
            .as_ref()
            .ok_or("no configuration directory is known")?;
        let config = self
            .app_config
            .clone()
            .ok_or("no config.yaml is loaded, so no agent model can be chosen")?;
        let host = AgentHost::new(HostParts {
            agents_dir: paths.agents_dir(),
            config,
            app: self.app_runtime().clone(),
            app_specs: self.specs.clone(),
            // The agent's own servers get the same client features as the app's.
            factory_options: self.app_runtime().options(),
            spill: self.spill.clone(),
            stream: self.session.options().stream,
        });
        self.agents.host = Some(host.clone());
        Ok(host)
    }

    /// The app's runtime (the saved one while an agent runs).
    fn app_runtime(&self) -> &coyote_mcp::McpRuntime {
        match &self.agents.active {
            Some(active) => active.saved_session.runtime(),
            None => self.session.runtime(),
        }
    }

    /// `.agent NAME` / `.agent`.
    pub(super) fn agent_command(&mut self, name: Option<&str>) {
        match name {
            Some(name) => self.start_agent(name, &BTreeMap::new()),
            None => match self.leave_agent() {
                Some(name) => self.print(&format!("Left agent '{name}'.\n")),
                None => self.print("No agent is active.\n"),
            },
        }
    }

    /// Starts agent `name` (`values` from `--var`; missing ones are asked). On error the
    /// current session stays.
    pub fn start_agent(&mut self, name: &str, values: &BTreeMap<String, String>) {
        if let Err(error) = self.try_start_agent(name, values) {
            self.screen.line(&format!("coyote: {error}"));
        }
    }

    pub(super) fn try_start_agent(
        &mut self,
        name: &str,
        given: &BTreeMap<String, String>,
    ) -> Result<(), String> {
        let host = self.agent_host()?;
        let agent = host.load(name)?;
        for warning in &agent.warnings {
            self.screen.line(&format!("coyote: warning: {warning}"));
        }
        let values = self.ask_variables(&agent, given)?;
        crate::agent::instructions(&agent, &values)?;
        self.leave_agent();
        let model_override = self.scope.model_override.clone();
        let started = self.runtime_handle.block_on(host.start(AgentStart {
            agent: agent.clone(),
            values: &values,
            depth: 0,
            model_override: model_override.as_deref(),
            app_servers: AppServers::AllReady,
        }))?;
        for warning in &started.warnings {
            self.screen.line(&format!("coyote: warning: {warning}"));
        }
        let saved_session = std::mem::replace(&mut self.session, started.session);
        let saved_conversation = std::mem::replace(&mut self.conversation, started.conversation);
        let mut scope = self.scope.clone();
        scope.agent = None;
        let below = scope.selection(self.app_config.as_ref()).selection;
        scope.agent = Some(AgentLayer {
            name: agent.name.clone(),
            model: agent.model.clone(),
            temperature: agent.temperature,
            enabled_mcp_servers: agent_layer(&agent, &below),
        });
        if let Err(error) = self.apply_scope(scope) {
            // Back to where we were; the agent's servers are released.
            let started_session = std::mem::replace(&mut self.session, saved_session);
            self.conversation = saved_conversation;
            drop(started_session);
            self.runtime_handle.block_on(started.runtime.close());
            return Err(error);
        }
        self.agents.active = Some(ActiveAgent {
            name: agent.name.clone(),
            runtime: started.runtime,
            saved_session,
            saved_conversation,
        });
        let delegates = if agent.delegates.is_empty() {
            String::new()
        } else {
            format!(", delegates: {}", agent.delegates.join(", "))
        };
        self.print(&format!(
            "Agent '{}' (model {}, MCP servers: {}{delegates}). `.agent` leaves it.\n",
            agent.name,
            self.session.model_label(),
            describe_selection(&self.scope.selection(self.app_config.as_ref())),
        ));
        Ok(())
    }

    /// Leaves the running agent, if any; returns its name.
    pub(super) fn leave_agent(&mut self) -> Option<String> {
        let active = self.agents.active.take()?;
        self.session = active.saved_session;
        self.conversation = active.saved_conversation;
        let mut scope = self.scope.clone();
        scope.agent = None;
        if let Err(error) = self.apply_scope(scope) {
            self.screen.line(&format!("coyote: {error}"));
        }
        self.runtime_handle.block_on(active.runtime.close());
        Some(active.name)
    }

    /// Makes the agent of a loaded session (`scope.agent`, by name) the running one: leaves
    /// the current agent if it differs, starts the saved one (its variables from defaults or
    /// asked), and returns `scope` with the running agent's layer. An agent that does not start
    /// is reported and left out.
    pub(super) fn restore_agent(&mut self, mut scope: Scope) -> Scope {
        let wanted = scope.agent.as_ref().map(|a| a.name.clone());
        if wanted.as_deref() != self.agents.active_name() {
            self.leave_agent();
            if let Some(name) = wanted.as_deref() {
                self.start_agent(name, &BTreeMap::new());
            }
        }
        scope.agent = self.scope.agent.clone();
        scope
    }

    /// Values for the agent's variables without one: given, else asked on a terminal.
    fn ask_variables(
        &self,
        agent: &Agent,
        given: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, String> {
        let mut values = given.clone();
        let missing: Vec<_> = agent
            .missing_variables(given)
            .into_iter()
            .cloned()
            .collect();
        if missing.is_empty() {
            return Ok(values);
        }
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            // The error names each variable and how to pass it.
            return crate::agent::instructions(agent, &values).map(|_| values);
        }
        for variable in missing {
            let label = format!("{} (agent {})", variable.name, agent.name);
            let mut prompt = inquire::Text::new(&label).with_validator(|t: &str| {
                Ok(if t.trim().is_empty() {
                    inquire::validator::Validation::Invalid("a value is required".into())
                } else {
                    inquire::validator::Validation::Valid
                })
            });
            if let Some(help) = variable.description.as_deref() {
                prompt = prompt.with_help_message(help);
            }
            match prompt.prompt() {
                Ok(value) => {
                    values.insert(variable.name.clone(), value);
                }
                Err(_) => {
                    return Err(format!(
                        "agent `{}` not started: no value for `{}`",
                        agent.name, variable.name
                    ));
                }
            }
        }
        Ok(values)
    }

    /// `.list agents`.
    pub(super) fn list_agents(&mut self) -> String {
        let host = match self.agent_host() {
            Ok(host) => host,
            Err(error) => return format!("{error}\n"),
        };
        let listing = host.list();
        if listing.items.is_empty() && listing.errors.is_empty() {
            return format!(
                "No agents in {}; create NAME/config.yaml there (see `coyote help agents`).\n",
                host.agents_dir().display()
            );
        }
        let active = self.agents.active_name().map(str::to_owned);
        let mut table = Table::new(vec![
            "agent",
            "model",
            "own servers",
            "delegates",
            "description",
        ]);
        for agent in &listing.items {
            let name = if active.as_deref() == Some(agent.name.as_str()) {
                format!("{} (active)", agent.name)
            } else {
                agent.name.clone()
            };
            let own: Vec<&str> = agent
                .own_servers()
                .iter()
                .map(|s| s.name.as_str())
                .collect();
            table.row(vec![
                name,
                agent.model.clone().unwrap_or_else(|| "-".to_owned()),
                dash_join(&own),
                dash_join(
                    &agent
                        .delegates
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>(),
                ),
                agent.description.clone().unwrap_or_default(),
            ]);
        }
        let mut out = table.render();
        for error in &listing.errors {
            out.push_str(&format!("error: {error}\n"));
        }
        for problem in check_delegates(&listing.items) {
            out.push_str(&format!("error: {problem}\n"));
        }
        out
    }
}

fn dash_join(items: &[&str]) -> String {
    if items.is_empty() {
        "-".to_owned()
    } else {
        items.join(", ")
    }
}

/// The agent's `enabled_mcp_servers` layer with its own servers always in. `below` is what
/// the layers under the agent select (config.yaml, role), used when the agent sets nothing.
fn agent_layer(agent: &Agent, below: &Selection) -> Option<ServerList> {
    let own: Vec<String> = agent.own_servers().iter().map(|s| s.name.clone()).collect();
    let with_own = |mut names: Vec<String>| {
        for name in &own {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        Some(ServerList::Names(names))
    };
    match (&agent.enabled_mcp_servers, below) {
        (Some(ServerList::All), _) => Some(ServerList::All),
        (Some(ServerList::Names(names)), _) => with_own(names.clone()),
        (None, Selection::All) => None,
        (None, Selection::Only(names)) => with_own(names.clone()),
    }
}

#[cfg(test)]
#[path = "agent_cmd_tests.rs"]
mod tests;
