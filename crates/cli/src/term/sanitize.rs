//! The one terminal sanitizer. Text that coyote did not write itself —
//! what MCP servers send (tool results, resource and prompt text, log lines, names,
//! descriptions, mime types, error messages) and what the model answers — passes through here
//! before it reaches a terminal, so it can show anything but control the terminal with nothing:
//!
//! - C0 control characters except `\n` and `\t` (and a `\r` right before `\n`), and DEL, are
//!   written as `\xNN` (`\x1b`, `\x07`); a lone carriage return as `\r`;
//! - C1 control characters (U+0080–U+009F) and the bidi overrides and isolates (U+202A–U+202E,
//!   U+2066–U+2069) as `<U+XXXX>`;
//! - a token (a run without white space) longer than [`MAX_TOKEN_CHARS`] characters is cut
//!   there, with a ` …[N more characters]` marker.
//!
//! ESC, OSC and CSI sequences are thereby shown as the text they are (`\x1b]8;;…`), never
//! acted on. `--json` output does not come here (JSON escapes it, and keeps the exact text), and
//! the model always receives the exact text; only what is printed for a person is sanitized.
//! Styling added afterwards (the Markdown renderer's colours and OSC 8 links) is coyote's own.

use std::borrow::Cow;

/// Longest run of non-white-space characters shown before it is cut.
pub const MAX_TOKEN_CHARS: usize = 4096;

/// The sanitized form of `text` (borrowed when nothing had to change).
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !needs_work(text) {
        return Cow::Borrowed(text);
    }
    let mut s = Sanitizer::default();
    let mut out = s.push(text);
    out.push_str(&s.finish());
    Cow::Owned(out)
}

/// Whether any character needs escaping or any token is too long.
fn needs_work(text: &str) -> bool {
    let mut run = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() != Some(&'\n') {
                return true;
            }
        } else if escaped(c).is_some() {
            return true;
        }
        if c.is_whitespace() {
            run = 0;
        } else {
            run += 1;
            if run > MAX_TOKEN_CHARS {
                return true;
            }
        }
    }
    false
}

/// The visible form of a character that must not reach the terminal as it is.
fn escaped(c: char) -> Option<String> {
    match c {
        '\n' | '\t' => None,
        '\u{0}'..='\u{1f}' | '\u{7f}' => Some(format!("\\x{:02x}", u32::from(c))),
        '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Some(format!("<U+{:04X}>", u32::from(c)))
        }
        _ => None,
    }
}

/// The sanitizer for text that arrives in pieces (a streamed answer): a token or a `\r\n`
/// split across two pieces is treated as if it had come whole.
#[derive(Debug, Default)]
pub struct Sanitizer {
    /// Characters of the current token so far.
    run: usize,
    /// Characters of the current token dropped past the limit.
    dropped: usize,
    /// A `\r` was the last character and its meaning depends on the next one.
    pending_cr: bool,
}

impl Sanitizer {
    /// Sanitizes the next piece; returns what can be written now.
    pub fn push(&mut self, piece: &str) -> String {
        let mut out = String::with_capacity(piece.len());
        for c in piece.chars() {
            if self.pending_cr {
                self.pending_cr = false;
                if c != '\n' {
                    self.emit(&mut out, "\\r", 1);
                } else {
                    self.end_token(&mut out);
                    out.push('\r');
                }
            }
            if c == '\r' {
                self.pending_cr = true;
                continue;
            }
            if c.is_whitespace() && escaped(c).is_none() {
                self.end_token(&mut out);
                out.push(c);
                continue;
            }
            match escaped(c) {
                Some(visible) => self.emit(&mut out, &visible, 1),
                None => {
                    let mut buf = [0u8; 4];
                    self.emit(&mut out, c.encode_utf8(&mut buf), 1);
                }
            }
        }
        out
    }

    /// Ends the text: a trailing `\r` is shown, a cut token gets its marker.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        if std::mem::take(&mut self.pending_cr) {
            self.emit(&mut out, "\\r", 1);
        }
        self.end_token(&mut out);
        out
    }

    /// Adds one input character (shown as `shown`) to the current token.
    fn emit(&mut self, out: &mut String, shown: &str, chars: usize) {
        if self.run >= MAX_TOKEN_CHARS {
            self.dropped += chars;
            return;
        }
        self.run += chars;
        out.push_str(shown);
    }

    fn end_token(&mut self, out: &mut String) {
        if self.dropped > 0 {
            // A space first, so the marker is no part of the cut token (sanitizing twice
            // changes nothing).
            out.push_str(&format!(" …[{} more characters]", self.dropped));
        }
        self.run = 0;
        self.dropped = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        let text = "héllo\tworld\nline two 🦊\r\n";
        assert!(matches!(sanitize(text), Cow::Borrowed(_)));
        assert_eq!(sanitize(text), text);
    }

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(sanitize("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(
            sanitize("\x1b]8;;https://evil.example\x07click\x1b]8;;\x07"),
            "\\x1b]8;;https://evil.example\\x07click\\x1b]8;;\\x07"
        );
        assert_eq!(
            sanitize("bell\x07 nul\0 del\x7f"),
            "bell\\x07 nul\\x00 del\\x7f"
        );
        assert_eq!(sanitize("over\rwrite"), "over\\rwrite");
        assert_eq!(sanitize("end\r"), "end\\r");
    }

    #[test]
    fn c1_controls_and_bidi_overrides_become_code_points() {
        assert_eq!(sanitize("csi\u{9b}31m"), "csi<U+009B>31m");
        assert_eq!(sanitize("abc\u{202e}fed"), "abc<U+202E>fed");
        assert_eq!(sanitize("\u{2066}x\u{2069}"), "<U+2066>x<U+2069>");
        // Other non-ASCII text is left alone.
        assert_eq!(sanitize("\u{a0}é\u{2028}"), "\u{a0}é\u{2028}");
    }

    #[test]
    fn long_tokens_are_cut_with_a_marker() {
        let long = "x".repeat(MAX_TOKEN_CHARS + 10);
        let text = format!("short {long} after");
        let out = sanitize(&text);
        let expected = format!(
            "short {} …[10 more characters] after",
            "x".repeat(MAX_TOKEN_CHARS)
        );
        assert_eq!(out, expected);
        // Exactly the limit is kept whole.
        let exact = "y".repeat(MAX_TOKEN_CHARS);
        assert_eq!(sanitize(&exact), exact);
        // Sanitizing twice changes nothing.
        assert_eq!(sanitize(&out), out);
    }

    #[test]
    fn streamed_pieces_sanitize_like_the_whole() {
        let whole = "a\r\nb\x1b[0m c\r".to_owned() + &"z".repeat(MAX_TOKEN_CHARS + 3) + " end";
        let mut s = Sanitizer::default();
        let mut pieces = String::new();
        let chars: Vec<char> = whole.chars().collect();
        for chunk in chars.chunks(3) {
            pieces.push_str(&s.push(&chunk.iter().collect::<String>()));
        }
        pieces.push_str(&s.finish());
        assert_eq!(pieces, sanitize(&whole));
        assert!(pieces.starts_with("a\r\nb\\x1b[0m c\\r"), "{pieces:?}");
    }
}
