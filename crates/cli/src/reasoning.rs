//! Reasoning the model streams before its answer (OpenAI-compatible `reasoning_content`,
//! Anthropic thinking), shown dimmed: in the REPL its first [`REPL_LINES`] lines and
//! `… N more lines (.reasoning)`, the whole text kept for `.reasoning`; in one-shot mode all of
//! it on stderr with `--show-reasoning`, nothing otherwise. It is never sent back to the model.
//! The text passes the terminal sanitizer.

use crate::term::{Paint, paint, sanitize};

/// Lines of reasoning the REPL shows.
pub const REPL_LINES: usize = 3;

/// One answer's reasoning as it streams, shown up to `limit` lines.
#[derive(Debug)]
pub struct ReasoningView {
    limit: Option<usize>,
    color: bool,
    full: String,
    /// Characters of `full` already considered for display.
    shown_upto: usize,
    lines_shown: usize,
    lines_hidden: usize,
    open: bool,
}

impl ReasoningView {
    /// A view showing at most `limit` lines (`None`: all), dimmed when `color`.
    pub fn new(limit: Option<usize>, color: bool) -> Self {
        ReasoningView {
            limit,
            color,
            full: String::new(),
            shown_upto: 0,
            lines_shown: 0,
            lines_hidden: 0,
            open: false,
        }
    }

    /// Adds a delta; returns the complete lines to show now.
    pub fn push(&mut self, delta: &str) -> String {
        self.open = true;
        self.full.push_str(delta);
        let mut out = String::new();
        while let Some(end) = self.full[self.shown_upto..].find('\n') {
            let line = self.full[self.shown_upto..self.shown_upto + end].to_owned();
            self.shown_upto += end + 1;
            out.push_str(&self.line(&line));
        }
        out
    }

    /// Ends the reasoning (the answer starts, a tool runs, the turn ends): the last partial
    /// line and the `… N more lines` note. Empty when no reasoning arrived.
    pub fn finish(&mut self) -> String {
        if !self.open {
            return String::new();
        }
        self.open = false;
        let rest = self.full[self.shown_upto..].to_owned();
        self.shown_upto = self.full.len();
        let mut out = if rest.trim().is_empty() {
            String::new()
        } else {
            self.line(&rest)
        };
        if self.lines_hidden > 0 {
            let note = format!(
                "… {} more line{} (.reasoning)",
                self.lines_hidden,
                if self.lines_hidden == 1 { "" } else { "s" }
            );
            out.push_str(&paint(&note, Paint::Dim, self.color));
            out.push('\n');
        }
        out
    }

    /// The whole reasoning so far.
    pub fn text(&self) -> &str {
        &self.full
    }

    fn line(&mut self, line: &str) -> String {
        if self.limit.is_some_and(|limit| self.lines_shown >= limit) {
            self.lines_hidden += 1;
            return String::new();
        }
        self.lines_shown += 1;
        format!("{}\n", paint(&sanitize(line), Paint::Dim, self.color))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repl_view_shows_three_lines_and_counts_the_rest() {
        let mut view = ReasoningView::new(Some(REPL_LINES), false);
        let mut out = view.push("one\ntw");
        out.push_str(&view.push("o\nthree\nfour\nfi"));
        out.push_str(&view.push("ve"));
        out.push_str(&view.finish());
        assert_eq!(out, "one\ntwo\nthree\n… 2 more lines (.reasoning)\n");
        assert_eq!(view.text(), "one\ntwo\nthree\nfour\nfive");
        assert_eq!(view.finish(), "");
    }

    #[test]
    fn unlimited_dimmed_and_sanitized() {
        let mut view = ReasoningView::new(None, true);
        let mut out = view.push("a\x1b[2J\nb");
        out.push_str(&view.finish());
        assert_eq!(out, "\x1b[2ma\\x1b[2J\x1b[0m\n\x1b[2mb\x1b[0m\n");
    }
}
