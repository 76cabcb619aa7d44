//! Everything a command needs before it talks to a server: resolved paths, the merged MCP
//! configuration (with the project-trust question asked or refused), the theme, where catalogs
//! are cached, the browser sign-in, and a runtime with the chosen servers started (its options
//! from the one [`RuntimeOptionsBuilder`]). Configuration problems become usage errors (exit 2)
//! whose text names the file, the key and the fix (the config crate words them).

use std::io::{BufRead, IsTerminal, Write};

use std::sync::Arc;

use coyote_config::{
    ConfigPaths, McpConfig, McpLoader, PathOverrides, ProcessEnv, ServerDefaults, TrustDecision,
    TrustStore, load_app_config,
};
use coyote_mcp::McpRuntime;
use coyote_protocol::McpServerSpec;

use crate::args::GlobalArgs;
use crate::client::{Askers, RuntimeOptionsBuilder};
use crate::exit::{CliError, CliResult};

/// Resolves the directories from the environment and `--config-dir`.
pub fn paths(global: &GlobalArgs) -> CliResult<ConfigPaths> {
    let overrides = PathOverrides {
        config_dir: global.config_dir.clone(),
    };
    ConfigPaths::resolve(&ProcessEnv, &overrides).map_err(|e| CliError::usage(e.to_string()))
}

/// Loads mcp.json (user + `.mcp.json` + `.coyote/mcp.json`). An untrusted project file is used only after the user
/// trusts it: `--trust-project`, or a yes at an interactive prompt; otherwise it is ignored
/// and the warning says how to trust it.
pub fn load_mcp(global: &GlobalArgs, paths: &ConfigPaths) -> CliResult<McpConfig> {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::usage(format!("cannot read the current directory: {e}")))?;
    let defaults = server_defaults(paths);
    let load = || {
        McpLoader::new(paths, &ProcessEnv, &cwd)
            .defaults(defaults)
            .load()
            .map_err(|e| CliError::usage(e.to_string()))
    };
    let mut config = load()?;
    let untrusted: Vec<_> = config.untrusted_projects().cloned().collect();
    let mut reload = false;
    for project in untrusted {
        let decision = if global.trust_project {
            Some(TrustDecision::Trust)
        } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            Some(ask_trust(&project.path.display().to_string()))
        } else {
            None
        };
        if let Some(decision) = decision {
            TrustStore::new(paths)
                .decide(&project, decision)
                .map_err(|e| CliError::usage(e.to_string()))?;
            reload |= decision == TrustDecision::Trust;
        }
    }
    if reload {
        config = load()?;
    }
    for warning in &config.warnings {
        crate::term::warning_line(&warning.to_string());
    }
    // An unusable entry disables its server only; the others start.
    for broken in &config.broken {
        crate::capture::stderr_line(&format!("coyote: warning: {broken}"));
    }
    Ok(config)
}

/// config.yaml's defaults for mcp.json entries (its `expose`). A config.yaml that does
/// not load leaves the built-in defaults here: the commands that need the file report its error.
fn server_defaults(paths: &ConfigPaths) -> ServerDefaults {
    match load_app_config(paths, &ProcessEnv) {
        Ok(app) => app.server_defaults(),
        Err(e) => {
            tracing::warn!("config.yaml not used for MCP server defaults: {e}");
            ServerDefaults::default()
        }
    }
}

pub(crate) fn ask_trust(path: &str) -> TrustDecision {
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "coyote: {path} can start programs from this project.\nTrust it (remembered until the file changes)? [y/N] "
    );
    let _ = err.flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    match line.trim() {
        "y" | "Y" | "yes" | "Yes" => TrustDecision::Trust,
        _ => TrustDecision::Distrust,
    }
}

/// The specs of `only` (or all enabled servers). An unknown or disabled name is a usage error
/// that lists the configured names.
pub fn select(config: &McpConfig, only: Option<&str>) -> CliResult<Vec<McpServerSpec>> {
    let Some(name) = only else {
        return Ok(config.servers.clone());
    };
    if let Some(spec) = config.servers.iter().find(|s| s.name == name) {
        return Ok(vec![spec.clone()]);
    }
    if let Some(broken) = config.broken.iter().find(|b| b.name == name) {
        return Err(CliError::usage(format!(
            "MCP server '{name}' cannot be used: {}",
            broken.to_error()
        )));
    }
    if let Some(d) = config.disabled.iter().find(|d| d.name == name) {
        return Err(CliError::usage(format!(
            "MCP server '{name}' is disabled in {} (\"disabled\": true); remove that key to use it",
            d.source.display()
        )));
    }
    let known: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
    let hint = if known.is_empty() {
        format!(
            "no servers are configured in {}; add one with `coyote mcp add NAME -- CMD ARGS…`",
            config.user_file.display()
        )
    } else {
        format!("configured servers: {}", known.join(", "))
    };
    Err(CliError::usage(format!(
        "unknown MCP server '{name}'; {hint}"
    )))
}

/// The browser sign-in of `login`: `$BROWSER` (or xdg-open/open) plus a loopback listener; the
/// URL and any browser trouble are printed on stderr.
#[expect(
    clippy::print_stderr,
    reason = "a sign-in's notes (the URL, browser trouble) go to stderr, the CLI's channel for everything but results"
)]
pub fn login_authorizer() -> Arc<coyote_mcp::auth::BrowserAuthorizer> {
    Arc::new(coyote_mcp::auth::BrowserAuthorizer::from_env(Arc::new(
        |message: &str| eprintln!("coyote: {message}"),
    )))
}

/// A chat's runtime: servers with a fresh cached catalog (`"start": "lazy"`, the default) are
/// declared from it and start on their first call; the others start now.
pub async fn start_lazily(
    global: &GlobalArgs,
    paths: &ConfigPaths,
    specs: Vec<McpServerSpec>,
) -> McpRuntime {
    let options = RuntimeOptionsBuilder::new(paths)
        .client_features(global)
        .catalog_cache(catalog_cache(paths))
        .build();
    let runtime = McpRuntime::new(options);
    runtime.start_all_lazily(specs).await;
    runtime
}

/// A runtime with no server started yet, with the client features of a command-line run:
/// questions on the terminal when there is one (declined with a stderr line otherwise) and
/// server log lines on stderr. The `coyote mcp` commands start their servers in it (always
/// live: they talk to the servers) under the signal watcher (`signals.rs`).
/// With `askers`, the servers' questions go there instead (the daemon of `coyote mcp session`
/// forwards them to the command that is running).
pub fn runtime_with(
    global: &GlobalArgs,
    paths: &ConfigPaths,
    askers: Option<Askers>,
) -> McpRuntime {
    let mut options = RuntimeOptionsBuilder::new(paths).client_features(global);
    if let Some(askers) = askers {
        options = options.askers(askers);
    }
    McpRuntime::new(options.build())
}

pub use crate::client::catalog_cache;

/// The theme: `--theme`, else config.yaml `theme`, else auto.
pub fn theme(global: &GlobalArgs, app: &coyote_config::AppConfig) -> crate::markdown::ThemeChoice {
    use crate::markdown::ThemeChoice;
    global.theme.unwrap_or(match app.theme {
        coyote_config::ThemeSetting::Auto => ThemeChoice::Auto,
        coyote_config::ThemeSetting::Dark => ThemeChoice::Dark,
        coyote_config::ThemeSetting::Light => ThemeChoice::Light,
    })
}
