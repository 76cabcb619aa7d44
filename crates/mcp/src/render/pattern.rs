//! The `pattern` line filter of `mcp_read_`: matching lines with
//! [`PATTERN_CONTEXT_LINES`] lines of context, formatted exactly like `rg -n -C2` — `N:line`
//! for a match, `N-line` for context, `--` between non-adjacent groups, every printed line
//! ending in `\n`. ripgrep is the test oracle.
//!
//! Speed: the regex runs over a whole block of lines (its literal prefilters then scan at
//! memchr speed) instead of line by line, on bytes; line numbers are counted only up to the
//! lines that are printed ([`count_newlines`]), and a streamed block is checked to be UTF-8
//! with the (faster) ASCII test first. Like ripgrep, a line matches iff the regex matches
//! inside that line alone: a match found across a newline is re-checked against its first line.
//!
//! Blocks: [`LineFilter::filter`] scans a text in memory as one block; [`LineFilter::filter_reader`]
//! scans a byte stream through one reused buffer of [`READ_BUFFER_BYTES`] (grown only for a
//! longer line), so a file is never loaded whole. Each block holds complete lines only, and
//! starts with up to [`PATTERN_CONTEXT_LINES`] already-searched lines of the previous block as
//! before-context; the scan state (last printed line, after-context owed) carries across
//! blocks, so both entry points print the same bytes for the same text.

use std::io::{self, Read};

use memchr::{memchr, memrchr};
use regex::bytes::{Regex as BytesRegex, RegexBuilder as BytesRegexBuilder};
use regex::{Regex, RegexBuilder};

/// Lines of context before and after each match (`-C2`).
pub const PATTERN_CONTEXT_LINES: usize = 2;

/// Initial buffer of [`LineFilter::filter_reader`] (ripgrep's default is 64 KiB too): small
/// enough to stay in the CPU cache between the read and the scan.
pub const READ_BUFFER_BYTES: usize = 64 * 1024;

/// Window of [`LineFilter::filter`] (extended to the next line end): the regex scans it and
/// the newlines are counted while it is still in cache.
const SCAN_WINDOW_BYTES: usize = 64 * 1024;

/// Why [`LineFilter::filter_reader`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum FilterReadError {
    /// Reading failed.
    #[error("reading the text to filter failed: {0}")]
    Io(#[from] io::Error),
    /// The text is not UTF-8.
    #[error(
        "the text to filter is not valid UTF-8 (first invalid byte at offset {offset}); the \
         pattern filter only reads text"
    )]
    NotUtf8 {
        /// Byte offset of the first invalid byte.
        offset: u64,
    },
}

/// A compiled line filter.
#[derive(Debug, Clone)]
pub struct LineFilter {
    /// The pattern as a text regex: it decides which patterns are accepted (no match of
    /// invalid UTF-8) and names the pattern.
    regex: Regex,
    /// The same pattern over bytes, which the scan runs on (the text is checked UTF-8 before).
    bytes: BytesRegex,
}

impl LineFilter {
    /// Compiles `pattern` (Rust `regex` syntax, `^`/`$` at line boundaries like ripgrep).
    pub fn new(pattern: &str) -> Result<Self, regex::Error> {
        let regex = RegexBuilder::new(pattern).multi_line(true).build()?;
        let bytes = BytesRegexBuilder::new(pattern).multi_line(true).build()?;
        Ok(LineFilter { regex, bytes })
    }

    /// The pattern as compiled.
    pub fn pattern(&self) -> &str {
        self.regex.as_str()
    }

    /// The `rg -n -C2` rendering of the lines of `text` that match.
    pub fn filter(&self, text: &str) -> String {
        self.filter_windowed(text, SCAN_WINDOW_BYTES)
    }

    /// [`filter`](Self::filter) scanning windows of about `window` bytes (tests use tiny ones).
    fn filter_windowed(&self, text: &str, window: usize) -> String {
        let bytes = text.as_bytes();
        let mut scan = Scan::new(&self.bytes);
        let mut cursor = Cursor { pos: 0, line: 1 };
        let mut from = 0usize;
        loop {
            // Windows of whole lines keep the regex scan and the newline count in cache.
            let end = match from.checked_add(window) {
                Some(at) if at < bytes.len() => {
                    memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1)
                }
                _ => bytes.len(),
            };
            cursor = scan.block(&bytes[..end], cursor, from);
            if end == bytes.len() {
                return scan.out;
            }
            cursor = Cursor {
                pos: end,
                line: cursor.line_at(bytes, end),
            };
            from = end;
        }
    }

    /// [`filter`](Self::filter) over a byte stream (a file, a spilled result), read through one
    /// reused buffer; the text must be UTF-8.
    pub fn filter_reader<R: Read>(&self, reader: R) -> Result<String, FilterReadError> {
        self.filter_buffered(reader, READ_BUFFER_BYTES)
    }

    /// [`filter_reader`](Self::filter_reader) starting with a `capacity`-byte buffer (tests
    /// use tiny ones to put block boundaries everywhere).
    fn filter_buffered<R: Read>(
        &self,
        mut reader: R,
        capacity: usize,
    ) -> Result<String, FilterReadError> {
        let mut scan = Scan::new(&self.bytes);
        let mut buf = vec![0u8; capacity.max(1)];
        // `buf[..filled]` holds unconsumed input; `buf[..search_from]` are searched lines kept
        // as before-context, numbered from `first_line`; `consumed` counts the bytes dropped.
        let (mut filled, mut search_from, mut first_line, mut consumed) = (0, 0, 1u64, 0u64);
        let mut eof = false;
        loop {
            while filled < buf.len() && !eof {
                match reader.read(&mut buf[filled..]) {
                    Ok(0) => eof = true,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e.into()),
                }
            }
            let end = if eof {
                filled
            } else if let Some(i) = memrchr(b'\n', &buf[search_from..filled]) {
                search_from + i + 1
            } else {
                // No complete new line fits: a line longer than the buffer.
                buf.resize(buf.len() * 2, 0);
                continue;
            };
            // `end` is a line start, never inside a code point (b'\n' is ASCII).
            let text = &buf[..end];
            // All ASCII (most logs) is UTF-8, and the test runs twice as fast as the full one.
            if !text.is_ascii() {
                std::str::from_utf8(text).map_err(|e| FilterReadError::NotUtf8 {
                    offset: consumed + e.valid_up_to() as u64,
                })?;
            }
            let cursor = scan.block(
                text,
                Cursor {
                    pos: 0,
                    line: first_line,
                },
                search_from,
            );
            if eof {
                return Ok(scan.out);
            }
            let keep_from = lines_back(&buf[..end], end, PATTERN_CONTEXT_LINES);
            first_line = cursor.line_at(&buf[..end], keep_from);
            buf.copy_within(keep_from..filled, 0);
            filled -= keep_from;
            search_from = end - keep_from;
            consumed += keep_from as u64;
        }
    }
}

/// Start of the first of the (up to) `n` lines that end at `pos`, a line start.
fn lines_back(bytes: &[u8], mut pos: usize, n: usize) -> usize {
    for _ in 0..n {
        if pos == 0 {
            break;
        }
        // `pos - 1` is the newline ending the previous line.
        pos = memrchr(b'\n', &bytes[..pos - 1]).map_or(0, |i| i + 1);
    }
    pos
}

/// A known (line start, line number) pair of the current block.
#[derive(Clone, Copy)]
struct Cursor {
    pos: usize,
    line: u64,
}

impl Cursor {
    /// The number of the line starting at `pos`, counting newlines from the cursor.
    fn line_at(self, bytes: &[u8], pos: usize) -> u64 {
        if pos >= self.pos {
            self.line + count_newlines(&bytes[self.pos..pos])
        } else {
            self.line - count_newlines(&bytes[pos..self.pos])
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Match,
    Context,
}

/// The scan state that carries from block to block, and the output.
struct Scan<'r> {
    regex: &'r BytesRegex,
    out: String,
    /// Number of the last printed line; 0 before the first.
    last_printed: u64,
    /// Start of the line after the last printed one, in the current block (meaningful while
    /// `after_left > 0`).
    next_pos: usize,
    /// After-context lines still owed to the last match.
    after_left: usize,
}

impl<'r> Scan<'r> {
    fn new(regex: &'r BytesRegex) -> Self {
        Scan {
            regex,
            out: String::new(),
            last_printed: 0,
            next_pos: 0,
            after_left: 0,
        }
    }

    /// Scans one block: `bytes` holds complete lines of UTF-8 (the last one ends in `\n`
    /// unless the input ends there); `bytes[..search_from]` were searched in the previous
    /// block, and `cursor` numbers a line at or before `search_from`. Returns the last cursor
    /// used.
    fn block(&mut self, bytes: &[u8], mut cursor: Cursor, search_from: usize) -> Cursor {
        let len = bytes.len();
        // Context owed from the previous block starts right after it (see `after_context`).
        self.next_pos = search_from;
        let mut search_at = search_from;
        // Invariant: `search_at` is the start of an unsearched line (< len).
        while search_at < len {
            let Some(m) = self.regex.find_at(bytes, search_at) else {
                break;
            };
            let start = m.start();
            if start == len && bytes[len - 1] == b'\n' {
                // An empty match after the final newline: that position is not a line here.
                break;
            }
            let line_start = memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
            let line_end = memchr(b'\n', &bytes[start..]).map_or(len, |i| start + i);
            let matches = m.end() <= line_end || self.regex.is_match(&bytes[line_start..line_end]);
            if matches {
                cursor = Cursor {
                    pos: line_start,
                    line: cursor.line_at(bytes, line_start),
                };
                self.after_context(bytes, line_start);
                self.before_context(bytes, cursor);
                self.line(bytes, cursor.line, line_start, Kind::Match);
                self.after_left = PATTERN_CONTEXT_LINES;
            }
            search_at = if line_end < len { line_end + 1 } else { len };
        }
        // Context that runs past the block stays owed (`after_left`), ending at its last line.
        self.after_context(bytes, len);
        cursor
    }

    /// Prints the line numbered `number` starting at `start`.
    fn line(&mut self, bytes: &[u8], number: u64, start: usize, kind: Kind) {
        let end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        if self.last_printed > 0 && number > self.last_printed + 1 {
            self.out.push_str("--\n");
        }
        push_decimal(&mut self.out, number);
        self.out.push(if kind == Kind::Match { ':' } else { '-' });
        // Whole lines of UTF-8 (the block was checked), so this borrows and never replaces.
        self.out
            .push_str(&String::from_utf8_lossy(&bytes[start..end]));
        self.out.push('\n');
        self.last_printed = number;
        self.next_pos = if end < bytes.len() { end + 1 } else { end };
    }

    /// Owed after-context lines that start before `limit` (a byte position of this block).
    fn after_context(&mut self, bytes: &[u8], limit: usize) {
        while self.after_left > 0 && self.next_pos < limit {
            self.line(bytes, self.last_printed + 1, self.next_pos, Kind::Context);
            self.after_left -= 1;
        }
    }

    /// Up to [`PATTERN_CONTEXT_LINES`] lines before the match line at `at`, never re-printing
    /// a line already printed. They are in this block: it starts with that many lines of
    /// history, or at the first line of the input.
    fn before_context(&mut self, bytes: &[u8], at: Cursor) {
        let wanted = (at.line - (self.last_printed + 1)).min(PATTERN_CONTEXT_LINES as u64);
        let mut pos = lines_back(bytes, at.pos, wanted as usize);
        for number in at.line - wanted..at.line {
            self.line(bytes, number, pos, Kind::Context);
            pos = self.next_pos;
        }
    }
}

/// The number of `\n` in `bytes`, counted with vector instructions rather than found one by
/// one; a log has a newline every hundred bytes or so.
fn count_newlines(bytes: &[u8]) -> u64 {
    // memchr's vectorised count: it is compiled at opt-level 3 in every profile (the `dist`
    // profile builds this crate at "s", where a loop of its own is not vectorised).
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Appends `n` in decimal (no formatting machinery: a dense match prints millions of these).
fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

#[cfg(test)]
#[path = "pattern_tests.rs"]
mod tests;
