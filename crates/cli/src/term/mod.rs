//! The terminal: what it can do ([`caps`]), the one sanitizer for text coyote did not write
//! ([`sanitize`]), and the small helpers every printer uses so that the rules hold in one place:
//! stdout is sanitized when it is a terminal (piped output keeps the exact bytes), stderr always
//! (it is for people), and colour only where [`caps::Caps`] allows it.

pub mod caps;
pub mod sanitize;
mod wrap;

use std::borrow::Cow;

pub use self::caps::caps;
pub use self::sanitize::sanitize;
pub use self::wrap::{wrap, wrap_hanging};

/// `text` as it may be written to stdout: sanitized when stdout is a terminal.
pub fn for_stdout(text: &str) -> Cow<'_, str> {
    if caps().ttys.stdout {
        sanitize(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as it may be written to stderr: always sanitized.
pub fn for_stderr(text: &str) -> Cow<'_, str> {
    sanitize(text)
}

/// Sanitized `text` on one line (line breaks become ` ⏎ `), at most `max_chars` characters
/// (then `…`): for server text shown inside a line coyote composes (server log lines).
pub fn one_line(text: &str, max_chars: usize) -> String {
    let flat = sanitize(&text.trim_end().replace("\r\n", "\n")).replace('\n', " ⏎ ");
    if flat.chars().count() <= max_chars {
        return flat;
    }
    let cut: String = flat.chars().take(max_chars).collect();
    format!("{cut}…")
}

/// SGR codes coyote uses for its own styling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// Bold red: errors.
    Error,
    /// Yellow: warnings, refusals.
    Warn,
    /// Green: success.
    Ok,
    /// Cyan: the spinner.
    Accent,
    /// Dim: reasoning.
    Dim,
    /// Bold: table headers.
    Bold,
}

impl Paint {
    fn sgr(self) -> &'static str {
        match self {
            Paint::Error => "1;31",
            Paint::Warn => "33",
            Paint::Ok => "32",
            Paint::Accent => "36",
            Paint::Dim => "2",
            Paint::Bold => "1",
        }
    }
}

/// `text` wrapped in `paint` when `enabled`, else unchanged.
pub fn paint(text: &str, paint: Paint, enabled: bool) -> String {
    if enabled {
        format!("\x1b[{}m{text}\x1b[0m", paint.sgr())
    } else {
        text.to_owned()
    }
}

/// Writes `line` and a newline to stderr, sanitized; a failing stderr is ignored.
pub fn eprint_line(line: &str) {
    crate::capture::stderr_line(&for_stderr(line));
}

/// `coyote: MESSAGE` on stderr, the prefix coloured as an error when stderr allows it.
pub fn error_line(message: &str) {
    let prefix = paint("coyote:", Paint::Error, caps().color_stderr);
    eprint_line_prefixed(&prefix, message);
}

/// `coyote: warning: MESSAGE` on stderr.
pub fn warning_line(message: &str) {
    let prefix = paint("coyote: warning:", Paint::Warn, caps().color_stderr);
    eprint_line_prefixed(&prefix, message);
}

/// `coyote: MESSAGE` on stderr for notes and confirmations (never coloured).
pub fn note_line(message: &str) {
    eprint_line_prefixed("coyote:", message);
}

/// Writes coyote's own `prefix` as it is and the (sanitized) message after it; on a terminal
/// (or with `$COLUMNS`) each line of the message is wrapped to the width, continuation lines
/// indented, so that no line is wider than the terminal.
fn eprint_line_prefixed(prefix: &str, message: &str) {
    let message = for_stderr(message);
    let Some(width) = caps().stderr_width() else {
        crate::capture::stderr_line(&format!("{prefix} {message}"));
        return;
    };
    // Wrap with a plain stand-in of the prefix's width, then put the (painted) prefix back.
    let plain = "x".repeat(visible_width(prefix));
    let mut out = Vec::new();
    for (i, line) in message.split('\n').enumerate() {
        if i == 0 {
            out.extend(wrap_hanging(&format!("{plain} {line}"), width, 2));
            continue;
        }
        // Later lines keep their own indentation (hints, listed items).
        let body = line.trim_start_matches(' ');
        let lead = " ".repeat(line.len().saturating_sub(body.len()).min(width / 2));
        out.extend(
            wrap_hanging(body, width.saturating_sub(lead.len()), 2)
                .into_iter()
                .map(|l| format!("{lead}{l}")),
        );
    }
    if let Some(first) = out.first_mut()
        && let Some(rest) = first.strip_prefix(&plain)
    {
        *first = format!("{prefix}{rest}");
    }
    crate::capture::stderr_line(&out.join("\n"));
}

/// Display width of coyote's own styled text (SGR sequences take no room).
fn visible_width(styled: &str) -> usize {
    let mut width = 0;
    let mut in_escape = false;
    for c in styled.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, c) if c.is_ascii_alphabetic() => in_escape = false,
            (true, _) => {}
            (false, c) => width += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0),
        }
    }
    width
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_flattens_sanitizes_and_cuts() {
        assert_eq!(one_line("one\ntwo\r\nthree\n", 100), "one ⏎ two ⏎ three");
        assert_eq!(one_line("a\x1b[31mred", 100), "a\\x1b[31mred");
        assert_eq!(one_line("abcdef", 3), "abc…");
    }
}
