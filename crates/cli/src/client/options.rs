//! The ONE builder of the [`RuntimeOptions`] every runtime of the binary starts with
//! ([`RuntimeOptionsBuilder`]), and the parts of it a sign-in needs on its own
//! ([`auth_options`]).
//!
//! - Always: the client identity (`coyote` and this version), the sign-in settings (tokens in
//!   `<state>/oauth` or the keyring; no sign-in ever starts by itself — only `coyote mcp login`
//!   and `.mcp login` run one) and the protocol revisions offered ([`PROTOCOL_ENV`]).
//! - With [`RuntimeOptionsBuilder::client_features`]: sampling (a [`Sampler`] whose model comes
//!   from config.yaml / `--sampling-model`, and whose consent is `--allow-sampling` or the
//!   askers), elicitation (form and URL) by the askers, roots (the git root of the working
//!   directory, else the working directory) and server logs at `--mcp-log-level` (default
//!   warning). Unless the front end gives its own, the askers are the terminal questions on
//!   this process's terminal (declined with a stderr line when there is none) and server log
//!   lines go to stderr.
//! - With [`RuntimeOptionsBuilder::catalog_cache`]: servers with a fresh cached catalog can
//!   start lazily.
#![expect(
    clippy::print_stderr,
    reason = "a sign-in's warnings (a token store that cannot be used) go to stderr, the CLI's channel for notes"
)]

use std::sync::Arc;

use coyote_config::{
    AppConfig, ConfigPaths, ProcessEnv, SignInSettings, TokenStoreKind, load_app_config,
};
use coyote_mcp::auth::{AuthOptions, SignIn, TOKEN_DIR, TokenStoreChoice};
use coyote_mcp::catalog_cache::CatalogCache;
use coyote_mcp::{ClientIdentity, Roots, RuntimeOptions, ServerLogSink};
use coyote_session::{AllowSampling, Sampler, SamplingConsent};

use super::Askers;
use super::models::ConfigModels;
use crate::args::GlobalArgs;
use crate::ui::log_view::StderrLog;
use crate::ui::questions::{Interactivity, Questions};
use crate::ui::screen::Screen;

/// The environment variable that pins the MCP protocol revision of every server without a
/// `protocol` key of its own (`2025-11-25`, `2026-07-28`; `auto` or unset: negotiate).
pub const PROTOCOL_ENV: &str = "COYOTE_MCP_PROTOCOL";

/// Builds the [`RuntimeOptions`] of one runtime (see the module header for what each step
/// adds).
pub struct RuntimeOptionsBuilder<'a> {
    paths: &'a ConfigPaths,
    /// Set by [`RuntimeOptionsBuilder::client_features`]; the fields below only count with it.
    global: Option<&'a GlobalArgs>,
    /// config.yaml, or why it did not load (for the sampling model); read from `paths` when
    /// not given.
    config: Option<Result<AppConfig, String>>,
    askers: Option<Askers>,
    server_log: Option<Arc<dyn ServerLogSink>>,
    catalog_cache: Option<CatalogCache>,
}

impl<'a> RuntimeOptionsBuilder<'a> {
    /// Identity, sign-in settings and protocol revisions: all a sign-in (`login`) needs.
    pub fn new(paths: &'a ConfigPaths) -> Self {
        RuntimeOptionsBuilder {
            paths,
            global: None,
            config: None,
            askers: None,
            server_log: None,
            catalog_cache: None,
        }
    }

    /// Offers the client features (sampling, elicitation, roots, server logs) as `global`
    /// sets them.
    pub fn client_features(mut self, global: &'a GlobalArgs) -> Self {
        self.global = Some(global);
        self
    }

    /// config.yaml as the front end already loaded it (or why it did not load).
    pub fn config(mut self, config: Result<AppConfig, String>) -> Self {
        self.config = Some(config);
        self
    }

    /// Who asks the servers' questions, instead of this process's terminal (a REPL's own
    /// questions, or the daemon forwarding them to the command that is running).
    /// `--allow-sampling` still approves sampling without asking.
    pub fn askers(mut self, askers: Askers) -> Self {
        self.askers = Some(askers);
        self
    }

    /// Where server log lines are shown, instead of stderr.
    pub fn server_log(mut self, sink: Arc<dyn ServerLogSink>) -> Self {
        self.server_log = Some(sink);
        self
    }

    /// Declares servers with a fresh catalog in `cache` from it (lazy start).
    pub fn catalog_cache(mut self, cache: CatalogCache) -> Self {
        self.catalog_cache = Some(cache);
        self
    }

    /// The options.
    pub fn build(self) -> RuntimeOptions {
        let base = RuntimeOptions {
            catalog_cache: self.catalog_cache,
            protocol_memory: Some(catalog_cache(self.paths)),
            ..base_options(self.paths)
        };
        let Some(global) = self.global else {
            return base;
        };
        let config = self
            .config
            .unwrap_or_else(|| load_app_config(self.paths, &ProcessEnv).map_err(|e| e.to_string()));
        let askers = self
            .askers
            .unwrap_or_else(|| Askers::on(&Questions::new(Screen::new(), Interactivity::detect())));
        let server_log = self
            .server_log
            .unwrap_or_else(|| Arc::new(StderrLog::new()));
        let consent: Arc<dyn SamplingConsent> = if global.allow_sampling {
            Arc::new(AllowSampling)
        } else {
            askers.consent
        };
        let models = ConfigModels::new(config, global.sampling_model.clone());
        let sampler = Sampler::new(Arc::new(models), consent);
        let roots = match std::env::current_dir() {
            Ok(cwd) => Some(Roots::for_working_dir(&cwd)),
            Err(e) => {
                tracing::warn!("no roots offered: cannot read the working directory: {e}");
                None
            }
        };
        RuntimeOptions {
            elicitation: askers.elicitation,
            sampling: Some(Arc::new(sampler)),
            roots,
            server_log,
            mcp_log_level: global.mcp_log_level.unwrap_or_default(),
            ..base
        }
    }
}

/// What every runtime has: identity, sign-in settings, protocol revisions.
fn base_options(paths: &ConfigPaths) -> RuntimeOptions {
    RuntimeOptions {
        client: ClientIdentity {
            name: "coyote".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        auth: auth_options(paths),
        protocol: protocol_revisions(),
        // A big binary blob goes to the spill store while it arrives (the dispatcher's store).
        blob_dir: Some(paths.mcp_resources_dir()),
        ..RuntimeOptions::default()
    }
}

/// Where servers' catalogs (and the handshake each answered) are cached:
/// `<cache>/mcp-catalogs`.
pub fn catalog_cache(paths: &ConfigPaths) -> CatalogCache {
    CatalogCache::new(paths.cache_dir().join("mcp-catalogs"))
}

/// The revisions servers are offered: 2026-07-28 first with the fallback to 2025-11-25
/// (negotiated, remembered per server), unless `COYOTE_MCP_PROTOCOL` pins one. A value that
/// is not a revision is reported once and negotiation goes on.
fn protocol_revisions() -> coyote_mcp::ProtocolRevisions {
    use coyote_mcp::ProtocolRevisions;
    let Ok(value) = std::env::var(PROTOCOL_ENV) else {
        return ProtocolRevisions::Newest;
    };
    match coyote_protocol::ProtocolPin::parse(value.trim()) {
        Some(coyote_protocol::ProtocolPin::V2025_11_25) => ProtocolRevisions::Initialize,
        Some(coyote_protocol::ProtocolPin::V2026_07_28) => ProtocolRevisions::Discover,
        None => {
            if !matches!(value.trim(), "" | "auto") {
                eprintln!(
                    "coyote: warning: {PROTOCOL_ENV}={value:?} is not a protocol revision \
                     (auto, 2025-11-25 or 2026-07-28); negotiating"
                );
            }
            ProtocolRevisions::Newest
        }
    }
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

/// OAuth settings of every runtime (and of `logout`): tokens in `<state>/oauth` (or the
/// keyring), and no sign-in ever starts (only `coyote mcp login` / `.mcp login` run one).
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
        progress: None,
    }
}
