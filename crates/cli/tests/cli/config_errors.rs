//! Malformed configuration exits 2 with a message naming the file, the key and the fix;
//! unknown keys warn with a suggestion; an untrusted project file is ignored.

use coyote_test_support::user_text::assert_user_facing;
use serde_json::json;

use super::common::Home;

#[test]
fn bad_json_names_the_file_and_position() {
    let home = Home::new();
    home.write_raw("{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}");
    let (code, _out, err) = home.run(&["mcp", "servers"]);
    assert_eq!(code, 2, "{err}");
    assert_user_facing(&err);
    assert!(
        err.contains(&home.mcp_json_path().display().to_string()),
        "{err}"
    );
    assert!(err.contains("mcp.json:1:38"), "{err}");
    assert!(err.contains("trailing comma"), "{err}");
}

#[test]
fn missing_command_names_the_key_and_the_fix() {
    let home = Home::new();
    home.write_servers(json!({ "broken": { "args": ["x"] } }));
    // The entry disables its own server only: listed as config-error, with a warning.
    let (code, out, err) = home.run(&["mcp", "servers"]);
    assert_eq!(code, 0, "{err}");
    assert_user_facing(&err);
    assert!(out.contains("config-error"), "{out}");
    assert!(err.contains("mcpServers.broken"), "{err}");
    assert!(err.contains("command"), "{err}");
    // A command about that very server is a usage error naming it.
    let (code, _out, err) = home.run(&["mcp", "tools", "broken"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("MCP server 'broken' cannot be used"), "{err}");
    assert!(err.contains("mcpServers.broken.command"), "{err}");
}

#[test]
fn bad_server_name_is_rejected() {
    let home = Home::new();
    home.write_servers(json!({ "bad name!": { "command": "x" } }));
    let (code, _out, err) = home.run(&["mcp", "servers"]);
    assert_eq!(code, 2, "{err}");
    assert_user_facing(&err);
    assert!(err.contains("bad name!"), "{err}");
}

#[test]
fn unset_variable_names_server_key_and_variable() {
    let home = Home::new();
    home.write_servers(
        json!({ "gh": { "command": "x", "env": { "TOKEN": "${COYOTE_TEST_SURELY_UNSET}" } } }),
    );
    let (code, out, err) = home.run(&["mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_user_facing(&err);
    for needle in ["gh", "TOKEN", "COYOTE_TEST_SURELY_UNSET"] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows[0]["name"], "gh");
    assert_eq!(rows[0]["state"], "config-error");
    assert!(
        rows[0]["reason"]
            .as_str()
            .unwrap()
            .contains("COYOTE_TEST_SURELY_UNSET"),
        "{rows}"
    );
    let (code, _out, err) = home.run(&["mcp", "tools", "gh"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("'gh'") && err.contains("COYOTE_TEST_SURELY_UNSET"),
        "{err}"
    );
}

#[test]
fn unknown_key_is_a_warning_with_a_suggestion() {
    let home = Home::new();
    home.write_servers(json!({ "t": { "command": "true", "commnd": "typo" } }));
    let (_code, _out, err) = home.run(&["mcp", "servers"]);
    assert!(err.contains("commnd"), "{err}");
    assert!(err.contains("command"), "{err}");
}

#[test]
fn untrusted_project_file_is_ignored_with_a_warning() {
    let home = Home::new();
    home.write_servers(json!({}));
    let project = home.work_dir().join(".coyote");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("mcp.json"),
        r#"{"mcpServers": {"evil": {"command": "touch", "args": ["pwned"]}}}"#,
    )
    .unwrap();
    let (code, out, err) = home.run(&["mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap(),
        json!([])
    );
    assert!(err.contains("--trust-project"), "{err}");
    assert!(!home.work_dir().join("pwned").exists());
}

#[test]
fn add_and_remove_edit_mcp_json_keeping_order() {
    let home = Home::new();
    home.write_servers(json!({ "first": { "command": "a" }, "last": { "command": "z" } }));
    let (code, _out, err) = home.run(&["mcp", "add", "mid", "-e", "K=V", "--", "srv", "--flag"]);
    assert_eq!(code, 0, "{err}");
    let (code, _out, err) = home.run(&[
        "mcp",
        "add",
        "web",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--header",
        "X-A: b",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.mcp_json_path()).unwrap()).unwrap();
    let keys: Vec<&String> = doc["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["first", "last", "mid", "web"]);
    assert_eq!(doc["mcpServers"]["mid"]["args"], json!(["--flag"]));
    let (code, _out, err) = home.run(&["mcp", "add", "mid", "--", "other"]);
    assert_eq!(
        code, 2,
        "adding an existing name without --force must fail: {err}"
    );
    let (code, _out, err) = home.run(&["mcp", "remove", "last"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.mcp_json_path()).unwrap()).unwrap();
    let keys: Vec<&String> = doc["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["first", "mid", "web"]);
}

#[test]
fn chat_option_before_a_subcommand_says_where_it_belongs() {
    let home = Home::new();
    home.write_servers(json!({}));
    let (code, out, err) = home.run(&["--json", "mcp", "servers"]);
    assert_eq!(code, 2, "{err}");
    assert_user_facing(&err);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("coyote mcp … --json"), "{err}");
    let (code, _out, err) = home.run(&["--yes", "models"]);
    assert_eq!(code, 2, "{err}");
    assert_user_facing(&err);
    assert!(err.contains("does not take it"), "{err}");
    // After the subcommand it is the subcommand's own option and works.
    let (code, out, err) = home.run(&["mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        serde_json::from_str::<serde_json::Value>(&out).is_ok(),
        "{out}"
    );
}
