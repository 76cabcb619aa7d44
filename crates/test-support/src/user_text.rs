//! The one check that user-facing text carries no Rust internals: no Rust
//! path with a type in it (`coyote_mcp::McpError`, `rmcp::model::Tool` — the pattern
//! `\b[a-z_][a-z0-9_]*::[A-Z]`), no serde wording that names a Rust type (`untagged enum …`,
//! `struct RawAppConfig`), and no `Observed<…>`-style generic type. URLs (`http://`) are fine.

/// Panics, quoting `text`, when it shows a Rust type name or serde's type wording.
pub fn assert_user_facing(text: &str) {
    if let Some(found) = rust_internals(text) {
        panic!("user-facing text shows Rust internals ({found:?}):\n{text}");
    }
}

/// The first Rust internal `text` shows, if any.
pub fn rust_internals(text: &str) -> Option<String> {
    for phrase in ["untagged enum", "struct ", "Observed<"] {
        let at_word_start = text.match_indices(phrase).any(|(i, _)| {
            !text[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        });
        if at_word_start {
            return Some(phrase.to_owned());
        }
    }
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(offset) = text[at..].find("::") {
        let colons = at + offset;
        let after = bytes.get(colons + 2).copied();
        let word_start = text[..colons]
            .rfind(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .map_or(0, |i| i + 1);
        let word = &text[word_start..colons];
        let starts_well = word
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b == b'_');
        if starts_well && after.is_some_and(|b| b.is_ascii_uppercase()) {
            let end = (colons + 40).min(text.len());
            let end = (end..=text.len())
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(text.len());
            return Some(text[word_start..end].to_owned());
        }
        at = colons + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::rust_internals;

    #[test]
    fn rust_paths_and_serde_wording_are_found() {
        for bad in [
            "failed: coyote_mcp::McpError::Timeout",
            "Observed<rmcp::transport::X>",
            "data did not match any variant of untagged enum RawServerList",
            "invalid type: sequence, expected struct RawAppConfig",
            "x (rmcp::model::Tool)",
        ] {
            assert!(rust_internals(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn sentences_and_urls_pass() {
        for good in [
            "cannot connect to http://127.0.0.1:1/mcp (Connection refused)",
            "MCP server 'fs': tools/call timed out after 1s",
            "a::b is lowercase",
            "construct the request",
            "",
        ] {
            assert!(rust_internals(good).is_none(), "{good}");
        }
    }
}
