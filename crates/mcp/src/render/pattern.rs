//! The `pattern` line filter of `mcp_read_` (seed D4): matching lines with
//! [`PATTERN_CONTEXT_LINES`] lines of context, formatted exactly like `rg -n -C2` — `N:line`
//! for a match, `N-line` for context, `--` between non-adjacent groups, every printed line
//! ending in `\n`. ripgrep is the test oracle.
//!
//! Speed: the regex runs over the whole buffer (its literal prefilters then scan at memchr
//! speed) instead of line by line; line numbers are counted with `memchr` only up to the
//! lines that are printed. Like ripgrep, a line matches iff the regex matches inside that line
//! alone: a match found across a newline is re-checked against its first line.

use std::fmt::Write as _;

use memchr::{memchr, memchr_iter, memrchr};
use regex::{Regex, RegexBuilder};

/// Lines of context before and after each match (`-C2`).
pub const PATTERN_CONTEXT_LINES: usize = 2;

/// A compiled line filter.
#[derive(Debug, Clone)]
pub struct LineFilter {
    regex: Regex,
}

impl LineFilter {
    /// Compiles `pattern` (Rust `regex` syntax, `^`/`$` at line boundaries like ripgrep).
    pub fn new(pattern: &str) -> Result<Self, regex::Error> {
        let regex = RegexBuilder::new(pattern).multi_line(true).build()?;
        Ok(LineFilter { regex })
    }

    pub fn pattern(&self) -> &str {
        self.regex.as_str()
    }

    /// The `rg -n -C2` rendering of the lines of `text` that match.
    pub fn filter(&self, text: &str) -> String {
        let mut printer = Printer {
            text,
            bytes: text.as_bytes(),
            out: String::new(),
            last: None,
        };
        let bytes = text.as_bytes();
        let len = bytes.len();
        let mut counted_pos = 0usize;
        let mut counted_line = 1u64;
        let mut after_left = 0usize;
        let mut search_at = 0usize;
        // Invariant: `search_at` is the start of an unsearched line (< len).
        while search_at < len {
            let Some(m) = self.regex.find_at(text, search_at) else {
                break;
            };
            let start = m.start();
            if start == len && bytes[len - 1] == b'\n' {
                // An empty match after the final newline: that position is not a line.
                break;
            }
            let line_start = memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
            let line_end = memchr(b'\n', &bytes[start..]).map_or(len, |i| start + i);
            let next = if line_end < len { line_end + 1 } else { len };
            let matches = m.end() <= line_end || self.regex.is_match(&text[line_start..line_end]);
            if matches {
                counted_line += memchr_iter(b'\n', &bytes[counted_pos..line_start]).count() as u64;
                counted_pos = line_start;
                printer.after_context(&mut after_left, line_start);
                printer.before_context(counted_line, line_start);
                printer.line(counted_line, line_start, Kind::Match);
                after_left = PATTERN_CONTEXT_LINES;
            }
            search_at = next;
        }
        printer.after_context(&mut after_left, len);
        printer.out
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Match,
    Context,
}

struct Printer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    out: String,
    /// (line number, start of the following line) of the last printed line.
    last: Option<(u64, usize)>,
}

impl Printer<'_> {
    /// Prints the line numbered `number` starting at `start`; returns where the next begins.
    fn line(&mut self, number: u64, start: usize, kind: Kind) -> usize {
        let len = self.bytes.len();
        let end = memchr(b'\n', &self.bytes[start..]).map_or(len, |i| start + i);
        if let Some((last_number, _)) = self.last
            && number > last_number + 1
        {
            self.out.push_str("--\n");
        }
        let sep = if kind == Kind::Match { ':' } else { '-' };
        let _ = write!(self.out, "{number}{sep}");
        self.out.push_str(&self.text[start..end]);
        self.out.push('\n');
        let next = if end < len { end + 1 } else { len };
        self.last = Some((number, next));
        next
    }

    /// Context after the last printed match, up to `limit` (exclusive byte position).
    fn after_context(&mut self, left: &mut usize, limit: usize) {
        let Some((mut number, mut pos)) = self.last else {
            return;
        };
        while *left > 0 && pos < limit {
            number += 1;
            pos = self.line(number, pos, Kind::Context);
            *left -= 1;
        }
        *left = 0;
    }

    /// Up to [`PATTERN_CONTEXT_LINES`] lines before the match line `number` at `start`, never
    /// re-printing a line already printed.
    fn before_context(&mut self, number: u64, start: usize) {
        let first_unprinted = self.last.map_or(1, |(n, _)| n + 1);
        let wanted = (number - first_unprinted).min(PATTERN_CONTEXT_LINES as u64) as usize;
        let mut starts = Vec::with_capacity(wanted);
        let mut pos = start;
        for _ in 0..wanted {
            // `pos - 1` is the newline ending the previous line.
            let prev = memrchr(b'\n', &self.bytes[..pos - 1]).map_or(0, |i| i + 1);
            starts.push(prev);
            pos = prev;
        }
        for (i, line_start) in starts.into_iter().rev().enumerate() {
            let n = number - (wanted - i) as u64;
            self.line(n, line_start, Kind::Context);
        }
    }
}
