//! The binary's MCP client, the same for every front end (the REPL, one-shot chat,
//! `coyote mcp …`, the daemon of `coyote mcp session`): the one [`RuntimeOptionsBuilder`]
//! every runtime's options come from ([`options`]), who answers the servers' questions
//! ([`Askers`]), and which model answers a server's sampling request ([`models`]).
//!
//! The questions themselves and the server log view are the shared terminal floor
//! ([`crate::ui`]); terminal checks and the sanitizer are [`crate::term`].

pub mod models;
pub mod options;

use std::sync::Arc;

use coyote_mcp::ElicitationHook;
use coyote_session::SamplingConsent;

pub use options::{PROTOCOL_ENV, RuntimeOptionsBuilder, auth_options, catalog_cache};

use crate::ui::questions::Questions;

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
