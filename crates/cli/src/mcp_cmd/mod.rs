//! `coyote mcp …`: every MCP operation from the shell, without an LLM. Each subcommand starts
//! only the servers it needs, runs, and always shuts them down (process groups killed) before
//! returning, whatever the outcome — also after SIGINT, SIGTERM or SIGHUP (`signals.rs`): the
//! request in flight is dropped (its server gets `notifications/cancelled`), then the servers
//! are shut down with the usual grace period.

mod batch;
mod cache;
mod call;
pub(crate) mod daemon;
mod edit;
mod import;
mod list;
mod login;
mod pool;
mod skills;
mod tasks;
mod via_meta;
pub(crate) mod watch;

use coyote_mcp::{McpError, McpRuntime, ServerHandle};

use crate::args::{GlobalArgs, McpCommand};
use crate::boxed::boxed;
use crate::exit::{CliError, CliResult};
use crate::setup;
use pool::ServerPool;

pub async fn run(global: &GlobalArgs, cmd: McpCommand) -> CliResult {
    let paths = setup::paths(global)?;
    crate::logging::init(&paths.log_dir(), global.log_level.as_deref());
    if let McpCommand::Batch {
        json,
        fail_fast,
        file,
    } = cmd
    {
        let options = batch::BatchOptions {
            json,
            fail_fast,
            file,
        };
        return boxed(|| batch::run(global, &paths, options)).await;
    }
    if let McpCommand::Session { action } = cmd {
        return boxed(|| daemon::run(global, &paths, action)).await;
    }
    if let Some(served) = boxed(|| daemon::route(global, &paths, &cmd)).await {
        return served;
    }
    let mut pool = ServerPool::new(global, &paths);
    let result = boxed(|| until_signal(run_in(&mut pool, cmd))).await;
    finish(&mut pool).await;
    result
}

/// After the last command: shuts the pool's servers down, first giving a request dropped by a
/// signal the time to send its `notifications/cancelled`.
async fn finish(pool: &mut ServerPool<'_>) {
    if crate::signals::received().is_some() {
        // The dropped request sends `notifications/cancelled` from a detached task.
        tokio::time::sleep(crate::signals::CANCEL_FLUSH_GRACE).await;
    }
    pool.shutdown().await;
}

/// One command, with the servers it needs started in `pool` (unless already running there).
pub(crate) async fn run_in(pool: &mut ServerPool<'_>, cmd: McpCommand) -> CliResult {
    let paths = pool.paths();
    match boxed(|| prepare(pool, cmd)).await? {
        Some(prepared) => boxed(|| run_prepared(paths, prepared)).await,
        None => Ok(()),
    }
}

/// A command that talks to servers, with its runtime (those servers started) and its
/// configuration: what is left to run once the pool is no longer needed.
pub(crate) struct Prepared {
    runtime: McpRuntime,
    config: coyote_config::McpConfig,
    cmd: McpCommand,
}

/// Runs a prepared command (the pool may meanwhile serve others).
pub(crate) async fn run_prepared(
    paths: &coyote_config::ConfigPaths,
    prepared: Prepared,
) -> CliResult {
    dispatch(&prepared.runtime, &prepared.config, paths, prepared.cmd).await
}

/// Runs a command that needs no server (`None`), or starts in `pool` the servers `cmd`
/// needs and returns it [`Prepared`].
pub(crate) async fn prepare(
    pool: &mut ServerPool<'_>,
    cmd: McpCommand,
) -> CliResult<Option<Prepared>> {
    let (global, paths) = (pool.global(), pool.paths());
    match cmd {
        McpCommand::Add {
            name,
            env,
            url,
            transport,
            headers,
            client_id,
            scopes,
            force,
            json,
            command,
        } => {
            return edit::add(
                paths,
                edit::AddArgs {
                    name,
                    env,
                    url,
                    transport,
                    headers,
                    client_id,
                    scopes,
                    force,
                    command,
                },
                json,
            )
            .map(|()| None);
        }
        McpCommand::Remove { name, json } => {
            return edit::remove(paths, &name, json).map(|()| None);
        }
        McpCommand::Import { from, force, json } => {
            let options = import::ImportOptions {
                force,
                json,
                trust_project: global.trust_project,
            };
            return import::import(paths, from.as_deref(), options).map(|()| None);
        }
        McpCommand::Servers { names: true, .. } => return server_names(paths).map(|()| None),
        McpCommand::Login { name } => {
            let config = setup::load_mcp(global, paths)?;
            until_signal(login::login(&config, paths, &name)).await?;
            signed_in_or_out(pool, &name).await;
            return Ok(None);
        }
        McpCommand::Logout { name } => {
            let config = setup::load_mcp(global, paths)?;
            until_signal(login::logout(&config, paths, &name)).await?;
            signed_in_or_out(pool, &name).await;
            return Ok(None);
        }
        McpCommand::Cache { action, out } => return cache::run(paths, action, out).map(|()| None),
        McpCommand::Batch { .. } | McpCommand::Session { .. } => {
            return Err(CliError::usage(
                "`coyote mcp batch` and `coyote mcp session` cannot run inside a batch",
            ));
        }
        _ => {}
    }
    let config = setup::load_mcp(global, paths)?;
    let only = cmd_server(&cmd);
    let specs = match only.as_deref() {
        Some("") => Vec::new(),
        other => setup::select(&config, other)?,
    };
    let runtime = pool.ready(&config.servers, specs).await;
    Ok(Some(Prepared {
        runtime,
        config,
        cmd,
    }))
}

/// After a sign-in or sign-out of `name`: the server restarts with its new credentials where
/// it runs — in this process's pool (a batch) and in the session daemon of this config dir —
/// so the next command does not meet the old needs-auth state or the old tokens.
async fn signed_in_or_out(pool: &mut ServerPool<'_>, name: &str) {
    pool.restart(name).await;
    daemon::restart_in_daemon(pool.paths(), name).await;
}

/// `work`, or an interruption error as soon as a signal arrived (`work` is then dropped).
pub(crate) async fn until_signal<T>(work: impl Future<Output = CliResult<T>>) -> CliResult<T> {
    let token = crate::signals::token();
    tokio::select! {
        result = work => result,
        () = token.cancelled() => Err(crate::signals::stopped()),
    }
}

/// The one server a command is about, if it names one.
fn cmd_server(cmd: &McpCommand) -> Option<String> {
    match cmd {
        McpCommand::Servers { .. } => None,
        McpCommand::Tools { server, .. }
        | McpCommand::Resources { server, .. }
        | McpCommand::Templates { server, .. }
        | McpCommand::Prompts { server, .. }
        | McpCommand::Skills { server, .. } => server.clone(),
        McpCommand::Search { server, .. }
        | McpCommand::Retrieve { server, .. }
        | McpCommand::Describe { server, .. }
        | McpCommand::Complete { server, .. }
        | McpCommand::Watch { server, .. }
        | McpCommand::Call { server, .. }
        | McpCommand::Tasks { server, .. }
        | McpCommand::Read { server, .. }
        | McpCommand::Prompt { server, .. } => Some(server.clone()),
        // A meta-function starts its server; a possible direct name (`<server>__<tool>`, maybe
        // sanitised or hashed) starts every server, since only the declaration set names it;
        // anything else starts nothing and dispatch reports it.
        McpCommand::Meta { function_name, .. } => {
            match coyote_mcp::MetaFunction::parse(function_name) {
                Some(m) => Some(m.server),
                None if function_name.contains(coyote_mcp::meta::direct::DIRECT_SEPARATOR) => None,
                None => Some(String::new()),
            }
        }
        McpCommand::Add { .. }
        | McpCommand::Import { .. }
        | McpCommand::Remove { .. }
        | McpCommand::Login { .. }
        | McpCommand::Logout { .. }
        | McpCommand::Cache { .. }
        | McpCommand::Batch { .. }
        | McpCommand::Session { .. } => None,
    }
}

async fn dispatch(
    runtime: &McpRuntime,
    config: &coyote_config::McpConfig,
    paths: &coyote_config::ConfigPaths,
    cmd: McpCommand,
) -> CliResult {
    let d = via_meta::dispatcher(runtime, paths);
    match cmd {
        McpCommand::Servers {
            out, declarations, ..
        } => {
            let d = as_the_model_sees(d, config, paths);
            boxed(|| list::servers(runtime, config, &d, out, declarations)).await
        }
        McpCommand::Tools { server, out } => {
            boxed(|| list::tools(runtime, server.as_deref(), out)).await
        }
        McpCommand::Resources { server, out } => {
            boxed(|| list::resources(runtime, server.as_deref(), out)).await
        }
        McpCommand::Templates { server, out } => {
            boxed(|| list::templates(runtime, server.as_deref(), out)).await
        }
        McpCommand::Prompts { server, out } => {
            boxed(|| list::prompts(runtime, server.as_deref(), out)).await
        }
        McpCommand::Skills { server, out } => {
            boxed(|| skills::skills(runtime, server.as_deref(), out)).await
        }
        McpCommand::Call {
            server,
            tool,
            args,
            json_args,
            out,
        } => {
            let handle = handle(runtime, &server)?;
            let args = call::ArgsInput::new(args, json_args);
            boxed(|| call::call(&handle, &tool, args, out)).await
        }
        cmd @ McpCommand::Tasks { .. } => boxed(|| tasks::run(runtime, cmd)).await,
        McpCommand::Search {
            server,
            query,
            top_k,
            out,
        } => boxed(|| via_meta::search(&d, &server, &query, top_k, out)).await,
        McpCommand::Retrieve { server, text, out } => {
            let exposure = coyote_mcp::meta::ExposurePolicies::from_specs(&config.servers);
            let d = d.with_exposure(exposure);
            boxed(|| via_meta::retrieve(&d, &server, &text, out)).await
        }
        McpCommand::Describe {
            server,
            id,
            kind,
            out,
        } => boxed(|| via_meta::describe(&d, &server, &id, kind, out)).await,
        McpCommand::Watch {
            server,
            uri,
            count,
            call,
            read,
            json,
        } => {
            let a = watch::WatchArgs {
                uri,
                count,
                call,
                read,
                json,
            };
            let handle = handle(runtime, &server)?;
            boxed(|| watch::watch(&handle, &d, a)).await
        }
        McpCommand::Complete {
            server,
            prompt,
            template,
            args,
            out,
        } => boxed(|| via_meta::complete(&d, &server, prompt, template, &args, out)).await,
        McpCommand::Read {
            server,
            uri,
            template_args,
            pattern,
            offset,
            max_bytes,
            out,
        } => {
            let a = via_meta::ReadArgs {
                uri,
                template_args,
                pattern,
                offset,
                max_bytes,
            };
            boxed(|| via_meta::read(&d, &server, a, out)).await
        }
        McpCommand::Prompt {
            server,
            name,
            args,
            out,
        } => boxed(|| via_meta::prompt(&d, &server, &name, args, out)).await,
        McpCommand::Meta {
            function_name,
            json_args,
            json,
        } => {
            let d = as_the_model_sees(d, config, paths);
            boxed(|| meta(runtime, &d, &function_name, &json_args, json)).await
        }
        McpCommand::Add { .. }
        | McpCommand::Import { .. }
        | McpCommand::Remove { .. }
        | McpCommand::Login { .. }
        | McpCommand::Logout { .. }
        | McpCommand::Cache { .. }
        | McpCommand::Batch { .. }
        | McpCommand::Session { .. } => Ok(()),
    }
}

/// `coyote mcp meta`: one call of a function of the model's declaration set (`d`).
async fn meta(
    runtime: &McpRuntime,
    d: &coyote_mcp::meta::MetaDispatcher,
    function_name: &str,
    json_args: &str,
    json: bool,
) -> CliResult {
    // Direct tool names exist only in a declaration set: build the one the model gets.
    d.declarations(&runtime.server_names()).await;
    via_meta::meta(d, function_name, json_args, json).await
}

/// `coyote mcp servers --names`: the configured (and trusted) server names, one per line,
/// read from mcp.json without asking anything or starting a server (shell completion).
fn server_names(paths: &coyote_config::ConfigPaths) -> CliResult {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::usage(format!("cannot read the current directory: {e}")))?;
    let config = coyote_config::McpLoader::new(paths, &coyote_config::ProcessEnv, &cwd)
        .load()
        .map_err(|e| CliError::usage(e.to_string()))?;
    let mut text = String::new();
    for spec in &config.servers {
        text.push_str(&spec.name);
        text.push('\n');
    }
    crate::output::print(&text)
}

/// `d` with the configured exposures and the model's result budgets: the declarations and
/// results a model request would get.
fn as_the_model_sees(
    d: coyote_mcp::meta::MetaDispatcher,
    config: &coyote_config::McpConfig,
    paths: &coyote_config::ConfigPaths,
) -> coyote_mcp::meta::MetaDispatcher {
    let exposure = coyote_mcp::meta::ExposurePolicies::from_specs(&config.servers);
    d.with_exposure(exposure)
        .with_budgets(model_budgets(paths, &config.servers))
}

/// The servers' result budgets with the default of config.yaml's model (its
/// `context_window`, else the window known for its name, else 128,000 tokens): what the model
/// would get. A config.yaml that does not load leaves the 128,000-token assumption; unset
/// variables in it (an API key) do not change the answer.
fn model_budgets(
    paths: &coyote_config::ConfigPaths,
    specs: &[coyote_protocol::McpServerSpec],
) -> coyote_mcp::render::ResultBudgets {
    let window = coyote_config::load_app_config(paths, &coyote_config::ProcessEnv)
        .ok()
        .and_then(|app| app.selected_model(None).ok())
        .map_or(coyote_session::DEFAULT_CONTEXT_WINDOW, |model| {
            coyote_session::ContextPolicy::for_model(&model.name, model.context_window).window
        });
    coyote_mcp::render::ResultBudgets::from_specs(specs)
        .with_default(coyote_mcp::render::default_result_bytes(u64::from(window)))
}

/// The Ready handle of `server`, or exit 1 with its state (failed: reason + stderr tail).
pub(crate) fn handle(runtime: &McpRuntime, server: &str) -> CliResult<ServerHandle> {
    runtime.server(server).map_err(mcp_failure)
}

/// An MCP error as a CLI failure (exit 1).
pub(crate) fn mcp_failure(e: McpError) -> CliError {
    CliError::failure(e.to_string())
}
