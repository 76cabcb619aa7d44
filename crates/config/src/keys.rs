//! The keys mcp.json may contain, grouped by what coyote does with them, and the "did you
//! mean" suggestion for everything else. Adding a key means adding it here and handling it in
//! `mcp_json` — the two lists are checked against each other by a test.

/// Top-level keys of mcp.json.
pub(crate) const TOP_LEVEL_KEYS: &[&str] = &["mcpServers"];

/// Entry keys coyote acts on.
pub(crate) const ENTRY_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "type",
    "transportType",
    "url",
    "serverUrl",
    "headers",
    "bearerTokenEnv",
    "disabled",
    "autoApprove",
    "alwaysAllow",
    "timeout",
    "startupTimeoutSec",
    "toolTimeoutSec",
    "approve",
    "expose",
    "retrieveTopK",
    "retrieveMaxTokens",
    "oauth",
    "sampling",
    "samplingMaxTokens",
    "samplingPerMinute",
    "roots",
    "instructionsMaxBytes",
    "maxResultBytes",
    "toolLimits",
    "start",
    "catalogTtlSec",
    "protocol",
];

/// Entry keys other clients write that carry no behaviour (silently ignored).
pub(crate) const IGNORED_KEYS: &[&str] = &["description", "name", "icon"];

/// Entry keys other clients honour that coyote does not (ignored with a warning and advice).
pub(crate) const UNSUPPORTED_KEYS: &[(&str, &str)] = &[
    (
        "disabledTools",
        "the tools stay visible; set \"approve\": \"all\" to confirm every call instead",
    ),
    (
        "envFile",
        "put the variables in \"env\" (values may use ${VAR})",
    ),
    (
        "watchPaths",
        "restart the server by hand with `.mcp restart NAME`",
    ),
];

/// Misspellings too far from the real key for edit distance, mapped by hand.
const ALIASES: &[(&str, &str)] = &[
    ("servers", "mcpServers"),
    ("mcp", "mcpServers"),
    ("environment", "env"),
    ("arguments", "args"),
    ("argv", "args"),
    ("cmd", "command"),
    ("endpoint", "url"),
    ("workingDirectory", "cwd"),
    ("workdir", "cwd"),
    ("enabled", "disabled"),
];

/// Lowercase without '_' and '-', so `auto_approve` meets `autoApprove`.
fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The candidate `key` was most likely meant to be, if any is close enough.
pub(crate) fn suggest(key: &str, candidates: &[&'static str]) -> Option<&'static str> {
    let norm = normalize(key);
    if let Some(exact) = candidates.iter().find(|c| normalize(c) == norm) {
        return Some(exact);
    }
    if let Some((_, to)) = ALIASES
        .iter()
        .find(|(from, to)| normalize(from) == norm && candidates.contains(to))
    {
        return candidates.iter().copied().find(|c| c == to);
    }
    candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&norm, &normalize(c)), *c))
        .filter(|(distance, c)| *distance <= (norm.len().min(c.len()) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let cases = [
            ("commnd", Some("command")),
            ("Command", Some("command")),
            ("arg", Some("args")),
            ("auto_approve", Some("autoApprove")),
            ("startup_timeout_sec", Some("startupTimeoutSec")),
            ("header", Some("headers")),
            ("environment", Some("env")),
            ("enviroment", None),
            ("zzz", None),
            ("x", None),
        ];
        for (key, want) in cases {
            assert_eq!(suggest(key, ENTRY_KEYS), want, "{key}");
        }
        assert_eq!(suggest("servers", TOP_LEVEL_KEYS), Some("mcpServers"));
        assert_eq!(suggest("mcp_servers", TOP_LEVEL_KEYS), Some("mcpServers"));
        assert_eq!(
            suggest("destructve", &["destructive", "all", "never"]),
            Some("destructive")
        );
    }

    #[test]
    fn key_groups_do_not_overlap() {
        for key in IGNORED_KEYS
            .iter()
            .chain(UNSUPPORTED_KEYS.iter().map(|(k, _)| k))
        {
            assert!(
                !ENTRY_KEYS.contains(key),
                "{key} is both honoured and ignored"
            );
        }
    }
}
