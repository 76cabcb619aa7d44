//! What a function (tool) name may look like on the wire, per provider, and a sanitiser that
//! turns any name (e.g. `<server>__<tool>` built from MCP names with dots or slashes) into an
//! accepted one. Collision handling (a stable short hash) belongs to the caller, which sees all
//! names; [`FunctionNameRules::sanitize_with_suffix`] makes room for that suffix.
//!
//! OpenAI and Anthropic both accept `^[a-zA-Z0-9_-]{1,64}$`; OpenAI-compatible servers accept at
//! least that, so it is the one portable rule today.

/// Longest function name OpenAI and Anthropic accept.
pub const MAX_FUNCTION_NAME_BYTES: usize = 64;

/// Which characters a provider allows in function names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameCharset {
    /// ASCII letters, digits, `_` and `-`.
    AlnumUnderscoreDash,
}

/// A provider's function-name constraints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionNameRules {
    /// Which characters are allowed.
    pub charset: NameCharset,
    /// The longest accepted name, in bytes.
    pub max_bytes: usize,
}

impl FunctionNameRules {
    /// `^[a-zA-Z0-9_-]{1,64}$`: accepted by OpenAI, Anthropic and OpenAI-compatible servers.
    pub const PORTABLE: FunctionNameRules = FunctionNameRules {
        charset: NameCharset::AlnumUnderscoreDash,
        max_bytes: MAX_FUNCTION_NAME_BYTES,
    };

    /// Whether `c` may appear in a function name.
    pub fn is_allowed_char(&self, c: char) -> bool {
        match self.charset {
            NameCharset::AlnumUnderscoreDash => c.is_ascii_alphanumeric() || c == '_' || c == '-',
        }
    }

    /// Whether `name` is accepted as it is.
    pub fn is_valid(&self, name: &str) -> bool {
        !name.is_empty()
            && name.len() <= self.max_bytes
            && name.chars().all(|c| self.is_allowed_char(c))
    }

    /// Replaces each disallowed character with `_` and truncates to `max_bytes`; an empty name
    /// becomes `_`. Valid names come back unchanged. Different inputs may map to the same output:
    /// callers that need unique names detect that and use [`Self::sanitize_with_suffix`].
    pub fn sanitize(&self, name: &str) -> String {
        self.sanitize_with_suffix(name, "")
    }

    /// Like [`Self::sanitize`], but the (sanitised) `suffix` is always kept whole at the end and
    /// the name is shortened to make room, e.g. for a collision hash.
    pub fn sanitize_with_suffix(&self, name: &str, suffix: &str) -> String {
        let clean = |s: &str| -> String {
            s.chars()
                .map(|c| if self.is_allowed_char(c) { c } else { '_' })
                .collect()
        };
        let suffix: String = clean(suffix).chars().take(self.max_bytes).collect();
        let mut base = clean(name);
        // Every allowed character is ASCII, so byte truncation is a char boundary.
        base.truncate(self.max_bytes - suffix.len());
        if base.is_empty() && suffix.is_empty() {
            base.push('_');
        }
        base + &suffix
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_cases() {
        let rules = FunctionNameRules::PORTABLE;
        let long = "a".repeat(70);
        let cases = [
            ("fs__read_file", "fs__read_file".to_string()),
            ("git.hub/issues list", "git_hub_issues_list".to_string()),
            ("h\u{e9}llo", "h_llo".to_string()),
            ("", "_".to_string()),
            (long.as_str(), "a".repeat(64)),
        ];
        for (input, expected) in cases {
            let out = rules.sanitize(input);
            assert_eq!(out, expected, "{input}");
            assert!(rules.is_valid(&out), "{out}");
        }
    }

    #[test]
    fn suffix_is_kept_whole() {
        let rules = FunctionNameRules::PORTABLE;
        let out = rules.sanitize_with_suffix(&"x".repeat(100), "_3f9a1c");
        assert_eq!(out, format!("{}_3f9a1c", "x".repeat(57)));
        assert_eq!(out.len(), 64);
        assert_eq!(rules.sanitize_with_suffix("", "_h"), "_h");
    }

    #[test]
    fn validity() {
        let rules = FunctionNameRules::PORTABLE;
        assert!(rules.is_valid("a-b_C9"));
        assert!(!rules.is_valid(""));
        assert!(!rules.is_valid("a.b"));
        assert!(!rules.is_valid(&"a".repeat(65)));
    }
}
