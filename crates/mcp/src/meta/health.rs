//! What the model is told about a server that cannot serve right now (starting, failed, needing
//! a sign-in, stopped): one short line — its state, the reason, and what to tell or ask the
//! user — declared instead of the server's functions and returned when one of them is called.
//!
//! Invariants: the line never tells the model to run a shell command (it cannot; the user
//! can): it says what to tell or ask the user — for a server waiting for sign-in, to run
//! `coyote mcp login NAME` (the same words when a call meets an expired sign-in) — and it
//! stays within [`HEALTH_MAX_TOKENS`] as a declaration (the reason is cut to
//! [`HEALTH_REASON_MAX_BYTES`] on one line), so a dead server costs almost nothing per request.

use coyote_protocol::FunctionDeclaration;
use serde_json::json;

use super::MetaKind;
use crate::server::ServerState;

/// Most estimated tokens a health declaration may cost.
pub const HEALTH_MAX_TOKENS: usize = 120;
/// The failure reason in a health line is cut to this many bytes (one line, `…` marks a cut).
pub const HEALTH_REASON_MAX_BYTES: usize = 150;

/// The one line for `server` in `state`: state, reason, and what the model should do.
pub fn health_line(server: &str, state: &ServerState) -> String {
    match state {
        ServerState::Idle => {
            format!("MCP server '{server}' is not started yet; its first call starts it.")
        }
        ServerState::Starting => format!(
            "MCP server '{server}' is still starting; its functions appear once it is ready. \
             Tell the user if they need it now."
        ),
        ServerState::Ready => {
            format!("MCP server '{server}' is ready now; its functions are declared again.")
        }
        ServerState::Failed(reason) => format!(
            "MCP server '{server}' is unavailable: it failed ({}). Do not call it again; tell \
             the user and ask them to fix or restart the server.",
            short_reason(reason)
        ),
        ServerState::NeedsAuth => format!(
            "MCP server '{server}' needs sign-in: ask the user to run `coyote mcp login \
             {server}` (in the REPL: `.mcp login {server}`), then call it again."
        ),
        ServerState::Closed => format!(
            "MCP server '{server}' was stopped. Ask the user to restart it if they need it."
        ),
    }
}

/// The declaration standing in for all of a server's functions while it cannot serve: the
/// name of its search function (a call answers with the same line), no parameters.
pub(crate) fn health_declaration(server: &str, state: &ServerState) -> FunctionDeclaration {
    FunctionDeclaration {
        name: MetaKind::Search.function_name(server),
        description: format!("UNAVAILABLE. {}", health_line(server, state)),
        parameters: json!({ "type": "object", "properties": {} }),
    }
}

/// The reason on one line (whitespace runs collapsed), cut to [`HEALTH_REASON_MAX_BYTES`]:
/// the start (what failed) and the end (the last lines of the server's stderr, which usually
/// say why) are kept around one `…`.
fn short_reason(reason: &str) -> String {
    const HEAD: usize = HEALTH_REASON_MAX_BYTES * 2 / 5;
    let one_line = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.len() <= HEALTH_REASON_MAX_BYTES {
        return one_line;
    }
    let mut head = HEAD;
    while !one_line.is_char_boundary(head) {
        head -= 1;
    }
    // Cut between words where a space is near (a long word or path is cut inside).
    if let Some(space) = one_line[..head].rfind(' ').filter(|at| *at >= HEAD / 2) {
        head = space;
    }
    let mut tail = one_line.len() - (HEALTH_REASON_MAX_BYTES - HEAD);
    while !one_line.is_char_boundary(tail) {
        tail += 1;
    }
    let room = one_line.len() - tail;
    if let Some(space) = one_line[tail..].find(' ').filter(|at| *at < room / 2) {
        tail += space + 1;
    }
    format!(
        "{} … {}",
        one_line[..head].trim_end(),
        one_line[tail..].trim_start()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::estimate_tokens;

    #[test]
    fn every_state_fits_the_budget_and_names_no_shell_command() {
        let long = "x".repeat(5_000) + "\nstderr: boom\n\tmore";
        let server = "a-server-with-a-rather-long-name-of-40b";
        for state in [
            ServerState::Idle,
            ServerState::Starting,
            ServerState::Ready,
            ServerState::Failed(long.clone()),
            ServerState::NeedsAuth,
            ServerState::Closed,
        ] {
            let declaration = health_declaration(server, &state);
            let tokens = estimate_tokens(std::slice::from_ref(&declaration));
            assert!(tokens <= HEALTH_MAX_TOKENS, "{state:?}: {tokens} tokens");
            let line = health_line(server, &state);
            assert!(!line.contains('\n'), "{line}");
            if state == ServerState::NeedsAuth {
                // The one command named is the user's to run, and the model is told to ask.
                assert!(
                    line.contains(&format!("ask the user to run `coyote mcp login {server}`")),
                    "{line}"
                );
            } else {
                assert!(!line.contains("coyote mcp"), "{line}");
                assert!(!line.contains('`'), "{line}");
            }
        }
        let line = health_line("s", &ServerState::Failed("exit 1\nstderr: no key".into()));
        assert!(line.contains("failed (exit 1 stderr: no key)"), "{line}");
        assert!(line.contains("ask them"), "{line}");
    }

    #[test]
    fn a_long_reason_keeps_what_failed_and_the_last_stderr_line() {
        let reason = format!(
            "failed the initialize handshake: the connection closed{}\nstderr: fatal: missing \
             API token",
            " (detail)".repeat(40)
        );
        let line = health_line("s", &ServerState::Failed(reason));
        assert!(
            line.contains("failed (failed the initialize handshake: the connection"),
            "{line}"
        );
        assert!(line.contains("stderr: fatal: missing API token)"), "{line}");
        assert!(line.contains('…'), "{line}");
    }

    #[test]
    fn a_long_reason_is_cut_between_words() {
        let reason = "connection failed: the server process exited with status 1 before it \
                      answered the initialize request; the last lines of its stderr were: \
                      Error: Cannot find module '/home/someone/project/node_modules/server/dist/index.js' \
                      at Module._resolveFilename (node:internal/modules/cjs/loader:1140:15) and more";
        let short = short_reason(reason);
        assert!(short.len() <= HEALTH_REASON_MAX_BYTES + 4, "{short}");
        let (head, tail) = short.split_once(" … ").unwrap();
        assert!(reason.contains(head) && reason.contains(tail), "{short}");
        let words: Vec<&str> = reason.split(' ').collect();
        assert!(
            words.contains(&head.rsplit(' ').next().unwrap()),
            "cut mid-word: {head}"
        );
        assert!(
            words.contains(&tail.split(' ').next().unwrap()),
            "cut mid-word: {tail}"
        );
    }
}
