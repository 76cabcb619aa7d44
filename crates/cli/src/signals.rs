//! SIGINT, SIGTERM and SIGHUP in every mode: no MCP server process may
//! outlive `coyote`, whatever stops it.
//!
//! - One watcher task per process, installed before any server starts. The first signal is
//!   recorded and cancels [`token`]: one-shot chat cancels its turn, `coyote mcp …` drops its
//!   request (in-flight calls get `notifications/cancelled`), and both then shut their servers
//!   down the usual way — stdin closed, then SIGTERM and SIGKILL to each process group, each
//!   step bounded by the grace period. The exit code is then 128 + the signal (130 SIGINT,
//!   143 SIGTERM, 129 SIGHUP), whatever the command returned ([`exit_code`]).
//! - A second signal (any of the three) does not wait: every server's process group is
//!   SIGKILLed at once ([`coyote_mcp::kill_every_process_group`]) and the process exits.
//! - The REPL runs on the main thread outside the runtime and owns SIGINT itself (Ctrl-C
//!   cancels a turn or clears the line), so in [`Mode::Repl`] only SIGTERM and SIGHUP are
//!   watched, and the watcher itself shuts the registered runtimes down ([`register`]),
//!   restores the terminal mode and exits: the REPL may be blocked reading a line.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

use coyote_mcp::McpRuntime;
use coyote_session::CancellationToken;
use tokio::signal::unix::{Signal, SignalKind, signal};

/// Which signals the watcher owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One-shot chat and every subcommand: SIGINT, SIGTERM and SIGHUP.
    Command,
    /// The REPL: SIGTERM and SIGHUP (SIGINT belongs to the REPL).
    Repl,
}

#[derive(Default)]
struct Shared {
    token: CancellationToken,
    /// The first signal received (0: none yet).
    first: AtomicI32,
    /// Runtimes the REPL watcher shuts down itself.
    runtimes: Mutex<Vec<McpRuntime>>,
    /// The terminal mode at install time (REPL), restored before a forced exit.
    termios: Mutex<Option<rustix::termios::Termios>>,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(Shared::default)
}

/// How long a command that dropped its requests after a signal waits before shutting its
/// servers down, so the `notifications/cancelled` sent from detached tasks are written.
pub const CANCEL_FLUSH_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// The error of a command stopped by a signal: "stopped by SIGTERM" (its exit code is
/// replaced by [`exit_code`] in `main`).
pub fn stopped() -> crate::exit::CliError {
    match received() {
        Some(numbers::SIGINT) | None => crate::exit::CliError::interrupted("interrupted"),
        Some(signal) => crate::exit::CliError::interrupted(format!("stopped by {}", name(signal))),
    }
}

/// Cancelled once the first signal arrived.
pub fn token() -> CancellationToken {
    shared().token.clone()
}

/// The first signal received, if any.
pub fn received() -> Option<i32> {
    match shared().first.load(Ordering::Acquire) {
        0 => None,
        signal => Some(signal),
    }
}

/// The exit code after `signal`: 128 + its number, like a shell.
pub fn exit_code(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}

/// "SIGTERM" and the like.
pub fn name(signal: i32) -> &'static str {
    match signal {
        numbers::SIGINT => "SIGINT",
        numbers::SIGTERM => "SIGTERM",
        numbers::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Signal numbers (Linux and the BSDs agree on these three).
mod numbers {
    pub const SIGHUP: i32 = 1;
    pub const SIGINT: i32 = 2;
    pub const SIGTERM: i32 = 15;
}

/// Makes the REPL watcher shut `runtime` down before exiting.
pub fn register(runtime: &McpRuntime) {
    shared()
        .runtimes
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(runtime.clone());
}

/// Installs the handlers (replacing the default dispositions) and starts the watcher. Must
/// run inside the tokio runtime. A handler that cannot be installed is logged and skipped.
pub fn install(mode: Mode) {
    let mut kinds = vec![
        (SignalKind::terminate(), numbers::SIGTERM),
        (SignalKind::hangup(), numbers::SIGHUP),
    ];
    if mode == Mode::Command {
        kinds.push((SignalKind::interrupt(), numbers::SIGINT));
    }
    let mut streams = Vec::new();
    for (kind, number) in kinds {
        match signal(kind) {
            Ok(stream) => streams.push((stream, number)),
            Err(e) => tracing::warn!(signal = name(number), error = %e, "cannot watch signal"),
        }
    }
    if mode == Mode::Repl {
        let saved = rustix::termios::tcgetattr(std::io::stdin()).ok();
        *shared().termios.lock().unwrap_or_else(|p| p.into_inner()) = saved;
    }
    tokio::spawn(watch(streams, mode));
}

/// The next signal of any of `streams`; `None` when none can arrive any more.
async fn next(streams: &mut [(Signal, i32)]) -> Option<i32> {
    if streams.is_empty() {
        return None;
    }
    let waits = streams.iter_mut().map(|(stream, number)| {
        let number = *number;
        Box::pin(async move { stream.recv().await.map(|()| number) })
    });
    futures::future::select_all(waits).await.0
}

async fn watch(mut streams: Vec<(Signal, i32)>, mode: Mode) {
    let Some(first) = next(&mut streams).await else {
        return;
    };
    shared().first.store(first, Ordering::Release);
    tracing::info!(
        signal = name(first),
        "stopping: cancelling calls and shutting the MCP servers down"
    );
    shared().token.cancel();
    if mode == Mode::Repl {
        tokio::spawn(stop_repl(first));
    }
    if let Some(second) = next(&mut streams).await {
        tracing::warn!(
            signal = name(second),
            "second signal: killing the MCP servers' process groups at once"
        );
        exit_now(first);
    }
}

/// Kills every server's group, restores the terminal and exits with `first`'s code.
fn exit_now(first: i32) -> ! {
    coyote_mcp::kill_every_process_group();
    restore_terminal();
    std::process::exit(i32::from(exit_code(first)));
}

/// The REPL cannot be interrupted in its line editor: shut the servers down from here.
async fn stop_repl(first: i32) {
    let runtimes = shared()
        .runtimes
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    futures::future::join_all(runtimes.iter().map(McpRuntime::shutdown)).await;
    // Out of the line editor's raw mode first, so the message starts on its own line.
    restore_terminal();
    crate::term::eprint_line(&format!("\ncoyote: stopped by {}", name(first)));
    exit_now(first);
}

fn restore_terminal() {
    let saved = shared()
        .termios
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    if let Some(termios) = saved {
        let _ = rustix::termios::tcsetattr(
            std::io::stdin(),
            rustix::termios::OptionalActions::Now,
            &termios,
        );
    }
}
