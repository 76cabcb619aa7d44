//! Word wrapping by display width, for prose coyote writes to a terminal (notes, errors,
//! hints under a table): lines break at spaces, and inside a word only where the word alone is
//! wider than the line (a URL, a path). Never wider than the width asked for.
// Widths, counts and sizes of the terminal layout: an unchecked `-` here once panicked on an
// 80-column terminal, so every operation is checked or saturating (clippy enforces it).
#![deny(clippy::arithmetic_side_effects)]

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `text` broken into lines of at most `width` display columns, at spaces where it can and
/// inside a word only where the word alone is wider (a URL, a path).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let sep = usize::from(!line.is_empty());
        if line
            .width()
            .saturating_add(sep)
            .saturating_add(word.width())
            <= width
        {
            if sep == 1 {
                line.push(' ');
            }
            line.push_str(word);
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for c in word.chars() {
            let w = UnicodeWidthChar::width(c).unwrap_or(0);
            if !line.is_empty() && line.width().saturating_add(w) > width {
                lines.push(std::mem::take(&mut line));
            }
            line.push(c);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `first` then `text` wrapped to `width`, later lines indented by `indent` spaces: for
/// `coyote: MESSAGE` lines whose continuation should stand out from the next message.
pub fn wrap_hanging(text: &str, width: usize, indent: usize) -> Vec<String> {
    let mut lines = wrap(text, width);
    if lines.len() <= 1 || width <= indent.saturating_add(10) {
        return lines;
    }
    let rest = lines.split_off(1).join(" ");
    let pad = " ".repeat(indent);
    lines.extend(
        wrap(&rest, width.saturating_sub(indent))
            .into_iter()
            .map(|l| format!("{pad}{l}")),
    );
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hanging_lines_are_indented_and_fit() {
        let lines = wrap_hanging("coyote: one two three four five six seven", 16, 2);
        assert_eq!(
            lines,
            ["coyote: one two", "  three four", "  five six seven"]
        );
        for l in wrap_hanging(&"x".repeat(100), 12, 2) {
            assert!(l.width() <= 12, "{l}");
        }
    }
}
