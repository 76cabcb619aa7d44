//! Builds a [`Repl`] from the configuration: paths and logging, mcp.json (servers start in the
//! background so the prompt shows at once), config.yaml (the model), the session, the line
//! editor with completion and the history file.

use std::sync::Arc;

use coyote_config::{AppConfig, ProcessEnv, load_app_config};
use coyote_llm::Provider;
use coyote_mcp::{McpRuntime, SpillStore};
use coyote_session::{ApprovalPolicies, ModelSettings, ServerSelection, Session};

use super::completer::{CompletionSource, ReplCompleter};
use super::views::Redactor;
use super::{Repl, ReplParts};
use crate::args::GlobalArgs;
use crate::client::{Askers, RuntimeOptionsBuilder};
use crate::exit::{CliError, CliResult};
use crate::ui::log_view::ReplLog;
use crate::ui::questions::{Interactivity, Questions};
use crate::ui::screen::Screen;

/// Server log lines the prompt's printer queues at most between two reads of the line
/// editor (more are dropped, counted).
const LOG_PRINTER_CAPACITY: usize = 100;

/// Command-line choices for the REPL.
#[derive(Debug, Clone, Default)]
pub struct ReplOptions {
    /// `-m/--model`.
    pub model: Option<String>,
    /// `-r`, `--session`, `-a`, `--var` (missing agent variables are asked).
    pub scope: crate::args::ScopeArgs,
}

/// The provider and model settings for `requested` (or the configured default).
pub fn build_model(
    config: &AppConfig,
    requested: Option<&str>,
) -> Result<(Arc<dyn Provider>, ModelSettings), String> {
    let resolved = config.resolve_model(requested).map_err(|e| e.to_string())?;
    let provider =
        coyote_llm::build_provider(resolved.provider.clone()).map_err(|e| e.to_string())?;
    let settings = ModelSettings {
        name: resolved.model.name.clone(),
        max_tokens: resolved.model.max_tokens,
        temperature: config.temperature,
    };
    Ok((provider, settings))
}

/// `enabled_mcp_servers` of config.yaml alone, through the one selection helper (scope.rs).
pub fn server_selection(config: &AppConfig) -> ServerSelection {
    crate::scope::server_selection(
        &crate::scope::Scope::default()
            .selection(Some(config))
            .selection,
    )
}

/// Everything the loop needs.
pub struct Started {
    pub repl: Repl,
    pub editor: reedline::Reedline,
}

/// Loads the configuration and starts the servers in the background.
pub fn start(
    handle: &tokio::runtime::Handle,
    global: &GlobalArgs,
    options: &ReplOptions,
) -> CliResult<Started> {
    coyote_llm::install_crypto_provider();
    let paths = crate::setup::paths(global)?;
    let log_file = crate::logging::init(&paths.log_dir(), global.log_level.as_deref());
    let mcp = crate::setup::load_mcp(global, &paths)?;
    let app_config =
        load_app_config(&paths, &ProcessEnv).map_err(|e| CliError::usage(e.to_string()))?;
    let (provider, settings) =
        build_model(&app_config, options.model.as_deref()).map_err(CliError::usage)?;

    let screen = Screen::with_render(crate::markdown::RenderOptions::for_stdout(
        global.raw,
        crate::setup::theme(global, &app_config),
    ));
    let questions = Questions::new(screen.clone(), Interactivity::detect());
    let server_log = Arc::new(ReplLog::new(screen.clone()));
    let runtime = McpRuntime::new(
        RuntimeOptionsBuilder::new(&paths)
            .client_features(global)
            .config(Ok(app_config.clone()))
            .askers(Askers::on(&questions))
            .server_log(server_log.clone())
            .catalog_cache(crate::setup::catalog_cache(&paths))
            .build(),
    );
    // SIGTERM/SIGHUP while the REPL waits for a line: the watcher shuts these down.
    crate::signals::register(&runtime);
    let specs = mcp.servers.clone();
    {
        // Background start: the prompt shows at once; servers with a fresh cached
        // catalog stay idle until their first call.
        let _entered = handle.enter();
        runtime.spawn_start_lazily(specs.clone());
    }
    // Install the SIGINT handler now, so Ctrl-C never kills the REPL (also during `!cmd`).
    handle.block_on(async {
        drop(super::interrupt_signals());
    });

    let spill = SpillStore::new(paths.mcp_resources_dir());
    let session = Session::builder(provider, settings, runtime.clone(), spill.clone())
        .max_tool_rounds(app_config.max_tool_rounds)
        .servers(server_selection(&app_config))
        .approvals(ApprovalPolicies::from_specs(&specs))
        .exposure(coyote_mcp::meta::ExposurePolicies::from_specs(&specs))
        .budgets(coyote_mcp::render::ResultBudgets::from_specs(&specs))
        .build();

    let env = |name: &str| std::env::var(name).ok();
    let mut redactor = Redactor::from_specs(&specs, &env);
    for client in &app_config.clients {
        if let Some(key) = client.provider.api_key.as_ref() {
            redactor.add(key.expose_secret());
        }
    }

    let history_file = paths.history_file();
    let mut repl = Repl::new(ReplParts {
        runtime_handle: handle.clone(),
        session,
        screen,
        questions,
        specs,
        spill,
        redactor,
        app_config: Some(app_config),
        history_file: history_file.clone(),
        log_file,
    });
    apply_start_scope(&mut repl, paths, options);
    if let Some(name) = options.scope.agent.as_deref() {
        match crate::agent::parse_vars(&options.scope.vars) {
            Ok(values) => repl.start_agent(name, &values),
            Err(error) => crate::term::error_line(&error.to_string()),
        }
    }
    let mut source = CompletionSource::new(runtime, repl.enabled_filter());
    if let Some(paths) = repl.paths.clone() {
        source = source.with_config(paths);
    }
    let completer = ReplCompleter::new(source, handle.clone());
    let printer = reedline::ExternalPrinter::new(LOG_PRINTER_CAPACITY);
    server_log.set_printer(printer.sender());
    let editor = super::editor::build(&history_file, completer)
        .map_err(|e| CliError::failure(e.to_string()))?
        .with_external_printer(printer);
    Ok(Started { repl, editor })
}

/// Roles, macros and sessions: the config dir, `--session`, `-r`, `-m` (in that order, so the
/// command line wins over a loaded session), then the start-up warnings (shadowed macros,
/// broken role/macro files). Problems are printed; the REPL starts anyway.
fn apply_start_scope(repl: &mut Repl, paths: coyote_config::ConfigPaths, options: &ReplOptions) {
    repl.set_config_paths(paths);
    for warning in repl.startup_warnings() {
        repl.screen.line(&format!("coyote: warning: {warning}"));
    }
    if let Some(name) = options.scope.session.as_deref() {
        repl.start_session(name);
    }
    if let Some(role) = options.scope.role.as_deref() {
        repl.role_command(Some(role));
    }
    let mut scope = repl.scope().clone();
    if options.model.is_some() {
        scope.model_override = options.model.clone();
    }
    // Also picks up config.yaml's context_window for the model.
    if let Err(e) = repl.apply_scope(scope) {
        repl.screen.line(&format!("coyote: {e}"));
    }
}

/// Runs the REPL to the end; returns the exit code.
pub fn run(handle: &tokio::runtime::Handle, global: &GlobalArgs, options: &ReplOptions) -> u8 {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return CliError::usage(
            "the REPL needs a terminal on stdin; pass the message as arguments or pipe it: \
             `echo hi | coyote`",
        )
        .report();
    }
    let mut started = match start(handle, global, options) {
        Ok(started) => started,
        Err(error) => return error.report(),
    };
    crate::term::eprint_line(&format!(
        "coyote {} — model {}. Type .help for commands, Ctrl-D to leave.",
        env!("CARGO_PKG_VERSION"),
        started.repl.session.model_label()
    ));
    super::run_loop(&mut started.repl, &mut started.editor);
    started.repl.shutdown();
    crate::exit::CODE_OK
}
