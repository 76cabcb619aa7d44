//! Agents in the CLI: `<config>/agents/NAME/` loaded by coyote-config, turned into a running
//! agent — its model, its instructions as the system prompt (`{{variables}}` filled), its own
//! MCP servers acquired through the [`McpFactory`] (shared by spec, closed when no agent uses
//! them), the app servers it selects, and one `agent_delegate_<name>` function per delegate.
//! ONE place builds agents for one-shot `-a`, the REPL's `.agent` and delegate launches
//! ([`AgentHost`] is the session crate's `DelegateLauncher`).
//!
//! Invariants:
//! - An agent's own servers live only in its own runtime (never in the app runtime); an
//!   own server named like an app server shadows it inside the agent, warned once per agent and
//!   server for the host's lifetime.
//! - Variables: given values, then defaults; a missing one is an error naming the variable, the
//!   file and how to pass it (`--var NAME=VALUE`, or a `default:`). Delegates cannot ask.
//! - Every error names the file, the key and the fix (coyote-config words them).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use coyote_config::{
    Agent, AppConfig, Listing, ProcessEnv, SelectionLayers, list_agents_with_defaults, load_agent,
    load_agent_with_defaults, resolve_selection, shadowed_app_servers,
};
use coyote_llm::StreamMode;
use coyote_mcp::{AgentRuntime, AgentServers, McpFactory, McpRuntime, RuntimeOptions, SpillStore};
use coyote_protocol::McpServerSpec;
use coyote_session::{
    ApprovalPolicies, ContextPolicy, Conversation, DelegateError, DelegateInfo, DelegateLaunch,
    DelegateLauncher, DelegateRun, Delegates, ModelSettings, ServerSelection, Session,
};
use futures::future::BoxFuture;

/// Which app servers an agent's runtime adopts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppServers {
    /// Only those its `enabled_mcp_servers` (over config.yaml's) selects; the session then
    /// offers everything in the runtime. One-shot and delegates.
    Selected,
    /// Every Ready app server; the REPL's scope selection filters them (so `.mcp enable` works
    /// inside the agent too).
    AllReady,
}

/// What [`AgentHost::start`] needs besides the agent.
#[derive(Debug, Clone)]
pub struct AgentStart<'a> {
    pub agent: Agent,
    /// `--var` values or answers to the REPL's questions.
    pub values: &'a BTreeMap<String, String>,
    /// 0 for the user's agent, 1… for delegates.
    pub depth: u32,
    /// `-m` / `.model`: wins over the agent's `model`.
    pub model_override: Option<&'a str>,
    pub app_servers: AppServers,
}

/// A running agent.
pub struct StartedAgent {
    pub session: Session,
    /// Starts with the instructions as the system prompt.
    pub conversation: Conversation,
    /// Release with [`AgentRuntime::close`] when the agent ends.
    pub runtime: AgentRuntime,
    /// Shadowed servers (first time only), servers that did not start, unknown `--var`s.
    pub warnings: Vec<String>,
}

/// What the host is built from.
pub struct HostParts {
    pub agents_dir: PathBuf,
    pub config: AppConfig,
    /// The app's runtime (agents adopt its servers; they never add to it).
    pub app: McpRuntime,
    pub app_specs: Vec<McpServerSpec>,
    /// For the agents' own servers (client identity, elicitation hook).
    pub factory_options: RuntimeOptions,
    pub spill: SpillStore,
    pub stream: StreamMode,
}

/// Builds agents; clones share the factory and the warned-once set.
#[derive(Clone)]
pub struct AgentHost {
    inner: Arc<HostInner>,
}

struct HostInner {
    agents_dir: PathBuf,
    config: AppConfig,
    app: McpRuntime,
    app_specs: Vec<McpServerSpec>,
    factory: McpFactory,
    spill: SpillStore,
    stream: StreamMode,
    /// `(agent, server)` shadow warnings already given.
    warned: Mutex<BTreeSet<(String, String)>>,
}

impl AgentHost {
    pub fn new(parts: HostParts) -> Self {
        AgentHost {
            inner: Arc::new(HostInner {
                agents_dir: parts.agents_dir,
                config: parts.config,
                app: parts.app,
                app_specs: parts.app_specs,
                factory: McpFactory::new(parts.factory_options),
                spill: parts.spill,
                stream: parts.stream,
                warned: Mutex::new(BTreeSet::new()),
            }),
        }
    }

    pub fn agents_dir(&self) -> &Path {
        &self.inner.agents_dir
    }

    /// Loads `agents/NAME/config.yaml` (and its own mcp.json).
    pub fn load(&self, name: &str) -> Result<Agent, String> {
        load_agent_with_defaults(
            &self.inner.agents_dir,
            name,
            &ProcessEnv,
            self.inner.config.server_defaults(),
        )
        .map_err(|e| e.to_string())
    }

    pub fn list(&self) -> Listing<Agent> {
        list_agents_with_defaults(
            &self.inner.agents_dir,
            &ProcessEnv,
            self.inner.config.server_defaults(),
        )
    }

    /// Shadow warnings for `agent` not given before (each `(agent, server)` once).
    pub fn shadow_warnings(&self, agent: &Agent) -> Vec<String> {
        let app: Vec<String> = self
            .inner
            .app_specs
            .iter()
            .map(|s| s.name.clone())
            .collect();
        let mut warned = self.inner.warned.lock().unwrap_or_else(|p| p.into_inner());
        shadowed_app_servers(agent, &app)
            .into_iter()
            .filter(|server| warned.insert((agent.name.clone(), server.clone())))
            .map(|server| {
                format!(
                    "agent `{}`: its own MCP server `{server}` ({}) shadows the app server of \
                     the same name inside this agent; rename one of them to use both",
                    agent.name,
                    agent.dir.join(coyote_config::AGENT_MCP_FILE).display()
                )
            })
            .collect()
    }

    /// Starts an agent: model, instructions, own servers, selected app servers, delegates.
    pub async fn start(&self, start: AgentStart<'_>) -> Result<StartedAgent, String> {
        let AgentStart {
            agent,
            values,
            depth,
            model_override,
            app_servers,
        } = start;
        let instructions = instructions(&agent, values)?;
        let config = &self.inner.config;
        let resolved = config
            .resolve_model(model_override.or(agent.model.as_deref()))
            .map_err(|e| format!("agent `{}` ({}): {e}", agent.name, agent.file.display()))?;
        let provider =
            coyote_llm::build_provider(resolved.provider.clone()).map_err(|e| e.to_string())?;
        let settings = ModelSettings {
            name: resolved.model.name.clone(),
            max_tokens: resolved.model.max_tokens,
            temperature: agent.temperature.or(config.temperature),
        };
        let context = ContextPolicy::for_model(
            &resolved.model.name,
            resolved.provider.context_window(&resolved.model),
        );

        let mut warnings = self.shadow_warnings(&agent);
        warnings.extend(unknown_values(&agent, values));
        // Adopting needs Ready app servers; they start in the background in the REPL.
        self.inner.app.wait_settled().await;
        let app_names = self.inner.app.server_names();
        let app_selected = match app_servers {
            // A failed app server was reported at start-up; do not repeat it per agent.
            AppServers::AllReady => app_names
                .into_iter()
                .filter(|n| self.inner.app.state(n) == Some(coyote_mcp::ServerState::Ready))
                .collect(),
            AppServers::Selected => agent_selection(config, &agent, &app_names),
        };
        let runtime = self
            .inner
            .factory
            .agent_runtime(AgentServers {
                own: agent.own_servers().to_vec(),
                app: &self.inner.app,
                app_selected,
            })
            .await;
        for problem in &runtime.problems {
            warnings.push(format!(
                "agent `{}`: MCP server `{}` is not available: {}",
                agent.name, problem.server, problem.error
            ));
        }
        let mut specs = self.inner.app_specs.clone();
        specs.retain(|s| !agent.own_servers().iter().any(|o| o.name == s.name));
        specs.extend(agent.own_servers().iter().cloned());
        let mut builder = Session::builder(
            provider,
            settings,
            runtime.runtime().clone(),
            self.inner.spill.clone(),
        )
        .max_tool_rounds(config.max_tool_rounds)
        .stream(self.inner.stream)
        .servers(ServerSelection::All)
        .approvals(ApprovalPolicies::from_specs(&specs))
        .exposure(coyote_mcp::meta::ExposurePolicies::from_specs(&specs))
        .budgets(coyote_mcp::render::ResultBudgets::from_specs(&specs))
        .context(context);
        if !agent.delegates.is_empty() {
            let infos = agent
                .delegates
                .iter()
                .map(|name| DelegateInfo {
                    name: name.clone(),
                    description: self.load(name).ok().and_then(|a| a.description),
                })
                .collect();
            let launcher: Arc<dyn DelegateLauncher> = Arc::new(self.clone());
            builder = builder.delegates(
                Delegates::new(infos, launcher)
                    .at_depth(depth)
                    .max_depth(MAX_DEPTH),
            );
        }
        let conversation = if instructions.trim().is_empty() {
            Conversation::new()
        } else {
            Conversation::with_system(instructions)
        };
        Ok(StartedAgent {
            session: builder.build(),
            conversation,
            runtime,
            warnings,
        })
    }
}

/// coyote-config's bound, as the session crate counts it.
const MAX_DEPTH: u32 = coyote_config::MAX_DELEGATE_DEPTH as u32;

impl DelegateLauncher for AgentHost {
    fn launch<'a>(
        &'a self,
        request: DelegateLaunch<'a>,
    ) -> BoxFuture<'a, Result<DelegateRun, DelegateError>> {
        Box::pin(async move {
            let failed = |reason: String| DelegateError::Launch {
                agent: request.agent.to_owned(),
                reason,
            };
            let agent = self.load(request.agent).map_err(failed)?;
            let values = BTreeMap::new();
            let missing: Vec<String> = agent
                .missing_variables(&values)
                .iter()
                .map(|v| format!("`{}`", v.name))
                .collect();
            if !missing.is_empty() {
                return Err(failed(format!(
                    "its variables {} have no default in {}, and a delegate cannot be asked for \
                     values; give each a `default:` under `variables:`",
                    missing.join(", "),
                    agent.file.display()
                )));
            }
            let started = self
                .start(AgentStart {
                    agent,
                    values: &values,
                    depth: request.depth,
                    model_override: None,
                    app_servers: AppServers::Selected,
                })
                .await
                .map_err(failed)?;
            let StartedAgent {
                session,
                conversation,
                runtime,
                warnings,
                ..
            } = started;
            Ok(DelegateRun {
                session,
                conversation,
                close: Box::pin(runtime.close()),
                warnings,
            })
        })
    }
}

/// The app servers an agent selects: its `enabled_mcp_servers` over config.yaml's.
pub fn agent_selection(config: &AppConfig, agent: &Agent, available: &[String]) -> Vec<String> {
    let layers = SelectionLayers {
        config: config.enabled_mcp_servers.clone(),
        agent: agent.enabled_mcp_servers.clone(),
        ..SelectionLayers::default()
    };
    resolve_selection(&layers, &config.mapping_mcp_servers)
        .selection
        .select_names(available)
}

/// The instructions with variables filled, or an error naming each missing variable and how
/// to pass it.
pub fn instructions(agent: &Agent, values: &BTreeMap<String, String>) -> Result<String, String> {
    agent.instructions_with(values).map_err(|missing| {
        let flags: Vec<String> = missing
            .missing
            .iter()
            .map(|name| format!("--var {name}=VALUE"))
            .collect();
        format!(
            "agent `{}` needs a value for {} (no default in {}); pass {} or give each a \
             `default:` under `variables:`",
            agent.name,
            missing
                .missing
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            agent.file.display(),
            flags.join(" "),
        )
    })
}

fn unknown_values(agent: &Agent, values: &BTreeMap<String, String>) -> Vec<String> {
    values
        .keys()
        .filter(|k| !agent.variables.iter().any(|v| &v.name == *k))
        .map(|k| {
            let known: Vec<&str> = agent.variables.iter().map(|v| v.name.as_str()).collect();
            format!(
                "agent `{}` has no variable `{k}` (its variables: {}); ignored",
                agent.name,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )
        })
        .collect()
}

/// `--var NAME=VALUE` arguments.
pub fn parse_vars(args: &[String]) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for arg in args {
        match arg.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                out.insert(k.trim().to_owned(), v.to_owned());
            }
            _ => {
                return Err(format!(
                    "--var takes NAME=VALUE (e.g. `--var project=demo`), got `{arg}`"
                ));
            }
        }
    }
    Ok(out)
}

/// The app servers one-shot must start for agent `name`: what it and its delegates (to the
/// depth bound) select. Errors are the agent's own load error; a delegate that does not load
/// is left to fail when called.
pub fn app_specs_for(
    agents_dir: &Path,
    name: &str,
    config: &AppConfig,
    specs: &[McpServerSpec],
) -> Result<Vec<McpServerSpec>, String> {
    let available: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let root = load_agent(agents_dir, name, &ProcessEnv).map_err(|e| e.to_string())?;
    let mut wanted: BTreeSet<String> = BTreeSet::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut level = vec![root];
    for _ in 0..=coyote_config::MAX_DELEGATE_DEPTH {
        let mut next = Vec::new();
        for agent in level {
            if !seen.insert(agent.name.clone()) {
                continue;
            }
            wanted.extend(agent_selection(config, &agent, &available));
            for d in &agent.delegates {
                if let Ok(a) = load_agent(agents_dir, d, &ProcessEnv) {
                    next.push(a);
                }
            }
        }
        level = next;
    }
    Ok(specs
        .iter()
        .filter(|s| wanted.contains(&s.name))
        .cloned()
        .collect())
}

#[cfg(test)]
#[path = "agent_tests.rs"]
mod tests;
