//! One-shot `coyote -a NAME [--var K=V …] TEXT`: the turn runs in the agent's session (its
//! instructions, model, own servers, delegates) instead of the plain one. Variables come from
//! `--var` or their defaults; nothing is asked (a missing one is a usage error that says how
//! to pass it). The agent's own servers are released before the app's servers shut down.

use coyote_config::{AppConfig, ConfigPaths};
use coyote_llm::StreamMode;
use coyote_mcp::{McpRuntime, SpillStore};
use coyote_protocol::McpServerSpec;

use crate::agent::{AgentHost, AgentStart, AppServers, HostParts, StartedAgent};
use crate::args::ChatArgs;
use crate::exit::{CliError, CliResult};

/// With `-a`: the app servers the agent and its delegates select (instead of `selected`, the
/// plain selection). Without: `selected` unchanged.
pub fn app_specs(
    paths: &ConfigPaths,
    args: &ChatArgs,
    app: &AppConfig,
    selected: Vec<McpServerSpec>,
    all: &[McpServerSpec],
) -> CliResult<Vec<McpServerSpec>> {
    let Some(name) = args.scope.agent.as_deref() else {
        return Ok(selected);
    };
    if args.scope.role.is_some() || args.scope.session.is_some() {
        return Err(CliError::usage(
            "-a cannot be combined with -r or --session yet: an agent brings its own \
             instructions, model and MCP servers; drop one of them",
        ));
    }
    crate::agent::app_specs_for(&paths.agents_dir(), name, app, all).map_err(CliError::usage)
}

/// With `-a`: the started agent (warnings already printed to stderr). `specs`: every
/// configured app server (an own server named like one of them shadows it).
pub async fn start(
    paths: &ConfigPaths,
    args: &ChatArgs,
    app: &AppConfig,
    runtime: &McpRuntime,
    specs: &[McpServerSpec],
) -> CliResult<Option<StartedAgent>> {
    let Some(name) = args.scope.agent.as_deref() else {
        return Ok(None);
    };
    let values = crate::agent::parse_vars(&args.scope.vars).map_err(CliError::usage)?;
    let host = AgentHost::new(HostParts {
        agents_dir: paths.agents_dir(),
        config: app.clone(),
        app: runtime.clone(),
        app_specs: specs.to_vec(),
        // The agent's own servers get the same client features as the app's.
        factory_options: runtime.options(),
        spill: SpillStore::new(paths.mcp_resources_dir()),
        stream: if args.no_stream {
            StreamMode::Whole
        } else {
            StreamMode::Streaming
        },
    });
    let agent = host.load(name).map_err(CliError::usage)?;
    delegation_check(&host, &agent)?;
    let started = host
        .start(AgentStart {
            agent,
            values: &values,
            depth: 0,
            model_override: args.model.as_deref(),
            app_servers: AppServers::Selected,
        })
        .await
        .map_err(CliError::usage)?;
    for warning in &started.warnings {
        crate::term::warning_line(&warning.to_string());
    }
    tracing::info!(agent = %name, model = %started.session.model_label(), "one-shot agent");
    Ok(Some(started))
}

/// An unknown delegate or a delegation cycle reachable from `agent` is a usage error (exit 2),
/// as in the REPL, before anything starts.
fn delegation_check(host: &AgentHost, agent: &coyote_config::Agent) -> CliResult {
    let agents = host.list().items;
    let mut reachable = std::collections::BTreeSet::from([agent.name.clone()]);
    let mut todo = vec![agent.name.clone()];
    while let Some(name) = todo.pop() {
        let delegates = agents
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.delegates.clone())
            .unwrap_or_else(|| agent.delegates.clone());
        for delegate in delegates {
            if reachable.insert(delegate.clone()) {
                todo.push(delegate);
            }
        }
    }
    let problems: Vec<String> = coyote_config::check_delegates(&agents)
        .into_iter()
        .filter(|problem| match problem {
            coyote_config::DelegateProblem::Unknown { agent, .. } => reachable.contains(agent),
            coyote_config::DelegateProblem::Cycle { cycle, .. } => {
                cycle.iter().any(|member| reachable.contains(member))
            }
        })
        .map(|problem| problem.to_string())
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CliError::usage(problems.join("\n")))
    }
}
