//! The one error type of the MCP host. Every failure a caller can see is a variant here, with
//! the server name and enough structure to act on it; wording lives in `Display` only and
//! callers never match on strings (docs/architecture.md). rmcp's error types stop here:
//! [`crate::handle`] and [`crate::connect`] map them into these variants. A failed OAuth
//! sign-in is an [`AuthFailure`] inside [`McpError::SignIn`].

use std::fmt;
use std::time::Duration;

use coyote_protocol::redact_urls_in;

use crate::catalog::CatalogKind;
use crate::server::ServerState;

/// Which deadline fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Spawn/connect plus the `initialize` handshake (`startupTimeoutSec`).
    Startup,
    /// One request after startup; an inactivity timeout that progress notifications reset
    /// (`toolTimeoutSec`).
    Call {
        /// The JSON-RPC method of the request.
        method: String,
    },
}

impl fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeoutPhase::Startup => f.write_str("startup (spawn/connect and initialize)"),
            TimeoutPhase::Call { method } => write!(f, "'{method}'"),
        }
    }
}

/// Every error of the MCP host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A deadline passed (startup, or a request's inactivity timeout).
    #[error(
        "MCP server '{server}' timed out during {phase} after {}; {}",
        fmt_duration(*after),
        timeout_hint(phase)
    )]
    Timeout {
        /// The server's configured name.
        server: String,
        /// Which deadline.
        phase: TimeoutPhase,
        /// How long was waited.
        after: Duration,
    },

    /// A message exceeded `MAX_MESSAGE_BYTES`.
    #[error(
        "MCP server '{server}' sent a message too large: {}{} bytes exceeds the limit of {} \
         (MAX_MESSAGE_BYTES); ask for less data (e.g. a smaller page or range)",
        size,
        if *size_is_lower_bound { "+" } else { "" },
        fmt_bytes(*limit)
    )]
    MessageTooLarge {
        /// The server's configured name.
        server: String,
        /// The message's size in bytes (or what was read before giving up).
        size: u64,
        /// `size` is what was read before stopping, not the whole message.
        size_is_lower_bound: bool,
        /// The limit in bytes.
        limit: u64,
    },

    /// The server is known but not usable (starting, failed, closed).
    #[error("MCP server '{server}' is not ready ({state}); check `coyote mcp servers`")]
    ServerNotReady {
        /// The server's configured name.
        server: String,
        /// Its state.
        state: ServerState,
    },

    /// No server of that name is configured.
    #[error(
        "unknown MCP server '{name}'; configured servers: {}",
        known_list(known)
    )]
    UnknownServer {
        /// The name asked for.
        name: String,
        /// The configured names, for the message.
        known: Vec<String>,
    },

    /// The server answered with a JSON-RPC error.
    #[error(
        "MCP server '{server}' answered '{method}' with error {code}: {}",
        redact_urls_in(message)
    )]
    Rpc {
        /// The server's configured name.
        server: String,
        /// The JSON-RPC method of the request.
        method: String,
        /// The JSON-RPC error code.
        code: i32,
        /// The server's error message.
        message: String,
        /// The error's `data`, boxed to keep `McpError` small.
        data: Option<Box<serde_json::Value>>,
    },

    /// The connection broke or could not be made.
    #[error(
        "MCP server '{server}': connection failed: {}",
        redact_urls_in(message)
    )]
    Transport {
        /// The server's configured name.
        server: String,
        /// What failed.
        message: String,
    },

    /// The `initialize` handshake failed.
    #[error(
        "MCP server '{server}' failed the initialize handshake: {}; check that the \
         command/URL points at an MCP server",
        redact_urls_in(message)
    )]
    Handshake {
        /// The server's configured name.
        server: String,
        /// Why.
        message: String,
    },

    /// The server's reply does not fit the method (a server bug).
    #[error(
        "MCP server '{server}' sent an unexpected reply to '{method}': {}; this is a \
         server bug, report it to the server's authors",
        redact_urls_in(message)
    )]
    Protocol {
        /// The server's configured name.
        server: String,
        /// The JSON-RPC method of the request.
        method: String,
        /// What was wrong with the reply.
        message: String,
    },

    /// A tool call that ran as an MCP task ended without a result: it was cancelled (by the
    /// user, or on the server). `what` names the task, the tool and the final status.
    #[error("MCP server '{server}': {what}")]
    TaskEnded {
        /// The server's configured name.
        server: String,
        /// `task ID of tool `T` was cancelled (the server's message)`.
        what: String,
    },

    /// A server asked for input inside a request (a 2026-07-28 `input_required` round: a
    /// form, a sampling request, the roots) and coyote could not give it — the user declined,
    /// or there is no model or API key to sample with. Not a server bug: the reason says what
    /// to do.
    #[error("MCP server '{server}' asked for input during '{method}' that was not given: {reason}")]
    InputNotGiven {
        /// The server's configured name.
        server: String,
        /// The JSON-RPC method of the request that asked.
        method: String,
        /// Why it was not given (the answer coyote's own handler gave).
        reason: String,
    },

    /// A list repeated a cursor; listing stopped instead of looping.
    #[error(
        "MCP server '{server}' repeated the cursor {cursor:?} while listing {kind}s; the \
         server's pagination is broken (stopped instead of looping forever)"
    )]
    RepeatedCursor {
        /// The server's configured name.
        server: String,
        /// The kind being listed.
        kind: CatalogKind,
        /// The cursor that came back again.
        cursor: String,
    },

    /// A list went past the page limit.
    #[error(
        "MCP server '{server}' returned more than {limit} pages while listing {kind}s; \
         stopped (the server's pagination looks broken)"
    )]
    TooManyPages {
        /// The server's configured name.
        server: String,
        /// The kind being listed.
        kind: CatalogKind,
        /// The page limit.
        limit: usize,
    },

    /// The server lacks the capability asked for.
    #[error("MCP server '{server}': {what} is not supported: {hint}")]
    Unsupported {
        /// The server's configured name.
        server: String,
        /// What was asked for.
        what: String,
        /// What to do instead.
        hint: String,
    },

    /// A stdio server's process could not be started.
    #[error(
        "could not start MCP server '{server}' ({command}): {source}; check that the command \
         is installed and on PATH"
    )]
    Spawn {
        /// The server's configured name.
        server: String,
        /// The command, as configured.
        command: String,
        /// The spawn error.
        #[source]
        source: std::io::Error,
    },

    /// The server's spec is unusable.
    #[error("MCP server '{server}' is misconfigured: {message}")]
    Config {
        /// The server's configured name.
        server: String,
        /// What is wrong.
        message: String,
    },

    /// The server wants a sign-in that only `coyote mcp login NAME` starts.
    #[error("MCP server '{server}' needs sign-in: run `coyote mcp login {server}`")]
    NeedsAuth {
        /// The server's configured name.
        server: String,
    },

    /// The server refused an operation with 403 `insufficient_scope`.
    #[error(
        "MCP server '{server}' needs more permissions: it asks for the scope {scope} (HTTP 403 \
         insufficient_scope); run `coyote mcp login {server}` to grant it"
    )]
    NeedsScope {
        /// The server's configured name.
        server: String,
        /// The scope(s) the server named.
        scope: String,
    },

    /// A skill's file failed verification against the skill's listing entry; its content
    /// was not used.
    #[error(
        "MCP server '{server}' served skill file {uri} that fails verification: {refusal}; \
         coyote refused it and used none of its content (the skill cannot be used until the \
         server serves the file its listing describes)"
    )]
    SkillRefused {
        /// The server's configured name.
        server: String,
        /// The file's URI.
        uri: String,
        /// What it failed.
        refusal: SkillRefusal,
    },

    /// A sign-in (or token request) failed.
    #[error("MCP server '{server}': sign-in failed: {failure}")]
    SignIn {
        /// The server's configured name.
        server: String,
        /// Why.
        failure: AuthFailure,
    },
}

impl McpError {
    /// The server the error is about, if any.
    pub fn server(&self) -> Option<&str> {
        match self {
            McpError::UnknownServer { .. } => None,
            McpError::Timeout { server, .. }
            | McpError::MessageTooLarge { server, .. }
            | McpError::ServerNotReady { server, .. }
            | McpError::Rpc { server, .. }
            | McpError::Transport { server, .. }
            | McpError::Handshake { server, .. }
            | McpError::Protocol { server, .. }
            | McpError::InputNotGiven { server, .. }
            | McpError::TaskEnded { server, .. }
            | McpError::RepeatedCursor { server, .. }
            | McpError::TooManyPages { server, .. }
            | McpError::Unsupported { server, .. }
            | McpError::Spawn { server, .. }
            | McpError::Config { server, .. }
            | McpError::NeedsAuth { server }
            | McpError::NeedsScope { server, .. }
            | McpError::SignIn { server, .. }
            | McpError::SkillRefused { server, .. } => Some(server),
        }
    }
}

mod auth;
mod skill;

pub use self::auth::{AuthFailure, GrantKind};
pub use self::skill::SkillRefusal;

fn timeout_hint(phase: &TimeoutPhase) -> &'static str {
    match phase {
        TimeoutPhase::Startup => "raise startupTimeoutSec in mcp.json if the server is just slow",
        TimeoutPhase::Call { .. } => {
            "the request was cancelled; raise toolTimeoutSec in mcp.json if the server needs \
             longer without sending progress"
        }
    }
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        "(none)".to_owned()
    } else {
        known.join(", ")
    }
}

/// `1.5 s`, `250 ms`, `2 min`: short and exact enough for messages.
pub(crate) fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// `80 MiB` for whole MiB, else exact bytes.
pub(crate) fn fmt_bytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else {
        format!("{n} bytes")
    }
}
