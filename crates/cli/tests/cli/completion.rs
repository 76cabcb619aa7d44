//! Value completion everywhere (issue 19, acceptance 3) against server-everything's
//! `completable-prompt`: `coyote mcp complete`, the model's `mcp_describe_` with `complete`,
//! and `.prompt … key=<TAB>` in the REPL through tmux.

use serde_json::json;

use super::common::{Home, everything_entry};

fn everything_home() -> Option<Home> {
    let entry = everything_entry()?;
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    Some(home)
}

#[test]
fn mcp_complete_lists_values_and_sends_the_other_arguments_as_context() {
    let Some(home) = everything_home() else {
        return;
    };
    let (code, out, err) = home.run(&[
        "mcp",
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "department=Eng",
    ]);
    assert_eq!((code, out.as_str()), (0, "Engineering\n"), "{err}");
    // `name` depends on `department`: without it the server offers nothing.
    let alone = home.json(&[
        "mcp",
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "name=",
    ]);
    assert_eq!(alone["values"], json!([]), "{alone:#}");
    let dependent = home.json(&[
        "mcp",
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "name=",
        "department=Engineering",
    ]);
    assert_eq!(dependent["values"], json!(["Alice", "Bob", "Charlie"]));
    assert_eq!(dependent["argument"], "name");
    assert_eq!(dependent["server"], "everything");
}

#[test]
fn the_model_completes_through_describe() {
    let Some(home) = everything_home() else {
        return;
    };
    let args = json!({
        "kind": "prompt",
        "name": "completable-prompt",
        "complete": {"argument": "name", "value": "B", "context": {"department": "Engineering"}}
    })
    .to_string();
    let (code, out, err) = home.run(&["mcp", "meta", "mcp_describe_everything", &args]);
    assert_eq!(code, 0, "{err}");
    let body: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(body["completion"]["values"], json!(["Bob"]), "{body:#}");
}

#[test]
fn mcp_complete_needs_argument_pairs() {
    let Some(home) = everything_home() else {
        return;
    };
    let (code, _, err) = home.run(&[
        "mcp",
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "department",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ARG=PREFIX"), "{err}");
}
