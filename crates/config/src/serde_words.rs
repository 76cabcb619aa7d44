//! serde's error messages in words people use: serde names the Rust type
//! it wanted (`expected struct RawAppConfig`, `did not match any variant of untagged enum
//! RawServerList`), which means nothing to whoever edits the file.

/// `message` with every `struct Name`, `untagged enum Name` and `enum Name` replaced by a
/// plain description, and Rust paths (`a::b::Name`) cut to their last segment.
pub(crate) fn plain(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while !rest.is_empty() {
        let replaced = [
            ("variant of untagged enum ", "accepted form"),
            ("untagged enum ", "one of the accepted forms"),
            ("struct ", "a mapping (key: value)"),
            ("enum ", "one of the accepted values"),
        ]
        .iter()
        .find_map(|(phrase, words)| {
            let after = rest.strip_prefix(phrase)?;
            let name_len = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(after.len());
            let name = &after[..name_len];
            let at_word_start = !out.chars().next_back().is_some_and(char::is_alphanumeric);
            (at_word_start && name.chars().next().is_some_and(char::is_uppercase))
                .then(|| (*words, &after[name_len..]))
        });
        match replaced {
            Some((words, after)) => {
                out.push_str(words);
                rest = after;
            }
            None => {
                let mut chars = rest.chars();
                if let Some(c) = chars.next() {
                    out.push(c);
                }
                rest = chars.as_str();
            }
        }
    }
    strip_rust_paths(&out)
}

/// `coyote_config::x::Name` → `Name`: a chain of lowercase `segment::` before a capitalised
/// name is dropped.
fn strip_rust_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("::") {
        let (before, after) = rest.split_at(at);
        let after = &after[2..];
        out.push_str(before);
        if after.chars().next().is_some_and(char::is_uppercase) {
            // Drop the `a::b` chain just written.
            loop {
                let keep = out
                    .trim_end_matches(|c: char| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'
                    })
                    .len();
                out.truncate(keep);
                if out.ends_with("::") {
                    out.truncate(out.len() - 2);
                } else {
                    break;
                }
            }
        } else {
            out.push_str("::");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn rust_types_become_words() {
        assert_eq!(
            plain("invalid type: sequence, expected struct RawAppConfig"),
            "invalid type: sequence, expected a mapping (key: value)"
        );
        assert_eq!(
            plain(
                "clients: data did not match any variant of untagged enum RawServerList at line 2"
            ),
            "clients: data did not match any accepted form at line 2"
        );
        assert_eq!(
            plain("unknown variant `x`, expected enum Theme"),
            "unknown variant `x`, expected one of the accepted values"
        );
        assert_eq!(
            plain("bad coyote_config::raw::Thing here"),
            "bad Thing here"
        );
        assert_eq!(
            plain("a construct of structure"),
            "a construct of structure"
        );
        assert_eq!(plain("https://host/x"), "https://host/x");
    }
}
