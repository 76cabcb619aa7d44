//! How a call's progress (`notifications/progress`) is shown, for every front-end: on a
//! terminal one line on stderr, redrawn at most every [`REDRAW`] — a bar with n/total and the
//! percentage when the server gives a total, the count otherwise, the server's message and the
//! elapsed time; a spinner with the elapsed time while no progress came. When stderr is no
//! terminal or `NO_COLOR`/`TERM=dumb` asks for plain output: plain lines, at most one per 10 %
//! ([`PlainLimiter`]) and, without a total, at most one every [`PLAIN_QUIET`].
//!
//! Invariants: the observer only stores the latest update (or prints a line the limiter
//! admits), so a flood of notifications costs neither memory nor output; the server's message
//! passes [`crate::term::one_line`] before it reaches the terminal.
//!
//! A delegate agent's status line ([`delegate_progress_line`]) is worded here too, the same in
//! one-shot chat and the REPL.
// Widths, counts and sizes of the terminal layout: an unchecked `-` here once panicked on an
// 80-column terminal, so every operation is checked or saturating (clippy enforces it).
#![deny(clippy::arithmetic_side_effects)]

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use coyote_mcp::progress::{ProgressObserver, ProgressUpdate};

/// Time between redraws of the progress line on a terminal.
pub const REDRAW: Duration = Duration::from_millis(100);
/// Without a total, at most one plain line this often.
pub const PLAIN_QUIET: Duration = Duration::from_secs(5);
/// Longest server message shown.
const MAX_MESSAGE_CHARS: usize = 80;
/// Width of the bar, in cells.
const BAR_CELLS: usize = 20;
const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// `45/100 (45%) message` with a total, `45 message` without (numbers without `.0`), the
/// message alone when nothing was counted yet (an MCP task's status has no number).
pub fn describe(update: &ProgressUpdate) -> String {
    let mut text = match (update.total, update.fraction()) {
        (Some(total), Some(fraction)) => format!(
            "{}/{} ({:.0}%)",
            number(update.progress),
            number(total),
            (fraction * 100.0).floor()
        ),
        _ if update.progress == 0.0 && update.message.is_some() => String::new(),
        _ => number(update.progress),
    };
    if let Some(message) = update.message.as_deref().filter(|m| !m.trim().is_empty()) {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&crate::term::one_line(message, MAX_MESSAGE_CHARS));
    }
    text
}

fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n:.1}")
    }
}

/// `[████████░░░░░░░░░░░░]` for a fraction.
pub fn bar(fraction: f64) -> String {
    let full = ((fraction.clamp(0.0, 1.0)) * BAR_CELLS as f64).round() as usize;
    format!(
        "[{}{}]",
        "█".repeat(full),
        "░".repeat(BAR_CELLS.saturating_sub(full))
    )
}

/// Which updates become a plain line: the first, then one per new tenth with a total; without
/// a total, one every [`PLAIN_QUIET`].
#[derive(Debug, Default)]
pub struct PlainLimiter {
    last_tenth: Option<u64>,
    last_at: Option<Instant>,
}

impl PlainLimiter {
    /// Whether `update`, arriving at `now`, is printed.
    pub fn admit(&mut self, update: &ProgressUpdate, now: Instant) -> bool {
        match update.fraction() {
            Some(fraction) => {
                let tenth = (fraction * 10.0).floor() as u64;
                if self.last_tenth.is_some_and(|last| tenth <= last) {
                    return false;
                }
                self.last_tenth = Some(tenth);
                true
            }
            None => {
                if self
                    .last_at
                    .is_some_and(|last| now.duration_since(last) < PLAIN_QUIET)
                {
                    return false;
                }
                self.last_at = Some(now);
                true
            }
        }
    }
}

/// Questions on screen: the progress line is not drawn while > 0.
static PAUSED: AtomicUsize = AtomicUsize::new(0);
/// The progress line being drawn, so a question can erase it first.
static ACTIVE: Mutex<Option<Weak<Mutex<Shared>>>> = Mutex::new(None);

/// A question takes the terminal: the progress line is erased and not drawn until
/// [`resume`].
pub fn pause() {
    PAUSED.fetch_add(1, Ordering::AcqRel);
    let active = ACTIVE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .and_then(Weak::upgrade);
    if let Some(shared) = active {
        let mut state = lock(&shared);
        if state.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            state.drawn = false;
        }
    }
}

/// The question is answered: the progress line may be drawn again.
pub fn resume() {
    let _ = PAUSED.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
}

#[derive(Debug)]
struct Shared {
    label: String,
    latest: Option<ProgressUpdate>,
    limiter: PlainLimiter,
    started: Instant,
    frame: usize,
    drawn: bool,
}

/// Progress of one call (or turn) on stderr until [`StderrProgress::finish`].
#[derive(Debug)]
pub struct StderrProgress {
    shared: Arc<Mutex<Shared>>,
    animate: bool,
    ticker: Option<tokio::task::JoinHandle<()>>,
}

impl StderrProgress {
    /// Starts showing progress for `label` (e.g. the tool's name); on a terminal a spinner
    /// with the elapsed time runs until progress arrives.
    pub fn start(label: &str) -> Self {
        let caps = crate::term::caps();
        Self::with_mode(label, caps.animate() && caps.color_stderr)
    }

    /// `animate`: redraw one line (a terminal), else plain lines.
    pub fn with_mode(label: &str, animate: bool) -> Self {
        let shared = Arc::new(Mutex::new(Shared {
            label: crate::term::one_line(label, MAX_MESSAGE_CHARS),
            latest: None,
            limiter: PlainLimiter::default(),
            started: Instant::now(),
            frame: 0,
            drawn: false,
        }));
        if animate {
            *ACTIVE.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::downgrade(&shared));
        }
        let ticker = animate.then(|| {
            let shared = shared.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(REDRAW);
                loop {
                    tick.tick().await;
                    draw(&shared);
                }
            })
        });
        StderrProgress {
            shared,
            animate,
            ticker,
        }
    }

    /// The observer to run the call under ([`coyote_mcp::progress::observe`]).
    pub fn observer(&self) -> ProgressObserver {
        let shared = self.shared.clone();
        let animate = self.animate;
        Arc::new(move |update: &ProgressUpdate| {
            let mut state = lock(&shared);
            if animate {
                state.latest = Some(update.clone());
            } else if state.limiter.admit(update, Instant::now()) {
                let line = format!("{}: {}", state.label, describe(update));
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "{line}");
            }
        })
    }

    /// Stops drawing and erases the progress line.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Some(ticker) = self.ticker.take() {
            ticker.abort();
        }
        let mut state = lock(&self.shared);
        if state.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            state.drawn = false;
        }
    }
}

impl Drop for StderrProgress {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One-shot's observer: with `json`, `{"type": "progress", …}` lines on stdout beside the other
/// events; otherwise plain `[server] n/total (p%) message` lines on stderr. Both are limited
/// like [`PlainLimiter`] (the answer streams meanwhile, so no line is redrawn).
pub fn line_observer(json: bool) -> ProgressObserver {
    let limiter = Mutex::new(PlainLimiter::default());
    Arc::new(move |update: &ProgressUpdate| {
        let admitted = limiter
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .admit(update, Instant::now());
        if !admitted {
            return;
        }
        if json {
            let event = serde_json::json!({
                "type": "progress",
                "server": update.server,
                "progress": update.progress,
                "total": update.total,
                "message": update.message,
            });
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{event}");
            let _ = out.flush();
        } else {
            let line = format!("[{}] {}", update.server, describe(update));
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{line}");
        }
    })
}

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// The line on screen for the latest update: `⠋ label [bar] n/total (p%) message · 3s`.
fn line(state: &Shared) -> String {
    let elapsed = state.started.elapsed().as_secs();
    let frame = FRAMES[state.frame.checked_rem(FRAMES.len()).unwrap_or(0)];
    match &state.latest {
        None => format!("{frame} {} · {elapsed}s", state.label),
        Some(update) => {
            let bar = update.fraction().map(bar).unwrap_or_default();
            let sep = if bar.is_empty() { "" } else { " " };
            format!(
                "{frame} {} {bar}{sep}{} · {elapsed}s",
                state.label,
                describe(update)
            )
        }
    }
}

fn draw(shared: &Mutex<Shared>) {
    let mut state = lock(shared);
    // Checked under the lock: `pause` counts before it takes the lock to erase.
    if PAUSED.load(Ordering::Acquire) > 0 {
        return;
    }
    state.frame = state.frame.wrapping_add(1);
    let text = line(&state);
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K{text}");
    let _ = err.flush();
    state.drawn = true;
}

/// A delegate's status line, indented by its depth below the top agent (one-shot and REPL).
pub(crate) fn delegate_progress_line(agent: &str, depth: u32, message: &str) -> String {
    let indent = "  ".repeat(depth.saturating_sub(1) as usize);
    format!("{indent}agent {agent}: {message}")
}

#[cfg(test)]
#[path = "progress_tests.rs"]
mod tests;
