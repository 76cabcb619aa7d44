//! A stdio server's stderr: every line goes to the log (`tracing`, tagged with the server name)
//! within a budget, and the last lines are kept in a bounded ring ([`StderrTail`]) for `Failed`
//! reasons.
//!
//! Invariants: a line is cut at [`STDERR_LINE_MAX_BYTES`] without buffering the rest; the log
//! gets at most [`STDERR_BUDGET_LINES`] lines and [`STDERR_BUDGET_BYTES`] bytes per
//! [`STDERR_BUDGET_WINDOW`] and server (a noisy server once turned 42 MB of output into a
//! 178 MB log in 2.6 s); the lines over the budget are counted and reported in one summary line
//! when the window closes or stderr ends. The tail ring sees every line.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::time::Instant;

/// Lines of stderr kept for `Failed` reasons.
pub const STDERR_TAIL_LINES: usize = 20;
/// Longest stderr line kept (longer lines are cut, never buffered whole).
const STDERR_LINE_MAX_BYTES: usize = 2048;
/// Lines of one server's stderr logged per [`STDERR_BUDGET_WINDOW`].
pub const STDERR_BUDGET_LINES: u64 = 2_000;
/// Bytes of one server's stderr logged per [`STDERR_BUDGET_WINDOW`].
pub const STDERR_BUDGET_BYTES: u64 = 1024 * 1024;
/// The window of the stderr budget.
pub const STDERR_BUDGET_WINDOW: Duration = Duration::from_secs(10);

/// The last lines a server wrote to stderr.
#[derive(Debug, Default)]
pub(crate) struct StderrTail {
    lines: Mutex<VecDeque<String>>,
    done: tokio::sync::Notify,
    finished: AtomicBool,
}

impl StderrTail {
    fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == STDERR_TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The kept lines, oldest first.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// Waits (bounded) until stderr reached EOF, so a crash reason includes the last words.
    pub(crate) async fn drained(&self, wait: Duration) {
        let notified = self.done.notified();
        if self.finished.load(Ordering::Acquire) {
            return;
        }
        let _ = tokio::time::timeout(wait, notified).await;
    }

    fn finish(&self) {
        self.finished.store(true, Ordering::Release);
        self.done.notify_waiters();
    }

    /// `"; stderr tail:\n  line\n  line"`, or empty when nothing was written.
    pub(crate) fn describe(&self) -> String {
        let lines = self.lines();
        if lines.is_empty() {
            return String::new();
        }
        let mut out = String::from("; stderr tail:");
        for line in lines {
            out.push_str("\n  ");
            out.push_str(&line);
        }
        out
    }
}

/// Lines dropped in one window of the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dropped {
    pub(crate) lines: u64,
    pub(crate) bytes: u64,
}

/// The per-server log budget: a fixed window that starts at the first line after the previous
/// one closed. Pure (the caller passes the time), so tests need no clock.
#[derive(Debug)]
pub(crate) struct StderrBudget {
    window_start: Option<Instant>,
    lines: u64,
    bytes: u64,
    dropped: Dropped,
}

impl StderrBudget {
    pub(crate) fn new() -> Self {
        StderrBudget {
            window_start: None,
            lines: 0,
            bytes: 0,
            dropped: Dropped { lines: 0, bytes: 0 },
        }
    }

    /// Whether a line of `len` bytes seen at `now` may be logged, and the drops of a window
    /// that closed before it (to be reported first).
    pub(crate) fn admit(&mut self, len: usize, now: Instant) -> (bool, Option<Dropped>) {
        let expired = self
            .window_start
            .is_none_or(|start| now.duration_since(start) >= STDERR_BUDGET_WINDOW);
        let closed = if expired { self.reset(now) } else { None };
        let len = len as u64;
        let fits = self.lines < STDERR_BUDGET_LINES && self.bytes + len <= STDERR_BUDGET_BYTES;
        if fits {
            self.lines += 1;
            self.bytes += len;
        } else {
            self.dropped.lines += 1;
            self.dropped.bytes += len;
        }
        (fits, closed)
    }

    /// Ends the current window; its drops, if any.
    pub(crate) fn finish(&mut self) -> Option<Dropped> {
        let dropped = self.dropped;
        self.dropped = Dropped { lines: 0, bytes: 0 };
        (dropped.lines > 0).then_some(dropped)
    }

    fn reset(&mut self, now: Instant) -> Option<Dropped> {
        self.window_start = Some(now);
        self.lines = 0;
        self.bytes = 0;
        self.finish()
    }
}

/// Copies stderr lines to the log (within the budget) and the tail ring.
pub(crate) async fn pump_stderr<R: AsyncRead + Unpin>(
    server: String,
    stderr: R,
    tail: Arc<StderrTail>,
) {
    let mut reader = BufReader::new(stderr);
    let mut line: Vec<u8> = Vec::new();
    let mut budget = StderrBudget::new();
    loop {
        let available = match reader.fill_buf().await {
            Ok(available) if !available.is_empty() => available,
            _ => break,
        };
        let newline = memchr::memchr(b'\n', available);
        let take = newline.map_or(available.len(), |i| i + 1);
        let body = &available[..newline.unwrap_or(available.len())];
        let room = STDERR_LINE_MAX_BYTES.saturating_sub(line.len());
        line.extend_from_slice(&body[..room.min(body.len())]);
        reader.consume(take);
        if newline.is_some() {
            emit_stderr_line(&server, &tail, &mut budget, &mut line);
        }
    }
    if !line.is_empty() {
        emit_stderr_line(&server, &tail, &mut budget, &mut line);
    }
    report_dropped(&server, budget.finish());
    tail.finish();
}

fn emit_stderr_line(
    server: &str,
    tail: &StderrTail,
    budget: &mut StderrBudget,
    line: &mut Vec<u8>,
) {
    let text = String::from_utf8_lossy(line)
        .trim_end_matches('\r')
        .to_owned();
    line.clear();
    let (admitted, closed) = budget.admit(text.len() + 1, Instant::now());
    report_dropped(server, closed);
    if admitted {
        tracing::info!(target: "coyote_mcp::server_stderr", server, "{text}");
    }
    tail.push(text);
}

fn report_dropped(server: &str, dropped: Option<Dropped>) {
    if let Some(Dropped { lines, bytes }) = dropped {
        tracing::warn!(
            target: "coyote_mcp::server_stderr",
            server,
            dropped_lines = lines,
            dropped_bytes = bytes,
            "stderr lines over the limit of {STDERR_BUDGET_LINES} lines or {} MiB per {} s \
             were not logged",
            STDERR_BUDGET_BYTES / (1024 * 1024),
            STDERR_BUDGET_WINDOW.as_secs()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_admits_2000_lines_or_1_mib_per_window_and_counts_the_rest() {
        let start = Instant::now();
        let mut budget = StderrBudget::new();
        let admitted = (0..2_500).filter(|_| budget.admit(10, start).0).count();
        assert_eq!(admitted, 2_000);
        // The next window reports the previous one's drops once, then admits again.
        let later = start + STDERR_BUDGET_WINDOW;
        assert_eq!(
            budget.admit(10, later),
            (
                true,
                Some(Dropped {
                    lines: 500,
                    bytes: 5_000
                })
            )
        );
        assert_eq!(budget.admit(10, later), (true, None));
        assert_eq!(budget.finish(), None);

        // Bytes: two half-MiB lines fit, the third does not.
        let mut budget = StderrBudget::new();
        let half = 512 * 1024;
        let verdicts: Vec<bool> = (0..3).map(|_| budget.admit(half, start).0).collect();
        assert_eq!(verdicts, vec![true, true, false]);
        assert_eq!(
            budget.finish(),
            Some(Dropped {
                lines: 1,
                bytes: half as u64
            })
        );
    }
}
