//! Defect 5: a reply that is not UTF-8 fails its request at once, naming the server; lone
//! surrogate escapes become U+FFFD with one warning in the log.

use coyote_test_support::user_text::assert_user_facing;
use coyote_test_support::{Scenario, ToolBehavior};
use serde_json::json;

use super::super::common::Home;
use super::log_text;

fn raw_reply(result: &str, inject: &[u8]) -> ToolBehavior {
    ToolBehavior::RawReply {
        result: result.to_owned(),
        inject: inject.to_vec(),
    }
}

#[test]
fn a_reply_that_is_not_utf8_fails_the_call_at_once_naming_the_server() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .tool(
            "latin1",
            raw_reply(
                r#"{"content":[{"type":"text","text":"caf@@INJECT@@"}]}"#,
                &[0xE9],
            ),
        )
        .write_to(home.path())
        .unwrap();
    let mut entry = scenario.mcp_json_entry();
    // Before the fix the call hung until this timeout.
    entry["toolTimeoutSec"] = json!(20);
    home.write_servers(json!({ "badbytes": entry }));
    let (code, out, err) = home.run(&["mcp", "call", "badbytes", "latin1"]);
    assert_eq!(code, 1, "stdout: {out}\nstderr: {err}");
    assert_user_facing(&err);
    assert!(
        err.contains("MCP server 'badbytes'") && err.contains("not valid UTF-8"),
        "{err}"
    );
    assert!(!err.contains("timed out"), "{err}");
}

#[test]
fn lone_surrogates_become_replacement_characters_with_one_warning() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .tool(
            "halves",
            raw_reply(
                r#"{"content":[{"type":"text","text":"x\ud800y\udfffz"}]}"#,
                &[],
            ),
        )
        .write_to(home.path())
        .unwrap();
    let mut entry = scenario.mcp_json_entry();
    // Before the fix the call hung until this timeout.
    entry["toolTimeoutSec"] = json!(20);
    home.write_servers(json!({ "surrogates": entry }));
    let (code, out, err) = home.run(&["mcp", "call", "surrogates", "halves"]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert_eq!(out.trim_end(), "x\u{FFFD}y\u{FFFD}z");
    let log = log_text(&home);
    let warnings = log
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("lone UTF-16 surrogate"))
        .count();
    assert_eq!(warnings, 1, "{log}");
}
