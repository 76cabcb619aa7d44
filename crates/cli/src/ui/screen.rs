//! The terminal output while a turn runs: streamed answer text on stdout, a spinner and one
//! status line per tool call on stderr (the REPL draws its turns here), and the pause every
//! front end's questions take (approval, elicitation, missing prompt arguments) so a form is
//! never drawn over by the spinner.
//!
//! Invariants:
//! - The state lock is never held across an await or a blocking prompt; output is written
//!   while holding it, so lines from concurrent tool calls never interleave mid-line.
//! - Only one question is on screen at a time ([`Screen::question`] serialises them).
//! - A call's progress follows the spinner's label (bar, n/total, %); without animation it is
//!   printed as lines, at most one per 10 % (or per 5 s without a total).
//! - The spinner is drawn only when stderr is a terminal, `TERM` is not `dumb` and colour is
//!   allowed (`NO_COLOR` asks for plain lines, as `term::caps` says); otherwise the status
//!   lines are still printed, without animation. A frame is cut to the terminal's width, so
//!   the next frame always erases it.
//! - Text coyote did not write goes through the terminal sanitizer ([`Screen::text`],
//!   [`Screen::line`]); answers come rendered (and sanitized) by the Markdown renderer
//!   ([`Screen::answer_renderer`], [`Screen::styled`]).
//! - A server log line never lands inside a streaming answer: from the first text until the
//!   answer ends (a spinner or the end of the turn) such lines are held, bounded
//!   ([`HeldLines`]), and printed after it.
// Widths, counts and sizes of the terminal layout: an unchecked `-` here once panicked on an
// 80-column terminal, so every operation is checked or saturating (clippy enforces it).
#![deny(clippy::arithmetic_side_effects)]

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use coyote_mcp::progress::ProgressUpdate;

use crate::markdown::{RenderOptions, StreamRenderer, ThemeChoice};
use crate::term::sanitize::Sanitizer;
use crate::ui::progress::{PlainLimiter, bar, describe};

/// Spinner frames (ASCII-safe braille dots, like most CLIs).
const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Time between spinner frames.
pub const SPINNER_TICK: Duration = Duration::from_millis(100);

#[derive(Debug, Default)]
struct State {
    /// The spinner's label while it should spin.
    spinner: Option<String>,
    /// A spinner frame is on the screen and must be erased before other output.
    drawn: bool,
    /// Questions on screen (the spinner stays off while > 0).
    paused: usize,
    frame: usize,
    /// The last answer text did not end with a newline.
    mid_line: bool,
    /// Sanitizes text coyote did not write (the model's, a server's) on its way to stdout.
    sanitizer: Sanitizer,
    /// An answer is streaming: server log lines wait in `held` until it ends.
    streaming: bool,
    /// Server log lines held while an answer streams (bounded).
    held: HeldLines,
    /// A turn runs (server log lines come here; between turns the prompt prints them).
    in_turn: bool,
    /// The latest progress of the running call, shown after the spinner's label.
    progress: Option<ProgressUpdate>,
    /// Which progress updates become lines when the spinner cannot animate.
    progress_lines: PlainLimiter,
}

/// Shared by the event renderer, the spinner task and the question prompts of one REPL.
#[derive(Debug, Clone)]
pub struct Screen {
    state: Arc<Mutex<State>>,
    questions: Arc<tokio::sync::Mutex<()>>,
    animate: bool,
    /// How answers are rendered (look, theme; the width is read again for every turn).
    render: RenderOptions,
    /// The whole reasoning of the last answer that had any (`.reasoning`).
    reasoning: Arc<Mutex<String>>,
}

impl Default for Screen {
    fn default() -> Self {
        Screen::new()
    }
}

impl Screen {
    /// A screen on this process's terminal, rendering answers for a dark background.
    pub fn new() -> Self {
        Screen::with_render(RenderOptions::for_stdout(false, ThemeChoice::Dark))
    }

    /// A screen rendering answers with `render`.
    pub fn with_render(render: RenderOptions) -> Self {
        Screen {
            state: Arc::default(),
            questions: Arc::default(),
            // As `coyote mcp call`'s progress: NO_COLOR asks for plain lines, not animation.
            animate: crate::term::caps().animate() && crate::term::caps().color_stderr,
            render,
            reasoning: Arc::default(),
        }
    }

    /// Keeps the last answer's reasoning for `.reasoning`.
    pub fn set_reasoning(&self, text: &str) {
        *self.reasoning.lock().unwrap_or_else(|p| p.into_inner()) = text.to_owned();
    }

    /// The last answer's reasoning (empty when none streamed any).
    pub fn reasoning(&self) -> String {
        self.reasoning
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// A renderer for one answer, fitted to the terminal's current width.
    pub fn answer_renderer(&self) -> StreamRenderer {
        let mut opts = self.render.clone();
        if opts.width.is_some() {
            opts.width = crate::term::caps().stdout_width();
        }
        StreamRenderer::new(opts)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Streamed text on stdout that coyote did not style: sanitized on a terminal.
    pub fn text(&self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut state = self.lock();
        let text = if crate::term::caps().ttys.stdout {
            state.sanitizer.push(text)
        } else {
            text.to_owned()
        };
        write_text(&mut state, &text);
    }

    /// Marks the start (`true`) and end of a turn.
    pub fn set_in_turn(&self, in_turn: bool) {
        self.lock().in_turn = in_turn;
    }

    /// Whether a turn runs.
    pub fn in_turn(&self) -> bool {
        self.lock().in_turn
    }

    /// A server log line (composed by coyote from sanitized parts): printed now on stderr, or
    /// held while an answer streams or a question is open and printed when that ends
    /// ([`Screen::spin`], [`Screen::finish`], the question's guard).
    pub fn server_log(&self, line: &str) {
        let mut state = self.lock();
        // Never inside a streaming answer, never over a question.
        if state.streaming || state.paused > 0 {
            state.held.push(line.to_owned());
            return;
        }
        erase(&mut state);
        end_answer_line(&mut state);
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
        let _ = err.flush();
    }

    /// Text on stdout already made safe and styled by coyote (the Markdown renderer's output).
    pub fn styled(&self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut state = self.lock();
        state.spinner = None;
        write_text(&mut state, text);
    }

    /// A full line on stderr (status of a tool call, a warning), on its own line; sanitized.
    pub fn line(&self, line: &str) {
        self.styled_line(&crate::term::sanitize(line));
    }

    /// A full line on stderr that coyote composed from sanitized parts (it may carry colour).
    pub fn styled_line(&self, line: &str) {
        let mut state = self.lock();
        erase(&mut state);
        end_answer_line(&mut state);
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
        let _ = err.flush();
    }

    /// Ends a turn's output: spinner off, the cursor at the start of a line, held server log
    /// lines printed.
    pub fn finish(&self) {
        let mut state = self.lock();
        state.spinner = None;
        erase(&mut state);
        let rest = state.sanitizer.finish();
        if !rest.is_empty() {
            write_text(&mut state, &rest);
        }
        end_answer_line(&mut state);
        release_held(&mut state);
    }

    /// Starts (or relabels) the spinner, on a line of its own; an answer that streamed has
    /// ended, so held server log lines are printed first.
    pub fn spin(&self, label: &str) {
        let mut state = self.lock();
        end_answer_line(&mut state);
        release_held(&mut state);
        // Labels name tools the model chose: sanitized like every other line.
        state.spinner = Some(crate::term::sanitize(label).into_owned());
        state.progress = None;
        state.progress_lines = PlainLimiter::default();
    }

    /// A call's progress: shown after the spinner's label (a bar with n/total and %), or as
    /// plain lines (one per 10 %, or per 5 s without a total) when the spinner cannot animate.
    pub fn progress(&self, update: &ProgressUpdate) {
        let mut state = self.lock();
        if self.animate {
            state.progress = Some(update.clone());
            return;
        }
        if state
            .progress_lines
            .admit(update, std::time::Instant::now())
        {
            let line = format!("[{}] {}", update.server, describe(update));
            drop(state);
            self.line(&line);
        }
    }

    /// The observer that hands a turn's progress to [`Screen::progress`].
    pub fn progress_observer(&self) -> coyote_mcp::progress::ProgressObserver {
        let screen = self.clone();
        Arc::new(move |update: &ProgressUpdate| screen.progress(update))
    }

    /// Draws the next spinner frame, if the spinner is on and nothing is asked.
    pub fn tick(&self) {
        if !self.animate {
            return;
        }
        let mut state = self.lock();
        let Some(label) = state.spinner.clone() else {
            return;
        };
        if state.paused > 0 || state.mid_line {
            return;
        }
        state.frame = state
            .frame
            .wrapping_add(1)
            .checked_rem(FRAMES.len())
            .unwrap_or(0);
        let mut err = std::io::stderr().lock();
        let frame = crate::term::paint(
            FRAMES[state.frame],
            crate::term::Paint::Accent,
            crate::term::caps().color_stderr,
        );
        let progress = state.progress.as_ref().map(|u| {
            let bar = u.fraction().map(bar).unwrap_or_default();
            format!(" {bar} {}", describe(u))
        });
        let progress = progress.unwrap_or_default();
        // One line, never wider than the terminal: a wrapped spinner line cannot be erased
        // by the next frame and would leave a stale line per frame.
        let body = format!("{label}{progress}");
        let body = match crate::term::caps().stderr_width() {
            Some(width) => crate::output::clip(&body, width.saturating_sub(3)),
            None => body,
        };
        let _ = write!(err, "\r\x1b[2K{frame} {body}");
        let _ = err.flush();
        state.drawn = true;
    }

    /// Runs the spinner until the returned guard is dropped (one per turn).
    pub fn spinner_task(&self, runtime: &tokio::runtime::Handle) -> SpinnerTask {
        let screen = self.clone();
        let task = runtime.spawn(async move {
            let mut tick = tokio::time::interval(SPINNER_TICK);
            loop {
                tick.tick().await;
                screen.tick();
            }
        });
        SpinnerTask { task }
    }

    /// Takes the screen for a question: waits for other questions, stops the spinner and
    /// ends the current line. The screen is given back when the guard drops.
    pub async fn question(&self) -> QuestionGuard {
        let turn = self.questions.clone().lock_owned().await;
        {
            let mut state = self.lock();
            state.paused = state.paused.saturating_add(1);
            erase(&mut state);
            end_answer_line(&mut state);
        }
        // A progress line outside the REPL (`coyote mcp call`) steps aside too.
        crate::ui::progress::pause();
        QuestionGuard {
            screen: self.clone(),
            _turn: turn,
        }
    }
}

/// Stops the spinner task on drop.
#[derive(Debug)]
pub struct SpinnerTask {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SpinnerTask {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The screen belongs to one question until this drops.
#[derive(Debug)]
pub struct QuestionGuard {
    screen: Screen,
    _turn: tokio::sync::OwnedMutexGuard<()>,
}

impl Drop for QuestionGuard {
    fn drop(&mut self) {
        crate::ui::progress::resume();
        let mut state = self.screen.lock();
        state.paused = state.paused.saturating_sub(1);
        if state.paused == 0 && !state.streaming {
            release_held(&mut state);
        }
    }
}

fn write_text(state: &mut State, text: &str) {
    erase(state);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    state.mid_line = !text.ends_with('\n');
    state.streaming = true;
}

fn erase(state: &mut State) {
    if state.drawn {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        let _ = err.flush();
        state.drawn = false;
    }
}

/// The answer stopped streaming: print what was held.
fn release_held(state: &mut State) {
    state.streaming = false;
    // An open question keeps them until its guard drops.
    if state.paused > 0 || state.held.is_empty() {
        return;
    }
    let mut err = std::io::stderr().lock();
    for line in state.held.take() {
        let _ = writeln!(err, "{line}");
    }
    let _ = err.flush();
}

fn end_answer_line(state: &mut State) {
    if state.mid_line {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out);
        let _ = out.flush();
        state.mid_line = false;
    }
}
/// Server log lines held while an answer streams, at most [`MAX_HELD_LOG_LINES`]; older ones
/// are dropped first and counted.
#[derive(Debug, Default)]
pub struct HeldLines {
    lines: std::collections::VecDeque<String>,
    dropped: usize,
}

/// Lines held at most while an answer streams.
pub const MAX_HELD_LOG_LINES: usize = 100;

impl HeldLines {
    /// Holds `line`, dropping the oldest when full.
    pub fn push(&mut self, line: String) {
        if self.lines.len() == MAX_HELD_LOG_LINES {
            self.lines.pop_front();
            self.dropped = self.dropped.saturating_add(1);
        }
        self.lines.push_back(line);
    }

    /// How many lines are held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.dropped == 0
    }

    /// The lines to print now (a note first when some were dropped); empties the buffer.
    pub fn take(&mut self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.lines.len().saturating_add(1));
        let dropped = std::mem::take(&mut self.dropped);
        if dropped > 0 {
            out.push(format!(
                "… {dropped} server log line(s) were dropped while the answer streamed (all \
                 are in coyote.log)"
            ));
        }
        out.extend(self.lines.drain(..));
        out
    }
}
