//! Streaming Markdown for the terminal: text arrives in deltas, each complete line is rendered
//! as soon as its newline arrives (headings bold, list bullets, quotes dim, `inline code`,
//! **bold**, *italic*, rules), and fenced code blocks are highlighted line by line with syntect
//! (its default syntaxes and themes, loaded on the first code block only).
//!
//! [`Style::Plain`] passes the text through untouched and unbuffered: that is what pipes and
//! `NO_COLOR` get, so scripts see exactly what the model wrote.

use std::sync::OnceLock;

use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::as_24_bit_terminal_escaped;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const ITALIC: &str = "\x1b[3m";
const UNDERLINE: &str = "\x1b[4m";
const CODE: &str = "\x1b[36m";
/// The syntect theme used for code blocks.
const THEME: &str = "base16-ocean.dark";

/// How answers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The model's text as it is.
    Plain,
    /// Rendered with ANSI escapes.
    Ansi,
}

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The highlighting theme; `None` (no highlighting) only if syntect shipped no theme at all.
fn theme() -> Option<&'static Theme> {
    static THEMES: OnceLock<ThemeSet> = OnceLock::new();
    let themes = THEMES.get_or_init(ThemeSet::load_defaults);
    themes
        .themes
        .get(THEME)
        .or_else(|| themes.themes.values().next())
}

/// An open fenced code block.
struct CodeBlock {
    fence: String,
    highlighter: Option<HighlightLines<'static>>,
}

/// Renders a stream of text deltas.
pub struct MarkdownRenderer {
    style: Style,
    /// Set when the answer goes to a terminal: the model's text is sanitized first.
    sanitizer: Option<crate::term::sanitize::Sanitizer>,
    /// The current line, not rendered yet (ANSI only).
    pending: String,
    code: Option<CodeBlock>,
    /// Whether the last byte written ended a line.
    at_line_start: bool,
}

impl MarkdownRenderer {
    pub fn new(style: Style) -> Self {
        MarkdownRenderer {
            style,
            sanitizer: None,
            pending: String::new(),
            code: None,
            at_line_start: true,
        }
    }

    /// Sanitizes the model's text before rendering (the answer goes to a terminal).
    pub fn sanitized(mut self) -> Self {
        self.sanitizer = Some(crate::term::sanitize::Sanitizer::default());
        self
    }

    /// Feeds a delta; returns what can be written now.
    pub fn push(&mut self, delta: &str) -> String {
        let delta = match self.sanitizer.as_mut() {
            Some(s) => s.push(delta),
            None => delta.to_owned(),
        };
        let delta = delta.as_str();
        if delta.is_empty() {
            return String::new();
        }
        let out = match self.style {
            Style::Plain => delta.to_owned(),
            Style::Ansi => {
                self.pending.push_str(delta);
                let mut out = String::new();
                while let Some(end) = self.pending.find('\n') {
                    let line: String = self.pending.drain(..=end).collect();
                    out.push_str(&self.render_line(line.trim_end_matches(['\n', '\r'])));
                    out.push('\n');
                }
                out
            }
        };
        if let Some(last) = out.chars().last() {
            self.at_line_start = last == '\n';
        }
        out
    }

    /// Renders what is pending and ends the line if the output did not; call when the answer
    /// ends or something else (a status line) is about to be shown.
    pub fn finish_line(&mut self) -> String {
        let mut out = String::new();
        if let Some(rest) = self.sanitizer.as_mut().map(|s| s.finish()) {
            match self.style {
                Style::Plain => out.push_str(&rest),
                Style::Ansi => self.pending.push_str(&rest),
            }
        }
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            out.push_str(&self.render_line(&line));
            self.at_line_start = false;
        }
        if !self.at_line_start {
            out.push('\n');
            self.at_line_start = true;
        }
        out
    }

    fn render_line(&mut self, line: &str) -> String {
        let trimmed = line.trim_start();
        if let Some(block) = &self.code {
            if trimmed.starts_with(block.fence.as_str()) && trimmed.trim_end() == block.fence {
                self.code = None;
                return format!("{DIM}{line}{RESET}");
            }
            return self.highlight(line);
        }
        if let Some(fence) = fence_of(trimmed) {
            let lang = trimmed[fence.len()..].trim();
            self.code = Some(CodeBlock {
                highlighter: syntax_for(lang)
                    .zip(theme())
                    .map(|(syntax, theme)| HighlightLines::new(syntax, theme)),
                fence,
            });
            return format!("{DIM}{line}{RESET}");
        }
        render_prose(line)
    }

    fn highlight(&mut self, line: &str) -> String {
        let Some(block) = self.code.as_mut() else {
            return line.to_owned();
        };
        let Some(highlighter) = block.highlighter.as_mut() else {
            return format!("{CODE}{line}{RESET}");
        };
        let with_newline = format!("{line}\n");
        match highlighter.highlight_line(&with_newline, syntaxes()) {
            Ok(ranges) => {
                let escaped = as_24_bit_terminal_escaped(&ranges, false);
                format!("{}{RESET}", escaped.trim_end_matches('\n'))
            }
            Err(_) => line.to_owned(),
        }
    }
}

/// "```" / "~~~" (3 or more) at the start of a line.
fn fence_of(line: &str) -> Option<String> {
    for mark in ['`', '~'] {
        let count = line.chars().take_while(|c| *c == mark).count();
        if count >= 3 {
            return Some(std::iter::repeat_n(mark, count).collect());
        }
    }
    None
}

fn syntax_for(lang: &str) -> Option<&'static SyntaxReference> {
    let token = lang.split_whitespace().next()?;
    let set = syntaxes();
    set.find_syntax_by_token(token)
        .or_else(|| set.find_syntax_by_extension(token))
}

/// One line outside code blocks.
fn render_prose(line: &str) -> String {
    let indent_len = line.len() - line.trim_start().len();
    let (indent, rest) = line.split_at(indent_len);
    let hashes = rest.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && rest[hashes..].starts_with(' ') {
        let text = rest[hashes..].trim();
        let style = if hashes == 1 {
            format!("{BOLD}{UNDERLINE}")
        } else {
            BOLD.to_owned()
        };
        return format!("{indent}{style}{}{RESET}", inline(text));
    }
    if is_rule(rest) {
        return format!("{DIM}{}{RESET}", "─".repeat(40));
    }
    if let Some(quoted) = rest.strip_prefix('>') {
        return format!("{indent}{DIM}│{}{RESET}", inline(quoted));
    }
    for bullet in ["- ", "* ", "+ "] {
        if let Some(item) = rest.strip_prefix(bullet) {
            return format!("{indent}• {}", inline(item));
        }
    }
    format!("{indent}{}", inline(rest))
}

fn is_rule(line: &str) -> bool {
    let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    compact.len() >= 3
        && ['-', '*', '_']
            .iter()
            .any(|m| compact.chars().all(|c| c == *m))
}

/// `code`, **bold**, *italic* / _italic_ within one line; unmatched markers stay as written.
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`')
            && let Some(end) = after.find('`')
        {
            out.push_str(&format!("{CODE}{}{RESET}", &after[..end]));
            rest = &after[end + 1..];
            continue;
        }
        if let Some(after) = rest.strip_prefix("**")
            && let Some(end) = after.find("**")
            && end > 0
        {
            out.push_str(&format!("{BOLD}{}{RESET}", &after[..end]));
            rest = &after[end + 2..];
            continue;
        }
        let mut italic = false;
        for mark in ['*', '_'] {
            if let Some(after) = rest.strip_prefix(mark)
                && !after.starts_with(char::is_whitespace)
                && let Some(end) = after.find(mark)
                && end > 0
                && (mark == '*' || out.is_empty() || out.ends_with(' '))
            {
                out.push_str(&format!("{ITALIC}{}{RESET}", &after[..end]));
                rest = &after[end + 1..];
                italic = true;
                break;
            }
        }
        if italic {
            continue;
        }
        let next = rest.chars().next().map_or(1, char::len_utf8);
        out.push_str(&rest[..next]);
        rest = &rest[next..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_all(style: Style, deltas: &[&str]) -> String {
        let mut r = MarkdownRenderer::new(style);
        let mut out: String = deltas.iter().map(|d| r.push(d)).collect();
        out.push_str(&r.finish_line());
        out
    }

    #[test]
    fn plain_passes_text_through_unbuffered() {
        let mut r = MarkdownRenderer::new(Style::Plain);
        assert_eq!(r.push("# Ti"), "# Ti");
        assert_eq!(r.push("tle\n**b**"), "tle\n**b**");
        assert_eq!(r.finish_line(), "\n");
        assert_eq!(r.finish_line(), "");
    }

    #[test]
    fn ansi_renders_complete_lines_only() {
        let mut r = MarkdownRenderer::new(Style::Ansi);
        assert_eq!(r.push("# Ti"), "");
        assert_eq!(
            r.push("tle\nsome "),
            format!("{BOLD}{UNDERLINE}Title{RESET}\n")
        );
        assert_eq!(r.finish_line(), "some \n");
    }

    #[test]
    fn prose_elements() {
        let out = render_all(
            Style::Ansi,
            &["## Sub\n- item with `code`\n> quote\n---\n**bold** and *it* and snake_case_name\n"],
        );
        let expected = format!(
            "{BOLD}Sub{RESET}\n• item with {CODE}code{RESET}\n{DIM}│ quote{RESET}\n{DIM}{}{RESET}\n{BOLD}bold{RESET} and {ITALIC}it{RESET} and snake_case_name\n",
            "─".repeat(40)
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn code_blocks_are_highlighted_and_fences_kept() {
        let out = render_all(Style::Ansi, &["```rust\nfn main() {}\n```\nafter\n"]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("{DIM}```rust{RESET}"));
        assert!(lines[1].contains("\x1b[38;2;"), "{:?}", lines[1]);
        assert!(lines[1].contains("main"), "{:?}", lines[1]);
        assert_eq!(lines[2], format!("{DIM}```{RESET}"));
        assert_eq!(lines[3], "after");
        // Inside code, Markdown markers are left alone.
        let unknown = render_all(Style::Ansi, &["~~~nosuchlang\n# not a heading\n~~~\n"]);
        assert_eq!(
            unknown,
            format!("{DIM}~~~nosuchlang{RESET}\n{CODE}# not a heading{RESET}\n{DIM}~~~{RESET}\n")
        );
    }
}
