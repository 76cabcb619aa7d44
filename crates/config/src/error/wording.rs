//! How a [`ProblemKind`] reads: every problem says what is wrong and the fix (the wording of
//! `mcp.json` problems, apart from their definitions in the parent module).

use std::fmt;

use super::{MAX_SERVER_NAME_BYTES, MAX_TIMEOUT_SECS, NameProblem, ProblemKind};
use crate::expand::VarProblem;

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::WrongType { expected, found } => write!(
                f,
                "expected {}, found {found}. Fix: write it as {}, e.g. {}",
                expected.describe(),
                expected.describe(),
                expected.example()
            ),
            ProblemKind::NoTransport => f.write_str(
                "has neither \"command\" nor \"url\". Fix: add \"command\" (a program that speaks \
                 MCP on stdin/stdout, e.g. \"npx\") or \"url\" (an MCP server over HTTP)",
            ),
            ProblemKind::CommandAndUrl => f.write_str(
                "has both \"command\" and \"url\". Fix: keep \"command\" for a local program or \
                 \"url\" for an HTTP server, not both",
            ),
            ProblemKind::MissingKey { key, transport } => write!(
                f,
                "\"{key}\" is missing (a {transport} server needs it). Fix: add \"{key}\"{}",
                match *key {
                    "command" => ", e.g. \"command\": \"npx\"",
                    "url" => ", e.g. \"url\": \"https://example.com/mcp\"",
                    _ => "",
                }
            ),
            ProblemKind::KeyConflictsWithType { key, declared } => write!(
                f,
                "\"{key}\" cannot be used with \"type\": \"{declared}\". Fix: remove \"{key}\" \
                 or change \"type\""
            ),
            ProblemKind::ConflictingTypes {
                type_value,
                transport_type_value,
            } => write!(
                f,
                "\"type\": \"{type_value}\" and \"transportType\": \"{transport_type_value}\" \
                 disagree. Fix: remove \"transportType\""
            ),
            ProblemKind::BadName { name, reason } => write_bad_name(f, name, reason),
            ProblemKind::Empty => f.write_str("is empty. Fix: give it a value or remove the key"),
            ProblemKind::UnknownValue {
                found,
                allowed,
                suggestion,
            } => {
                write!(
                    f,
                    "unknown value \"{}\" (allowed: {}). Fix: ",
                    found.escape_debug(),
                    allowed.join(", ")
                )?;
                match suggestion {
                    Some(s) => write!(f, "did you mean \"{s}\"?"),
                    None => write!(f, "use one of the allowed values"),
                }
            }
            ProblemKind::Variable(VarProblem::Unset { var }) => write!(
                f,
                "environment variable {var} is not set (used as ${{{var}}}). Fix: set {var} \
                 before starting coyote, or write ${{{var}:-default}} to fall back to a default"
            ),
            ProblemKind::Variable(VarProblem::Unterminated) => f.write_str(
                "\"${\" without a closing \"}\". Fix: close it as ${NAME}, or write $${ for a \
                 literal \"${\"",
            ),
            ProblemKind::Variable(VarProblem::BadName { name }) => write!(
                f,
                "\"${{{}}}\" is not a variable reference. Fix: use ${{NAME}} with NAME made of \
                 letters, digits and '_' (or $${{ for a literal \"${{\")",
                name.escape_debug()
            ),
            ProblemKind::BadUrl { reason } => write!(
                f,
                "not a usable URL ({reason}). Fix: write a full http:// or https:// URL, e.g. \
                 \"https://example.com/mcp\""
            ),
            ProblemKind::BadEnvName { name } => write!(
                f,
                "\"{}\" is not a valid environment variable name. Fix: use a name without '=' \
                 or NUL, e.g. \"API_TOKEN\"",
                name.escape_debug()
            ),
            ProblemKind::BadVarName { name } => write!(
                f,
                "\"{}\" is not a variable name. Fix: give the NAME of the variable that holds \
                 the token (letters, digits and '_'), e.g. \"GITHUB_TOKEN\", not the token itself",
                name.escape_debug()
            ),
            ProblemKind::BadHeaderName { name } => write!(
                f,
                "\"{}\" is not a valid HTTP header name. Fix: use letters, digits and '-', e.g. \
                 \"Authorization\"",
                name.escape_debug()
            ),
            ProblemKind::BadHeaderValue => f.write_str(
                "the header value contains a line break or control character. Fix: remove it \
                 (check the variable it is expanded from)",
            ),
            ProblemKind::NulByte => f.write_str(
                "contains a NUL character, which cannot be passed to a program. Fix: remove it",
            ),
            ProblemKind::SecondsOverMaximum => write!(
                f,
                "is more than the maximum of {MAX_TIMEOUT_SECS} seconds (7 days). Fix: use a \
                 number of seconds from 1 to {MAX_TIMEOUT_SECS}, e.g. 60"
            ),
            ProblemKind::NotHttps { .. }
            | ProblemKind::OAuthKeyNeedsGrant { .. }
            | ProblemKind::MissingOAuthKey { .. }
            | ProblemKind::ExclusiveKeys { .. } => fmt_oauth_problem(self, f),
        }
    }
}

/// [`ProblemKind::BadName`]: what is wrong with the name and a valid one to use instead.
fn write_bad_name(f: &mut fmt::Formatter<'_>, name: &str, reason: &NameProblem) -> fmt::Result {
    write!(f, "invalid server name \"{}\": ", name.escape_debug())?;
    match reason {
        NameProblem::Empty => f.write_str("it is empty")?,
        NameProblem::TooLong { bytes } => write!(
            f,
            "it is {bytes} bytes long (at most {MAX_SERVER_NAME_BYTES})"
        )?,
        NameProblem::BadChar { ch } => {
            write!(f, "it contains {:?}", ch)?;
        }
    }
    write!(
        f,
        ". Fix: rename it using only letters, digits, '_' and '-' (at most \
         {MAX_SERVER_NAME_BYTES} bytes; the name becomes part of function names){}",
        match suggest_name(name) {
            Some(s) if s != name => format!(", e.g. \"{s}\""),
            _ => String::new(),
        }
    )
}

/// The wording of the `oauth` problems (kept apart so the main `Display` stays short).
fn fmt_oauth_problem(kind: &ProblemKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match kind {
        ProblemKind::NotHttps { reason } => write!(
            f,
            "must be an https:// URL ({reason}). Fix: write a full https:// URL, e.g. \
             \"https://example.com/client-metadata.json\""
        ),
        ProblemKind::OAuthKeyNeedsGrant { key, grant } => write!(
            f,
            "\"{key}\" is only used with \"grant\": \"{grant}\". Fix: add \
             \"grant\": \"{grant}\" or remove \"{key}\""
        ),
        ProblemKind::MissingOAuthKey { key, needed_for } => write!(
            f,
            "\"{key}\" is missing ({needed_for}). Fix: add \"{key}\" (secrets as \"${{VAR}}\")"
        ),
        ProblemKind::ExclusiveKeys { key, other } => write!(
            f,
            "\"{key}\" and \"{other}\" cannot both be set. Fix: keep one of them"
        ),
        other => write!(f, "{other:?}"),
    }
}

/// A valid name close to `name`: bad characters become '_', then truncated to the limit.
fn suggest_name(name: &str) -> Option<String> {
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_SERVER_NAME_BYTES)
        .collect();
    let trimmed = mapped.trim_matches('_');
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}
