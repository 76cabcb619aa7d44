//! Server log messages on the screen: one dimmed line per message — `[server] level: text`,
//! sanitized, on one line — rate-limited per server ([`LogThrottle`]: a burst, then a steady
//! rate; what is skipped is counted and said with the next line shown, and every message is
//! in coyote's log anyway). One-shot and `coyote mcp call` write to stderr ([`StderrLog`]);
//! the REPL prints above its prompt between turns and through the [`Screen`] during a turn,
//! which holds lines while an answer streams and prints them after it ([`ReplLog`]).
//!
//! Memory is bounded whatever a server sends: one counter per server in the throttle, the
//! screen's held lines are capped (`screen::HeldLines`), and the prompt printer's channel is
//! bounded (a full channel drops the line; it is in the log).
#![expect(
    clippy::print_stderr,
    reason = "one-shot chat and `coyote mcp` commands show server log lines on stderr, the CLI's channel for notes"
)]

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::mpsc::{SyncSender, TrySendError};
use std::time::Instant;

use coyote_mcp::{ServerLogMessage, ServerLogSink};

use crate::term::{self, Paint};
use crate::ui::screen::Screen;

/// Lines one server may show at once.
pub const BURST: f64 = 10.0;
/// Lines per second one server may show after its burst.
pub const PER_SECOND: f64 = 2.0;
/// Longest line (characters) a message is shown as.
pub const MAX_LINE_CHARS: usize = 300;

/// Whether a message is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Show it; `skipped` messages of this server were not shown since the last one that was.
    Show {
        /// Messages not shown since the last one that was.
        skipped: u64,
    },
    /// Do not show it (counted).
    Skip,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
    skipped: u64,
}

/// A token bucket per server: [`BURST`] lines, refilled at [`PER_SECOND`].
#[derive(Debug, Default)]
pub struct LogThrottle {
    buckets: HashMap<String, Bucket>,
}

impl LogThrottle {
    /// Decides about one message of `server` at `now`.
    pub fn admit(&mut self, server: &str, now: Instant) -> Admit {
        let bucket = self.buckets.entry(server.to_owned()).or_insert(Bucket {
            tokens: BURST,
            last: now,
            skipped: 0,
        });
        let elapsed = now.saturating_duration_since(bucket.last).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * PER_SECOND).min(BURST);
        bucket.last = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Admit::Show {
                skipped: std::mem::take(&mut bucket.skipped),
            }
        } else {
            bucket.skipped += 1;
            Admit::Skip
        }
    }
}

/// `[server] level: text` (plus the logger), one sanitized line, dimmed when `dim`.
pub fn format_line(message: &ServerLogMessage, dim: bool) -> String {
    let logger = message
        .logger
        .as_deref()
        .map(|l| format!(" ({})", term::one_line(l, 40)))
        .unwrap_or_default();
    let text = format!(
        "[{}] {}{logger}: {}",
        term::one_line(&message.server, 80),
        message.level,
        term::one_line(&message.text, MAX_LINE_CHARS)
    );
    term::paint(&text, Paint::Dim, dim)
}

/// The note shown before a line when messages of its server were skipped.
pub fn skipped_line(server: &str, skipped: u64, dim: bool) -> String {
    term::paint(
        &format!(
            "[{}] … {skipped} more log message(s) not shown (all are in coyote.log)",
            term::one_line(server, 80)
        ),
        Paint::Dim,
        dim,
    )
}

/// The lines to show for `message`, after the throttle (none, one, or a skip note and one).
fn lines_for(throttle: &Mutex<LogThrottle>, message: &ServerLogMessage, dim: bool) -> Vec<String> {
    let admit = throttle
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .admit(&message.server, Instant::now());
    match admit {
        Admit::Skip => Vec::new(),
        Admit::Show { skipped: 0 } => vec![format_line(message, dim)],
        Admit::Show { skipped } => vec![
            skipped_line(&message.server, skipped, dim),
            format_line(message, dim),
        ],
    }
}

/// Server log lines on stderr (one-shot chat, `coyote mcp call`).
#[derive(Debug)]
pub struct StderrLog {
    throttle: Mutex<LogThrottle>,
    dim: bool,
}

impl StderrLog {
    /// Dimmed when stderr allows it.
    pub fn new() -> Self {
        StderrLog {
            throttle: Mutex::default(),
            dim: term::caps().color_stderr,
        }
    }
}

impl ServerLogSink for StderrLog {
    fn log(&self, message: ServerLogMessage) {
        for line in lines_for(&self.throttle, &message, self.dim) {
            eprintln!("{line}");
        }
    }
}

/// Server log lines in the REPL: above the prompt between turns, through the screen (held
/// while an answer streams) during a turn.
#[derive(Debug)]
pub struct ReplLog {
    throttle: Mutex<LogThrottle>,
    screen: Screen,
    printer: Mutex<Option<SyncSender<String>>>,
    dim: bool,
}

impl ReplLog {
    /// Lines go to `screen` during turns; [`ReplLog::set_printer`] gives the prompt's printer.
    pub fn new(screen: Screen) -> Self {
        ReplLog {
            throttle: Mutex::default(),
            screen,
            printer: Mutex::new(None),
            dim: term::caps().color_stderr,
        }
    }

    /// The line editor's printer, used between turns.
    pub fn set_printer(&self, printer: SyncSender<String>) {
        *self.printer.lock().unwrap_or_else(|p| p.into_inner()) = Some(printer);
    }

    fn show(&self, line: String) {
        if self.screen.in_turn() {
            self.screen.server_log(&line);
            return;
        }
        let printer = self
            .printer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match printer {
            Some(printer) => match printer.try_send(line) {
                Ok(()) => {}
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                    tracing::debug!(
                        "a server log line was not shown: the prompt's printer is full"
                    );
                }
            },
            None => self.screen.server_log(&line),
        }
    }
}

impl ServerLogSink for ReplLog {
    fn log(&self, message: ServerLogMessage) {
        for line in lines_for(&self.throttle, &message, self.dim) {
            self.show(line);
        }
    }
}

#[cfg(test)]
#[path = "log_view_tests.rs"]
mod tests;
