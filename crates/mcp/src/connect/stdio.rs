//! stdio servers: the child process and its lifecycle.
//!
//! Invariants:
//! - The child leads its own process group (`ProcessGroup::leader`), so signals reach the
//!   `npx`/`uvx` wrapper *and* the real server it starts; after the leader is gone, the group is
//!   SIGKILLed once more so no grandchild outlives shutdown or a crash.
//! - stderr is piped (never inherited: it would garble the UI) into `tracing` with the server
//!   name, rate-limited, and its last lines are kept in a bounded ring for `Failed` reasons
//!   (`stderr.rs`).
//! - Shutdown is explicit and bounded: close stdin, wait, SIGTERM the group, wait, SIGKILL the
//!   group. A monitor task owns the child; if everything is dropped without a shutdown (runtime
//!   teardown), the guard's `Drop` SIGKILLs the group synchronously, never via a spawned task.

use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use coyote_protocol::StdioSpec;
use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessGroup};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{oneshot, watch};

use super::line::{LineTransport, WriteHalf};
pub(crate) use super::stderr::StderrTail;
use super::stderr::pump_stderr;
use crate::error::McpError;
use crate::server::ShutdownTimeouts;

/// How long a crash report waits for the exit status.
const CRASH_EXIT_WAIT: Duration = Duration::from_secs(2);
/// How long a crash report waits for the last stderr lines.
const CRASH_STDERR_WAIT: Duration = Duration::from_millis(500);

/// How a child process ended.
#[derive(Debug, Clone)]
pub(crate) enum ExitInfo {
    Exited(String),
    Unknown(String),
}

impl std::fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitInfo::Exited(s) | ExitInfo::Unknown(s) => f.write_str(s),
        }
    }
}

fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => format!("exited ({status})"),
    }
}

/// A running stdio server process.
pub(crate) struct StdioProcess {
    server: String,
    pid: Option<u32>,
    stdin: WriteHalf<ChildStdin>,
    stderr: Arc<StderrTail>,
    stop: Option<oneshot::Sender<ShutdownTimeouts>>,
    exit: watch::Receiver<Option<ExitInfo>>,
}

pub(crate) type StdioTransport = LineTransport<ChildStdout, ChildStdin>;

/// Spawns the server in its own process group with all three stdio streams piped.
pub(crate) fn spawn(
    server: &str,
    spec: &StdioSpec,
    max_message_bytes: usize,
) -> Result<(StdioTransport, StdioProcess), McpError> {
    let mut command = tokio::process::Command::new(&spec.command);
    command
        .args(&spec.args)
        .envs(&spec.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    let mut wrap = CommandWrap::from(command);
    wrap.wrap(ProcessGroup::leader());
    let spawn_error = |source: std::io::Error| McpError::Spawn {
        server: server.to_owned(),
        command: spec.command.clone(),
        source,
    };
    let mut child = wrap.spawn().map_err(spawn_error)?;
    let taken = (
        child.stdin().take(),
        child.stdout().take(),
        child.stderr().take(),
    );
    let (Some(stdin), Some(stdout), Some(stderr)) = taken else {
        let mut guard = ChildGuard {
            pid: child.id(),
            child,
            reaped: false,
        };
        guard.kill_group();
        return Err(spawn_error(std::io::Error::other(
            "the child's stdio pipes are missing",
        )));
    };
    let pid = child.id();
    if let Some(pid) = pid {
        super::groups::register(pid);
    }
    let tail = Arc::new(StderrTail::default());
    tokio::spawn(pump_stderr(server.to_owned(), stderr, tail.clone()));

    let transport = LineTransport::new(server, stdout, stdin, max_message_bytes);
    let (stop_tx, stop_rx) = oneshot::channel();
    let (exit_tx, exit_rx) = watch::channel(None);
    tokio::spawn(monitor(
        server.to_owned(),
        ChildGuard {
            pid,
            child,
            reaped: false,
        },
        stop_rx,
        exit_tx,
    ));
    tracing::info!(server, pid, command = %spec.command, "started MCP server process");
    let process = StdioProcess {
        server: server.to_owned(),
        pid,
        stdin: transport.write_half(),
        stderr: tail,
        stop: Some(stop_tx),
        exit: exit_rx,
    };
    Ok((transport, process))
}

impl StdioProcess {
    /// The server's configured name.
    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub(crate) fn stderr(&self) -> &Arc<StderrTail> {
        &self.stderr
    }

    /// A view that can explain, later, how the process ended.
    pub(crate) fn observer(&self) -> ProcessObserver {
        ProcessObserver {
            exit: self.exit.clone(),
            stderr: self.stderr.clone(),
        }
    }

    /// Waits (bounded) for the process to end on its own; `None` if it is still running.
    pub(crate) async fn wait_exit(&self, wait: Duration) -> Option<ExitInfo> {
        let mut exit = self.exit.clone();
        let waited = tokio::time::timeout(wait, async {
            exit.wait_for(Option::is_some)
                .await
                .ok()
                .and_then(|info| info.clone())
        })
        .await;
        waited.ok().flatten()
    }

    /// Close stdin, wait, SIGTERM the group, wait, SIGKILL the group; every step bounded by
    /// `timeouts`. Returns how the process ended.
    pub(crate) async fn shutdown(&mut self, timeouts: ShutdownTimeouts) -> ExitInfo {
        self.stdin.close(timeouts.after_stdin_close).await;
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(timeouts);
        }
        let total = timeouts.after_stdin_close + timeouts.after_sigterm + timeouts.after_sigkill;
        let info = self
            .wait_exit(total + Duration::from_millis(500))
            .await
            .unwrap_or_else(|| ExitInfo::Unknown("did not exit after SIGKILL".to_owned()));
        // The last lines (and the stderr budget's summary) reach the log before we return.
        self.stderr.drained(CRASH_STDERR_WAIT).await;
        info
    }
}

/// Watches a process from elsewhere (the runtime's crash watcher).
#[derive(Clone)]
pub(crate) struct ProcessObserver {
    exit: watch::Receiver<Option<ExitInfo>>,
    stderr: Arc<StderrTail>,
}

impl ProcessObserver {
    /// "the server process exited with status 1; stderr tail: …" (bounded waits).
    pub(crate) async fn describe_end(&self) -> String {
        let mut exit = self.exit.clone();
        let waited = tokio::time::timeout(CRASH_EXIT_WAIT, async {
            exit.wait_for(Option::is_some)
                .await
                .ok()
                .and_then(|info| info.clone())
        })
        .await;
        let how = match waited {
            Ok(Some(info)) => info.to_string(),
            _ => "closed its stdout".to_owned(),
        };
        self.stderr.drained(CRASH_STDERR_WAIT).await;
        format!("the server process {how}{}", self.stderr.describe())
    }
}

/// Owns the child; SIGKILLs its group when dropped unreaped.
struct ChildGuard {
    /// The leader's pid, which is the group id (registered in `groups`).
    pid: Option<u32>,
    child: Box<dyn ChildWrapper>,
    reaped: bool,
}

impl ChildGuard {
    /// SIGKILL to the whole group (ESRCH when it is already empty is fine).
    fn kill_group(&mut self) {
        let _ = self.child.signal(libc::SIGKILL);
    }

    /// The leader was reaped: kill what is left of its group and forget the group.
    fn reaped(&mut self) {
        self.reaped = true;
        self.kill_group();
        if let Some(pid) = self.pid {
            super::groups::forget(pid);
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill_group();
            if let Some(pid) = self.pid {
                super::groups::forget(pid);
            }
        }
    }
}

async fn monitor(
    server: String,
    mut guard: ChildGuard,
    stop: oneshot::Receiver<ShutdownTimeouts>,
    exit: watch::Sender<Option<ExitInfo>>,
) {
    let stop_plan = tokio::select! {
        status = guard.child.wait() => {
            // Orphaned grandchildren (npx/uvx style) would outlive the leader otherwise.
            guard.reaped();
            let info = match status {
                Ok(status) => ExitInfo::Exited(describe_status(status)),
                Err(e) => ExitInfo::Unknown(format!("wait failed: {e}")),
            };
            tracing::info!(server, %info, "MCP server process ended");
            let _ = exit.send(Some(info));
            return;
        }
        plan = stop => plan.unwrap_or(ShutdownTimeouts::IMMEDIATE),
    };
    let info = stop_child(&server, &mut guard, stop_plan).await;
    let _ = exit.send(Some(info));
}

async fn stop_child(server: &str, guard: &mut ChildGuard, plan: ShutdownTimeouts) -> ExitInfo {
    let steps = [
        (None, plan.after_stdin_close),
        (Some(libc::SIGTERM), plan.after_sigterm),
        (Some(libc::SIGKILL), plan.after_sigkill),
    ];
    for (signal, wait) in steps {
        if let Some(signal) = signal {
            tracing::debug!(server, signal, "signalling MCP server process group");
            let _ = guard.child.signal(signal);
        }
        if let Ok(status) = tokio::time::timeout(wait, guard.child.wait()).await {
            guard.reaped();
            return match status {
                Ok(status) => ExitInfo::Exited(describe_status(status)),
                Err(e) => ExitInfo::Unknown(format!("wait failed: {e}")),
            };
        }
    }
    tracing::warn!(server, "MCP server process did not exit after SIGKILL");
    ExitInfo::Unknown("did not exit after SIGKILL".to_owned())
}
