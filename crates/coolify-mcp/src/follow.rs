//! What a tool call hands over when it becomes an MCP task (the tasks extension): the Coolify
//! deployments it started, which of them decide its status, and — for `deploy` — how to
//! build the waited answer once they settle. A handler fills the call's [`FollowSlot`]; `call`
//! turns a filled slot into a task (`tasks`), an empty one into today's answer.
//!
//! Ground floor beside `call_ctx` (which carries the slot): it imports nothing of the crate.
//!
//! Invariants: a handler fills the slot only after Coolify accepted the operation (the side
//! effect happened, so the task reports on it); the slot is offered only to calls whose
//! client declared the tasks extension, so other clients never reach this code.

use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

/// `deploy` as a task: what the blocking `deploy` with `wait: true` adds once the first
/// deployment settled (or its deadline passed).
#[derive(Debug, Clone, PartialEq)]
pub struct DeployWait {
    /// The uuids of the other deployments the trigger started (listed, not waited for).
    pub additional: Vec<Value>,
    /// `timeout_seconds` as given (it is quoted in the timed-out answer).
    pub timeout_s: f64,
}

/// The deployments a task follows.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The deployments whose status the task reports; it settles when all are terminal.
    pub watch: Vec<String>,
    /// The deployments `tasks/cancel` cancels in Coolify (the watched ones and any other the
    /// call started).
    pub cancel: Vec<String>,
    /// How long the task follows them before it settles anyway.
    pub deadline: Duration,
    /// `Some` for `deploy`: the answer is built from the first deployment's final state;
    /// `None`: the answer is the handler's own (what the blocking call returned at once).
    pub deploy: Option<DeployWait>,
}

/// The per-call slot a handler fills to become a task (a lock held for a store or a take
/// only, never across an await).
#[derive(Debug, Default)]
pub struct FollowSlot(Mutex<Option<Pending>>);

impl FollowSlot {
    /// Hand the deployments over (the last call wins; a handler makes at most one).
    pub fn set(&self, pending: Pending) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(pending);
    }

    /// What was handed over, if anything.
    pub fn take(&self) -> Option<Pending> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Whether a Coolify deployment status is final.
pub fn terminal(status: &str) -> bool {
    matches!(
        status,
        "finished" | "failed" | "cancelled" | "cancelled-by-user"
    )
}

/// The deployment uuid(s) a Coolify answer names: `{deployment_uuid}` (restart, start) or
/// `{deployments: [{deployment_uuid}, …]}` (deploy).
pub fn deployment_uuids(answer: &Value) -> Vec<String> {
    let one = |v: &Value| {
        v.get("deployment_uuid")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let mut out: Vec<String> = one(answer).into_iter().collect();
    if let Some(list) = answer.get("deployments").and_then(Value::as_array) {
        out.extend(list.iter().filter_map(one));
    }
    out
}

/// How long a task follows the deployments of a call that already has its answer (a restart,
/// a project redeploy) before it settles with that answer anyway.
pub const FOLLOW_LIMIT: Duration = Duration::from_secs(3600);

/// Hand the deployments a call's Coolify answers named to the task, when the call may become
/// one and there is something to follow; the call's own answer is the task's.
pub fn hand_over(slot: Option<&FollowSlot>, mut uuids: Vec<String>) {
    // A project's apps can share one deployment (a tag deploy): follow and cancel it once.
    let mut seen = std::collections::HashSet::new();
    uuids.retain(|u| seen.insert(u.clone()));
    if let Some(slot) = slot.filter(|_| !uuids.is_empty()) {
        slot.set(Pending {
            cancel: uuids.clone(),
            watch: uuids,
            deadline: FOLLOW_LIMIT,
            deploy: None,
        });
    }
}
