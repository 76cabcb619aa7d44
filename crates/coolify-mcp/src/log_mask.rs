//! Masking of diagnostics: every line the stderr log writes passes through [`mask`] first, so
//! tool arguments and results that rmcp logs at `debug`/`trace` (requests, responses, raw
//! messages) never carry a secret, whatever `COOLIFY_MCP_LOG` says.
//!
//! Ground floor: imports only `sanitize` (for its key lists).
//!
//! Invariants:
//! - a quoted string value under a secret key is replaced by [`MASK`] at any JSON quoting
//!   depth: plain JSON, serde_json's `Debug` (`"key": String("…")`) and JSON text escaped
//!   once or more inside a `Debug` string (a tool result's text);
//! - secret keys are those the tool-output sanitizer masks (always-masked and sensitive),
//!   plus env var values (`value`, `real_value`), `authorization`, and any key ending in
//!   `password`, `secret` or `_token`; matching ignores case;
//! - masking never drops a line: what is not recognised passes through unchanged.

use std::borrow::Cow;
use std::io::Write;

use crate::sanitize::{ALWAYS, MASK, SENSITIVE};

/// Whether a value under `key` is masked in the log.
fn secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    ALWAYS.contains(&k.as_str())
        || SENSITIVE.contains(&k.as_str())
        || matches!(k.as_str(), "value" | "real_value" | "authorization")
        || k.ends_with("password")
        || k.ends_with("secret")
        || k.ends_with("_token")
}

/// The length of the run of backslashes that ends just before byte `at`.
fn backslashes_before(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|b| **b == b'\\')
        .count()
}

/// Whether `k` backslashes are a quoting depth (0, 1, 3, 7, …: each level escapes the last).
fn is_depth(k: usize) -> bool {
    (k + 1).is_power_of_two()
}

/// Given `"` at `quote` opened at depth `k`, where its string's closing quote is: the next `"`
/// whose preceding backslash run is `k` plus a whole number of escaped backslashes.
fn closing_quote(bytes: &[u8], from: usize, k: usize) -> Option<usize> {
    let step = 2 * (k + 1);
    (from..bytes.len()).find(|&j| {
        bytes[j] == b'"' && {
            let r = backslashes_before(bytes, j);
            r >= k && (r - k).is_multiple_of(step)
        }
    })
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    // Escaped whitespace of pretty-printed JSON inside a Debug string (`\n`).
    while i + 1 < bytes.len() && bytes[i] == b'\\' && matches!(bytes[i + 1], b'n' | b't') {
        i += 2;
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
    }
    i
}

/// If a secret key's value starts at `i` (after the key's closing quote), the byte range of
/// the value's content to replace.
fn secret_value(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let mut i = skip_ws(bytes, i);
    if bytes.get(i) != Some(&b':') {
        return None;
    }
    i = skip_ws(bytes, i + 1);
    if bytes[i..].starts_with(b"String(") {
        i += "String(".len();
    }
    let run = bytes[i..].iter().take_while(|b| **b == b'\\').count();
    if bytes.get(i + run) != Some(&b'"') || !is_depth(run) {
        return None;
    }
    let start = i + run + 1;
    let end_quote = closing_quote(bytes, start, run)?;
    Some((start, end_quote - run))
}

/// `text` with every secret-keyed string value replaced by [`MASK`].
pub fn mask(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let depth = backslashes_before(bytes, i);
        let key_start = i + 1;
        let key_len = bytes[key_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
            .count();
        let key_end = key_start + key_len;
        let closes = key_len > 0
            && bytes.get(key_end + depth) == Some(&b'"')
            && bytes[key_end..key_end + depth].iter().all(|b| *b == b'\\');
        if !closes || !secret_key(&text[key_start..key_end]) {
            i += 1;
            continue;
        }
        match secret_value(bytes, key_end + depth + 1) {
            Some((start, end)) => {
                out.push_str(&text[copied..start]);
                out.push_str(MASK);
                copied = end;
                i = end;
            }
            None => i = key_end + depth + 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// A writer that masks what it is given before passing it on. The log formatter writes one
/// whole event per call, so a value is never split across calls.
#[derive(Debug)]
pub struct MaskingWriter<W>(pub W);

impl<W: Write> Write for MaskingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.write_all(mask(text).as_bytes())?,
            Err(_) => self
                .0
                .write_all(mask(&String::from_utf8_lossy(buf)).as_bytes())?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
#[path = "log_mask_tests.rs"]
mod tests;
