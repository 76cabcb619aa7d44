//! What is known of one server, whatever talks to it (the ground floor of the host): its
//! lifecycle state ([`ServerState`]) and the waitable cell a runtime slot and its handles share,
//! its status row, what it said about itself in the handshake ([`ServerInfo`],
//! [`ServerCapabilityFlags`]), what it offers ([`McpServerFeatures`]), and the bounds of
//! stopping it ([`ShutdownTimeouts`]).
//!
//! Invariants: a state only moves forward from Idle and Starting (Idle → Starting once, by the
//! caller that starts the server); `Failed` is set only over `Ready` by
//! the crash watcher, so a server being closed is never reported as crashed. Plain data: this
//! module imports no other module of the crate.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

/// Lifecycle state of one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", content = "reason", rename_all = "snake_case")]
pub enum ServerState {
    /// Not started: declared from its cached catalog; the first call that needs it starts it.
    Idle,
    /// Connecting and handshaking.
    Starting,
    /// Handshake done; requests are served.
    Ready,
    /// Why it failed, including the stderr tail of a stdio server.
    Failed(String),
    /// The server wants a sign-in (OAuth) that only `coyote mcp login NAME` starts.
    NeedsAuth,
    /// Shut down, or never to be used again.
    Closed,
}

impl std::fmt::Display for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerState::Idle => f.write_str("idle (cached)"),
            ServerState::Starting => f.write_str("starting"),
            ServerState::Ready => f.write_str("ready"),
            ServerState::Failed(reason) => write!(f, "failed: {reason}"),
            ServerState::NeedsAuth => f.write_str("needs-auth"),
            ServerState::Closed => f.write_str("closed"),
        }
    }
}

/// One server's state, shared by the runtime and its handles; waitable.
#[derive(Debug)]
pub(crate) struct StateCell(watch::Sender<ServerState>);

impl StateCell {
    pub(crate) fn new() -> Self {
        StateCell(watch::channel(ServerState::Starting).0)
    }

    /// A server declared from its cached catalog, not started yet.
    pub(crate) fn idle() -> Self {
        StateCell(watch::channel(ServerState::Idle).0)
    }

    /// Moves `Idle` to `Starting`; `true` for the one caller that made the move (it starts
    /// the server).
    pub(crate) fn begin_start_if_idle(&self) -> bool {
        self.0.send_if_modified(|s| {
            let idle = matches!(s, ServerState::Idle);
            if idle {
                *s = ServerState::Starting;
            }
            idle
        })
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<ServerState> {
        self.0.subscribe()
    }

    pub(crate) fn get(&self) -> ServerState {
        self.0.borrow().clone()
    }

    /// Sets the state; a failure's reason is kept with the URLs in it redacted (query values,
    /// user-info, token-like path segments): it is shown to the user and to the model.
    pub(crate) fn set(&self, state: ServerState) {
        let state = match state {
            ServerState::Failed(reason) => ServerState::Failed(redacted(reason)),
            other => other,
        };
        self.0.send_replace(state);
    }

    /// Sets `Failed` unless the server is already closing or failed.
    pub(crate) fn fail_if_ready(&self, reason: String) -> bool {
        let reason = redacted(reason);
        self.0.send_if_modified(|s| {
            let ready = matches!(s, ServerState::Ready);
            if ready {
                *s = ServerState::Failed(reason);
            }
            ready
        })
    }

    /// Sets `NeedsAuth` over `Ready` (its tokens stopped working).
    pub(crate) fn needs_auth_if_ready(&self) -> bool {
        self.0.send_if_modified(|s| {
            let ready = matches!(s, ServerState::Ready);
            if ready {
                *s = ServerState::NeedsAuth;
            }
            ready
        })
    }

    /// Waits (bounded) until the state is neither Starting nor Ready; returns it if so.
    pub(crate) async fn wait_not_ready(&self, wait: Duration) -> Option<ServerState> {
        let mut rx = self.0.subscribe();
        let done = |s: &ServerState| {
            matches!(
                s,
                ServerState::Failed(_) | ServerState::NeedsAuth | ServerState::Closed
            )
        };
        match tokio::time::timeout(wait, rx.wait_for(done)).await {
            Ok(Ok(state)) => Some(state.clone()),
            _ => None,
        }
    }

    pub(crate) async fn wait_settled(&self) {
        let mut rx = self.0.subscribe();
        let _ = rx.wait_for(|s| !matches!(s, ServerState::Starting)).await;
    }
}

/// A row of `coyote mcp servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerStatus {
    /// The server's configured name.
    pub name: String,
    /// `stdio`, `http`, `sse`.
    pub transport: String,
    /// Its state.
    pub state: ServerState,
    /// Present once the server is (or was) Ready.
    pub info: Option<ServerInfo>,
}

/// Capability flags a server advertised in `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerCapabilityFlags {
    /// `tools` was advertised.
    pub tools: bool,
    /// `tools.listChanged` was advertised.
    pub tools_list_changed: bool,
    /// `resources` was advertised.
    pub resources: bool,
    /// `resources.subscribe` was advertised.
    pub resources_subscribe: bool,
    /// `resources.listChanged` was advertised.
    pub resources_list_changed: bool,
    /// `prompts` was advertised.
    pub prompts: bool,
    /// `prompts.listChanged` was advertised.
    pub prompts_list_changed: bool,
    /// `completions` was advertised.
    pub completions: bool,
    /// `logging` was advertised.
    pub logging: bool,
    /// The skills extension (`io.modelcontextprotocol/skills`) was declared.
    #[serde(default)]
    pub skills: bool,
    /// `tasks.requests.tools.call` was advertised: tools may run as MCP tasks.
    #[serde(default)]
    pub tasks: bool,
}

/// What the server said about itself in the handshake.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    /// The negotiated protocol version (what the server answered).
    pub protocol_version: Option<String>,
    /// `serverInfo.name`.
    pub server_name: Option<String>,
    /// `serverInfo.version`.
    pub server_version: Option<String>,
    /// `serverInfo.title`.
    pub server_title: Option<String>,
    /// `instructions` of the `initialize` result.
    pub instructions: Option<String>,
    /// The capabilities advertised.
    pub capabilities: ServerCapabilityFlags,
    /// `stdio`, `http`.
    pub transport: String,
    /// Process id of a stdio server.
    pub pid: Option<u32>,
}

/// What a connected server offers, computed from its live handle. `peer_info_missing`
/// means the handshake result was unavailable: invoke is then emitted anyway (fail-open).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct McpServerFeatures {
    /// The server's configured name.
    pub name: String,
    /// It offers tools.
    pub tools: bool,
    /// It offers resources.
    pub resources: bool,
    /// It offers prompts.
    pub prompts: bool,
    /// It offers argument completion.
    pub completions: bool,
    /// It publishes skills (the `io.modelcontextprotocol/skills` extension).
    #[serde(default)]
    pub skills: bool,
    /// It runs tool calls as MCP tasks (a call may outlive its wait and be checked later).
    #[serde(default)]
    pub tasks: bool,
    /// No handshake result was available, so the flags are guesses.
    pub peer_info_missing: bool,
}

/// A server's `instructions` as the model may see them: cut at the server's
/// `instructionsMaxBytes` (on a character boundary). Server text: never the user's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInstructions {
    /// The configured name of the server.
    pub server: String,
    /// The text, at most the budget long.
    pub text: String,
    /// The full length in bytes when the text was cut.
    pub cut_from: Option<usize>,
}

impl ServerInstructions {
    /// `text` within `max_bytes`; `None` when nothing is left to show.
    pub fn capped(server: &str, text: &str, max_bytes: usize) -> Option<ServerInstructions> {
        let trimmed = text.trim();
        if trimmed.is_empty() || max_bytes == 0 {
            return None;
        }
        let mut cut = trimmed.len().min(max_bytes);
        while !trimmed.is_char_boundary(cut) {
            cut -= 1;
        }
        Some(ServerInstructions {
            server: server.to_owned(),
            text: trimmed[..cut].to_owned(),
            cut_from: (cut < trimmed.len()).then_some(trimmed.len()),
        })
    }
}

/// Bound of each step of stopping a stdio server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShutdownTimeouts {
    /// Wait for the server to exit after its stdin was closed.
    pub after_stdin_close: Duration,
    /// Wait after SIGTERM to the process group.
    pub after_sigterm: Duration,
    /// Wait after SIGKILL to the process group.
    pub after_sigkill: Duration,
}

impl ShutdownTimeouts {
    /// The bounds used unless the embedder sets others.
    pub const DEFAULT: ShutdownTimeouts = ShutdownTimeouts {
        after_stdin_close: Duration::from_secs(2),
        after_sigterm: Duration::from_secs(2),
        after_sigkill: Duration::from_secs(1),
    };
    /// A server with a timed-out call: the group is killed almost at once (stdin is closed,
    /// which flushes the `notifications/cancelled` already queued, then SIGTERM and SIGKILL
    /// after 200 ms at most; the server is known to be stuck).
    pub(crate) const AFTER_TIMEOUT: ShutdownTimeouts = ShutdownTimeouts {
        after_stdin_close: Duration::from_millis(200),
        after_sigterm: Duration::ZERO,
        after_sigkill: Duration::from_secs(1),
    };
    /// Kill at once (failed starts, abandoned processes).
    pub(crate) const IMMEDIATE: ShutdownTimeouts = ShutdownTimeouts {
        after_stdin_close: Duration::ZERO,
        after_sigterm: Duration::from_millis(200),
        after_sigkill: Duration::from_secs(1),
    };
}

impl Default for ShutdownTimeouts {
    fn default() -> Self {
        ShutdownTimeouts::DEFAULT
    }
}

/// `reason` with the URLs in it redacted ([`coyote_protocol::redact_urls_in`]).
fn redacted(reason: String) -> String {
    match coyote_protocol::redact_urls_in(&reason) {
        std::borrow::Cow::Borrowed(_) => reason,
        std::borrow::Cow::Owned(text) => text,
    }
}
