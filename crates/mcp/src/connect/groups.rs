//! The process groups of every stdio server this process started and has not yet seen end,
//! so that a signal handler can kill them all at once before the process exits: a
//! second SIGINT/SIGTERM/SIGHUP must not wait for the graceful shutdown, and
//! `std::process::exit` runs no destructor that would do it.
//!
//! Invariants: a group is registered right after its leader is spawned and removed once the
//! monitor has reaped the leader *and* SIGKILLed the group, so a registered id never names a
//! group that was already cleaned up (no stray signal to a reused id is possible while the
//! leader is unreaped, since its pid stays reserved).

use std::collections::BTreeSet;
use std::sync::Mutex;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn live() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records the group led by `pid` (the leader's pid is the group id).
pub(crate) fn register(pid: u32) {
    if let Ok(pgid) = i32::try_from(pid) {
        live().insert(pgid);
    }
}

/// Forgets the group led by `pid` (its leader was reaped and the group killed).
pub(crate) fn forget(pid: u32) {
    if let Ok(pgid) = i32::try_from(pid) {
        live().remove(&pgid);
    }
}

/// SIGKILLs every registered process group at once and returns how many there were. For a
/// process about to exit (a second signal): the monitors that would reap them may never run.
pub fn kill_every_process_group() -> usize {
    let groups: Vec<i32> = live().iter().copied().collect();
    for pgid in &groups {
        // ESRCH (already empty) is fine.
        let _ = killpg(Pid::from_raw(*pgid), Signal::SIGKILL);
        tracing::warn!(pgid, "killed an MCP server's process group at once");
    }
    groups.len()
}
