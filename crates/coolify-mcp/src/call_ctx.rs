//! What one tool call may use: [`CallCtx`] (the target instance and its client, the server's
//! [`Mode`], the clocks, the confirmation policy and the caller's channel for progress and
//! elicitation), built by `server` for each `tools/call`.
//!
//! Ground floor of the crate: tool handlers, `confirm` and `server` import this module; it
//! imports none of them (the module-cycle test keeps it that way).
//!
//! Invariants:
//! - a handler reaches Coolify only through [`CallCtx::client`], which masks every body it
//!   returns (a plaintext read is an explicit per-request `Reveal`), so there is no unmasked
//!   path to take by accident;
//! - [`Mode`] is computed once at startup; the tool roster, `_actions` filtering and the
//!   prompts all derive from it, so they can never disagree about what is registered.

use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::{InputRequiredResult, InputResponses, ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use tokio_util::sync::CancellationToken;

use crate::audit::{Confirmation as Let, Reason};
use crate::config::{AccessMode, ElicitationSetting, HumanPolicy};
use crate::follow::FollowSlot;
use crate::instances::{Client, Instance, Instances};
use crate::request_state::ConfirmationSeal;

/// How the server runs: single instance or fleet, read-write or read-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// More than one instance is configured: tools take `instance`, `list_instances` and
    /// completion exist, resource URIs are instance-scoped.
    pub fleet: bool,
    /// Only tools annotated `readOnlyHint: true` are registered.
    pub read_only: bool,
}

impl Mode {
    /// The mode of a server over these instances with this access setting.
    pub fn new(instances: &Instances, access: AccessMode) -> Self {
        Self {
            fleet: instances.is_fleet(),
            read_only: access == AccessMode::ReadOnly,
        }
    }
}

/// Clocks that tests inject instead of waiting.
#[derive(Debug, Clone)]
pub struct Timing {
    /// How long a confirmation may wait for the human (reference: 300 s).
    pub elicitation_timeout: Duration,
    /// Progress keep-alive interval while a confirmation is pending.
    pub progress_interval: Duration,
    /// `deploy` with `wait`: poll interval (reference: 5 s).
    pub deploy_poll_interval: Duration,
    /// `deploy` with `wait`: overrides `timeout_seconds` when set.
    pub deploy_deadline: Option<Duration>,
    /// Per-instance deadline of `resources/list`, uuid completion and `list_instances`
    /// (default 5 s).
    pub listing_deadline: Duration,
    /// `scheduled_tasks run_once`: poll interval (reference: 5 s).
    pub task_poll_interval: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            elicitation_timeout: Duration::from_secs(300),
            progress_interval: Duration::from_secs(10),
            deploy_poll_interval: Duration::from_secs(5),
            deploy_deadline: None,
            listing_deadline: Duration::from_secs(5),
            task_poll_interval: Duration::from_secs(5),
        }
    }
}

/// The confirmation hook's policy: whether the client may be asked, and what happens to a
/// guarded operation when it cannot be. `crate::confirm` acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Confirmation {
    /// Whether asking the client is allowed at all.
    pub elicitation: ElicitationSetting,
    /// What to do when the client cannot be asked.
    pub human: HumanPolicy,
}

/// What the confirmation hook decided for one call; `call` reads it for the audit line and
/// for the 2026-07-28 `input_required` answer.
#[derive(Debug)]
pub enum Guard {
    /// The guarded operation ran, let through this way.
    Ran(Let),
    /// It did not run.
    Refused(Reason),
    /// 2026-07-28 round one: the call answers with this instead of a tool result.
    Awaiting(Box<InputRequiredResult>),
}

/// The per-call slot the confirmation hook writes (a lock held for a store or a take only,
/// never across an await).
#[derive(Debug, Default)]
pub struct CallRecord(Mutex<Option<Guard>>);

impl CallRecord {
    /// Record the decision (the last one wins; a call makes at most one).
    pub fn set(&self, guard: Guard) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(guard);
    }

    /// Take the decision, if any.
    pub fn take(&self) -> Option<Guard> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Marks a request served by `--stateless` HTTP (the HTTP layer puts it in the request's
/// extensions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatelessRequest;

/// Which confirmation path a call takes: decided by the protocol revision of the request.
pub enum Round<'a> {
    /// 2025-era: the server sends `elicitation/create` and waits.
    Legacy,
    /// 2026-07-28: `input_required` with sealed state, answered by a retried call.
    Modern(ModernRound<'a>),
}

/// A 2026-07-28 call's confirmation inputs.
pub struct ModernRound<'a> {
    /// `inputResponses` of a retried call.
    pub responses: Option<&'a InputResponses>,
    /// The echoed `requestState`.
    pub state: Option<&'a str>,
    /// Seals and opens the state.
    pub seal: &'a ConfirmationSeal,
    /// `<method> <oauth client id>`: the caller the state is bound to.
    pub binding: String,
}

/// Everything a tool handler may use.
pub struct CallCtx<'a> {
    /// The target instance's client; every body it returns is already masked.
    pub client: Client,
    /// The instance the call targets (named in fleet-mode confirmations).
    pub instance: &'a Instance,
    /// Every configured instance (`list_instances`).
    pub instances: &'a Instances,
    /// Fleet and read-only flags of this server.
    pub mode: Mode,
    /// Deadlines and intervals of long-running operations.
    pub timing: &'a Timing,
    /// How guarded operations are confirmed.
    pub confirmation: Confirmation,
    /// The calling client: progress notifications and elicitation requests go here.
    pub peer: Peer<RoleServer>,
    /// The progress token the client sent with the call, if any.
    pub progress: Option<ProgressToken>,
    /// Cancelled when the client cancels the tool call.
    pub cancel: CancellationToken,
    /// The client declared the elicitation capability (on this request, or at `initialize`).
    pub client_can_elicit: bool,
    /// The request came over `--stateless` HTTP: there is no session to send a request on.
    pub stateless: bool,
    /// Which confirmation path this call takes.
    pub round: Round<'a>,
    /// Where the confirmation hook records its decision.
    pub record: &'a CallRecord,
    /// Present when the client declared the tasks extension: a handler that started Coolify
    /// deployments hands them over here, and the call answers with a task that follows them.
    pub follow: Option<&'a FollowSlot>,
}

impl CallCtx<'_> {
    /// Send `notifications/progress` when the client asked for progress; best effort (a
    /// closed peer does not fail the call).
    pub async fn notify_progress(&self, progress: f64, message: String) {
        if let Some(token) = &self.progress {
            let p = ProgressNotificationParam::new(token.clone(), progress).with_message(message);
            let _ = self.peer.notify_progress(p).await;
        }
    }
}
