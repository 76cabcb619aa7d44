//! UTF-8-safe byte paging. Invariants: a page never splits a code point (the start
//! rounds forward, the end rounds back), and a non-empty remainder always yields at least one
//! code point, so `offset = next_offset` paging always terminates.

use super::MAX_BYTES_CLAMP;

/// One page of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPage<'a> {
    /// The page's text.
    pub text: &'a str,
    /// Where the page starts after rounding the requested offset forward.
    pub offset: usize,
    /// Size in bytes of the whole text.
    pub total_bytes: usize,
    /// `Some(end)` while text remains after this page.
    pub next_offset: Option<usize>,
}

impl TextPage<'_> {
    /// Text remains after this page.
    pub fn truncated(&self) -> bool {
        self.next_offset.is_some()
    }
}

/// The page of `text` starting at `offset` with at most `max_bytes` bytes (clamped to
/// 1..=[`MAX_BYTES_CLAMP`]), except that a page holds at least one code point when any remain.
/// An offset past the end gives an empty page with no `next_offset`.
pub fn page_text(text: &str, offset: usize, max_bytes: usize) -> TextPage<'_> {
    let total = text.len();
    let max_bytes = max_bytes.clamp(1, MAX_BYTES_CLAMP);
    let start = ceil_char_boundary(text, offset.min(total));
    let mut end = floor_char_boundary(text, start.saturating_add(max_bytes).min(total));
    if end == start && start < total {
        // max_bytes is smaller than the code point at `start`: take it whole to advance.
        end = start + text[start..].chars().next().map_or(1, char::len_utf8);
    }
    TextPage {
        text: &text[start..end],
        offset: start,
        total_bytes: total,
        next_offset: (end < total).then_some(end),
    }
}

/// The first char boundary at or after `i` (`i <= len`).
pub fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The last char boundary at or before `i` (`i <= len`).
pub fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
