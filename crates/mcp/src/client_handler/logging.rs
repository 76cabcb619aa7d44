//! Server log messages (`notifications/message`): the MCP levels ([`McpLogLevel`]), one message
//! as the embedder receives it ([`ServerLogMessage`]), and the [`ServerLogSink`] that shows it.
//!
//! Every message goes to coyote's own log (`tracing`, with the server name); the sink receives
//! those at or above the connection's threshold — the level last sent with `logging/setLevel`
//! (default [`McpLogLevel::Warning`]) — so a server that ignores `setLevel` cannot flood the
//! screen with debug lines. A message's text is cut at [`MAX_LOG_TEXT_BYTES`] before it is
//! handed on, so what a sink holds per message is bounded.

use std::str::FromStr;
use std::sync::atomic::{AtomicU8, Ordering};

use serde::{Deserialize, Serialize};

/// Longest text a sink receives per message (the rest is cut, marked with `…`).
pub const MAX_LOG_TEXT_BYTES: usize = 4096;

/// The MCP log levels (RFC 5424 severities), least severe first.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum McpLogLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions (coyote's default threshold).
    #[default]
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl McpLogLevel {
    /// Every level, least severe first.
    pub const ALL: [McpLogLevel; 8] = [
        McpLogLevel::Debug,
        McpLogLevel::Info,
        McpLogLevel::Notice,
        McpLogLevel::Warning,
        McpLogLevel::Error,
        McpLogLevel::Critical,
        McpLogLevel::Alert,
        McpLogLevel::Emergency,
    ];

    /// The wire name (`debug` … `emergency`).
    pub fn as_str(self) -> &'static str {
        match self {
            McpLogLevel::Debug => "debug",
            McpLogLevel::Info => "info",
            McpLogLevel::Notice => "notice",
            McpLogLevel::Warning => "warning",
            McpLogLevel::Error => "error",
            McpLogLevel::Critical => "critical",
            McpLogLevel::Alert => "alert",
            McpLogLevel::Emergency => "emergency",
        }
    }

    fn index(self) -> u8 {
        self as u8
    }

    fn from_index(index: u8) -> McpLogLevel {
        McpLogLevel::ALL
            .get(usize::from(index))
            .copied()
            .unwrap_or(McpLogLevel::Emergency)
    }
}

impl std::fmt::Display for McpLogLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A level name that is not one of the eight MCP levels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "\"{0}\" is not an MCP log level; use one of debug, info, notice, warning, error, critical, \
     alert, emergency"
)]
pub struct UnknownLogLevel(pub String);

impl FromStr for McpLogLevel {
    type Err = UnknownLogLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        McpLogLevel::ALL
            .into_iter()
            .find(|l| l.as_str() == lower || (lower == "warn" && *l == McpLogLevel::Warning))
            .ok_or_else(|| UnknownLogLevel(s.to_owned()))
    }
}

/// One log message of a server, for the user's screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerLogMessage {
    /// The configured name of the server.
    pub server: String,
    /// Its level.
    pub level: McpLogLevel,
    /// The server's `logger` name, if it gave one.
    pub logger: Option<String>,
    /// `data` as text (a string as is, anything else as JSON), at most [`MAX_LOG_TEXT_BYTES`].
    /// Server text: sanitize it before it reaches a terminal.
    pub text: String,
}

/// Shows server log messages to the user (the REPL's dimmed lines, stderr in one-shot).
/// Called on the connection's task: implementations must not block.
pub trait ServerLogSink: Send + Sync + 'static {
    /// One message at or above the connection's threshold.
    fn log(&self, message: ServerLogMessage);
}

/// Shows nothing (the messages still reach coyote's log).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoServerLog;

impl ServerLogSink for NoServerLog {
    fn log(&self, _message: ServerLogMessage) {}
}

/// The level a connection shows from, shared by its handler and its handles.
#[derive(Debug)]
pub(crate) struct LogThreshold(AtomicU8);

impl LogThreshold {
    pub(crate) fn new(level: McpLogLevel) -> Self {
        LogThreshold(AtomicU8::new(level.index()))
    }

    pub(crate) fn get(&self) -> McpLogLevel {
        McpLogLevel::from_index(self.0.load(Ordering::Acquire))
    }

    pub(crate) fn set(&self, level: McpLogLevel) {
        self.0.store(level.index(), Ordering::Release);
    }
}

impl Default for LogThreshold {
    fn default() -> Self {
        LogThreshold::new(McpLogLevel::default())
    }
}

/// `data` as one bounded text: a string as is, anything else as compact JSON.
pub(crate) fn log_text(data: &serde_json::Value) -> String {
    let mut text = match data {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.len() > MAX_LOG_TEXT_BYTES {
        let mut cut = MAX_LOG_TEXT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_order_and_print_as_on_the_wire() {
        assert_eq!("WARN".parse::<McpLogLevel>(), Ok(McpLogLevel::Warning));
        assert_eq!("critical".parse::<McpLogLevel>(), Ok(McpLogLevel::Critical));
        assert!("loud".parse::<McpLogLevel>().is_err());
        assert!(McpLogLevel::Debug < McpLogLevel::Warning);
        assert!(McpLogLevel::Emergency > McpLogLevel::Alert);
        for level in McpLogLevel::ALL {
            assert_eq!(level.to_string().parse::<McpLogLevel>(), Ok(level));
            let threshold = LogThreshold::new(level);
            assert_eq!(threshold.get(), level);
        }
    }

    #[test]
    fn log_text_is_bounded_and_keeps_strings_verbatim() {
        assert_eq!(log_text(&serde_json::json!("plain")), "plain");
        assert_eq!(log_text(&serde_json::json!({"a": 1})), "{\"a\":1}");
        let long = "é".repeat(MAX_LOG_TEXT_BYTES);
        let text = log_text(&serde_json::Value::String(long));
        assert!(text.len() <= MAX_LOG_TEXT_BYTES + '…'.len_utf8());
        assert!(text.ends_with('…'));
    }
}
