//! Everything a command needs before it talks to a server: resolved paths, the logging file,
//! the merged MCP configuration (with the project-trust question asked or refused), and a
//! runtime with the chosen servers started. Configuration problems become usage errors (exit 2)
//! whose text names the file, the key and the fix (the config crate words them).
#![allow(
    clippy::print_stderr,
    reason = "this command's notes and warnings go to stderr, the CLI's channel for everything but results"
)]

use std::io::{BufRead, IsTerminal, Write};

use std::sync::Arc;

use coyote_config::{
    ConfigPaths, McpConfig, McpLoader, PathOverrides, ProcessEnv, ServerDefaults, SignInSettings,
    TokenStoreKind, TrustDecision, TrustStore, load_app_config,
};
use coyote_mcp::auth::{AuthOptions, SignIn, TOKEN_DIR, TokenStoreChoice};
use coyote_mcp::catalog_cache::CatalogCache;
use coyote_mcp::{ClientIdentity, McpRuntime, RuntimeOptions};
use coyote_protocol::McpServerSpec;

use crate::args::GlobalArgs;
use crate::exit::{CliError, CliResult};
use crate::ui::questions::{Interactivity, Questions};
use crate::ui::screen::Screen;

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
    // An unusable entry disables its server only; the others start (issue 14).
    for broken in &config.broken {
        crate::capture::stderr_line(&format!("coyote: warning: {broken}"));
    }
    Ok(config)
}

/// config.yaml's defaults for mcp.json entries (its `expose`, issue 7). A config.yaml that does
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

fn ask_trust(path: &str) -> TrustDecision {
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

/// config.yaml's sign-in settings (the defaults when it does not load: the commands that need
/// the file report its error; `$COYOTE_TOKEN_STORE` is honoured either way).
fn sign_in_settings(paths: &ConfigPaths) -> SignInSettings {
    match load_app_config(paths, &ProcessEnv) {
        Ok(app) => app.sign_in,
        Err(_) => SignInSettings {
            token_store: std::env::var(coyote_config::TOKEN_STORE_ENV)
                .ok()
                .and_then(|v| TokenStoreKind::parse(&v))
                .unwrap_or_default(),
            ..SignInSettings::default()
        },
    }
}

/// OAuth settings of every runtime: tokens in `<state>/oauth` (or the keyring), and no sign-in
/// ever starts (only `coyote mcp login` / `.mcp login` run one; see [`login_authorizer`]).
pub fn auth_options(paths: &ConfigPaths) -> AuthOptions {
    let settings = sign_in_settings(paths);
    let dir = paths.state_dir().join(TOKEN_DIR);
    AuthOptions {
        store: match settings.token_store {
            TokenStoreKind::File => TokenStoreChoice::File(dir),
            TokenStoreKind::Keyring => TokenStoreChoice::Keyring { fallback: dir },
        },
        sign_in: SignIn::Never,
        login_timeout: settings.login_timeout,
        client_name: "coyote".into(),
        warn: Some(Arc::new(|message: &str| {
            eprintln!("coyote: warning: {message}")
        })),
    }
}

/// The environment variable that opts in to MCP protocol revision 2026-07-28.
pub const PROTOCOL_ENV: &str = "COYOTE_MCP_PROTOCOL";

/// `COYOTE_MCP_PROTOCOL=2026-07-28` offers servers protocol 2026-07-28 (`server/discover`,
/// falling back to `initialize` with 2025-11-25); anything else keeps 2025-11-25.
pub fn protocol_revisions() -> coyote_mcp::ProtocolRevisions {
    match std::env::var(PROTOCOL_ENV).as_deref() {
        Ok("2026-07-28") => coyote_mcp::ProtocolRevisions::Newest,
        _ => coyote_mcp::ProtocolRevisions::Initialize,
    }
}

/// The options of a runtime started by the CLI.
pub fn runtime_options(paths: &ConfigPaths) -> RuntimeOptions {
    RuntimeOptions {
        client: ClientIdentity {
            name: "coyote".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        auth: auth_options(paths),
        protocol: protocol_revisions(),
        ..RuntimeOptions::default()
    }
}

/// The browser sign-in of `login`: `$BROWSER` (or xdg-open/open) plus a loopback listener; the
/// URL and any browser trouble are printed on stderr.
pub fn login_authorizer() -> Arc<coyote_mcp::auth::BrowserAuthorizer> {
    Arc::new(coyote_mcp::auth::BrowserAuthorizer::from_env(Arc::new(
        |message: &str| eprintln!("coyote: {message}"),
    )))
}

/// A chat's runtime: servers with a fresh cached catalog (`"start": "lazy"`, the default) are
/// declared from it and start on their first call; the others start now (issue 14).
pub async fn start_lazily(
    global: &GlobalArgs,
    paths: &ConfigPaths,
    specs: Vec<McpServerSpec>,
) -> McpRuntime {
    let runtime = McpRuntime::new(RuntimeOptions {
        catalog_cache: Some(catalog_cache(paths)),
        ..cli_runtime_options(global, paths, None)
    });
    runtime.start_all_lazily(specs).await;
    runtime
}

/// A runtime with no server started yet, with the client features of a command-line run:
/// questions on the terminal when there is one (declined with a stderr line otherwise) and
/// server log lines on stderr. The `coyote mcp` commands start their servers in it (always
/// live: they talk to the servers) under the signal watcher (`signals.rs`).
/// With `askers`, the servers' questions go there instead (a session daemon forwards them
/// to the command that is running).
pub fn runtime_with(
    global: &GlobalArgs,
    paths: &ConfigPaths,
    askers: Option<crate::client::Askers>,
) -> McpRuntime {
    McpRuntime::new(cli_runtime_options(global, paths, askers))
}

/// The options of a command-line run's runtime (see [`runtime_with`]).
fn cli_runtime_options(
    global: &GlobalArgs,
    paths: &ConfigPaths,
    askers: Option<crate::client::Askers>,
) -> RuntimeOptions {
    let config = load_app_config(paths, &ProcessEnv).map_err(|e| e.to_string());
    let askers = askers.unwrap_or_else(|| {
        crate::client::Askers::on(&Questions::new(Screen::new(), Interactivity::detect()))
    });
    crate::client::runtime_options_asking(
        global,
        config,
        askers,
        Arc::new(crate::ui::log_view::StderrLog::new()),
        paths,
    )
}

/// Where servers' catalogs are cached: `<cache>/mcp-catalogs`.
pub fn catalog_cache(paths: &ConfigPaths) -> CatalogCache {
    CatalogCache::new(paths.cache_dir().join("mcp-catalogs"))
}

/// The theme: `--theme`, else config.yaml `theme`, else auto.
pub fn theme(global: &GlobalArgs, app: &coyote_config::AppConfig) -> crate::markdown::ThemeChoice {
    use crate::markdown::ThemeChoice;
    global.theme.unwrap_or(match app.theme {
        coyote_config::ThemeSetting::Auto => ThemeChoice::Auto,
        coyote_config::ThemeSetting::Dark => ThemeChoice::Dark,
        coyote_config::ThemeSetting::Light => ThemeChoice::Light,
    })
}
