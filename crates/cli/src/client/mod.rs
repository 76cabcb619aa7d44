//! What the MCP client features need from the `coyote` binary, for every front-end alike (the
//! REPL, one-shot chat, `coyote mcp …`): the [`RuntimeOptions`] that advertise sampling, roots,
//! URL elicitation and logging, with the hooks that answer them —
//!
//! - sampling: a [`Sampler`] whose model comes from config.yaml / `--sampling-model`
//!   ([`models`]) and whose consent is `--allow-sampling` or the terminal questions (which
//!   decline, with a stderr line, when there is no terminal);
//! - elicitation (form and URL): the terminal questions, the same widgets everywhere;
//! - roots: the git root of the working directory, else the working directory;
//! - server logs: at `--mcp-log-level` (default warning), shown by a [`ServerLogSink`] of the
//!   front-end ([`log_view`]).
//!
//! Terminal checks and the sanitizer are the shared [`crate::term`].

pub mod models;

use std::sync::Arc;

use coyote_config::{AppConfig, ConfigPaths};
use coyote_mcp::{ElicitationHook, Roots, RuntimeOptions, ServerLogSink};
use coyote_session::{AllowSampling, Sampler, SamplingConsent};

use crate::args::GlobalArgs;
use crate::ui::questions::Questions;

/// The runtime options of a front-end: `questions` asks (or declines without a terminal),
/// `server_log` shows server log lines, `config` is config.yaml (or why it did not load) for
/// the sampling model; the rest (client name, sign-in) is [`crate::setup::runtime_options`].
pub fn runtime_options(
    global: &GlobalArgs,
    config: Result<AppConfig, String>,
    questions: &Questions,
    server_log: Arc<dyn ServerLogSink>,
    paths: &ConfigPaths,
) -> RuntimeOptions {
    runtime_options_asking(global, config, Askers::on(questions), server_log, paths)
}

/// Who asks the user a server's questions: elicitation and sampling consent.
#[derive(Clone)]
pub struct Askers {
    pub elicitation: Arc<dyn ElicitationHook>,
    pub consent: Arc<dyn SamplingConsent>,
}

impl Askers {
    /// Both asked by `questions` (on this process's terminal, or declined without one).
    pub fn on(questions: &Questions) -> Self {
        Askers {
            elicitation: Arc::new(questions.clone()),
            consent: Arc::new(questions.clone()),
        }
    }
}

/// [`runtime_options`] with the questions asked by `askers` (a session daemon forwards them
/// to the command that is running); `--allow-sampling` still approves sampling without asking.
pub fn runtime_options_asking(
    global: &GlobalArgs,
    config: Result<AppConfig, String>,
    askers: Askers,
    server_log: Arc<dyn ServerLogSink>,
    paths: &ConfigPaths,
) -> RuntimeOptions {
    let consent: Arc<dyn SamplingConsent> = if global.allow_sampling {
        Arc::new(AllowSampling)
    } else {
        askers.consent
    };
    let models = models::ConfigModels::new(config, global.sampling_model.clone());
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
        ..crate::setup::runtime_options(paths)
    }
}
