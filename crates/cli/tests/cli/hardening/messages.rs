//! Defect 8: messages people read. No Rust type name in any error (one shared check,
//! `coyote_test_support::user_text`), a huge timeout names the maximum, a UTF-8 BOM in
//! mcp.json is accepted, `mcp add` on an existing name names `--force`, and in one-shot mode an
//! unknown delegate or a delegation cycle is an error (exit 2) as in the REPL.

use coyote_test_support::user_text::assert_user_facing;
use coyote_test_support::{Scenario, ToolBehavior};
use serde_json::json;

use super::super::common::Home;

/// Broken configurations whose errors once showed serde's Rust wording.
#[test]
fn configuration_errors_show_no_rust_type_name() {
    let mcp_cases = [
        r#"{"mcpServers": ["not", "an", "object"]}"#,
        r#"{"mcpServers": {"a": ["x"]}}"#,
        r#"["top", "level", "array"]"#,
        r#"{"mcpServers": {"a": {"command": 5}}}"#,
        r#"{"mcpServers": {"a": {"url": "http://127.0.0.1:1/mcp", "headers": [1]}}}"#,
        r#"{"mcpServers": {"a": {"command": "x", "startupTimeoutSec": "soon"}}}"#,
    ];
    for text in mcp_cases {
        let home = Home::new();
        home.write_raw(text);
        // A broken document exits 2; a broken entry disables only its server (exit 0).
        let (code, _out, err) = home.run(&["mcp", "servers"]);
        assert!(code == 2 || code == 0, "{text}: {err}");
        assert!(!err.is_empty(), "{text}: no message");
        assert_user_facing(&err);
    }
    let yaml_cases = [
        "- a\n- list\n",
        "clients: 5\n",
        "clients:\n  - type: openai-compatible\n    models: 3\n",
        "model: [1, 2]\n",
        "max_tool_rounds: many\n",
    ];
    for text in yaml_cases {
        let home = Home::new();
        std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
        let (code, _out, err) = home.run(&["hello"]);
        assert_eq!(code, 2, "{text}: {err}");
        assert_user_facing(&err);
    }
}

#[test]
fn a_huge_timeout_names_the_maximum() {
    let home = Home::new();
    home.write_raw(r#"{"mcpServers": {"a": {"command": "x", "startupTimeoutSec": 1e20}}}"#);
    // The entry is disabled (exit 0) with a warning that names the maximum.
    let (_code, _out, err) = home.run(&["mcp", "servers"]);
    assert!(err.contains("startupTimeoutSec"), "{err}");
    assert!(err.contains("maximum of 604800 seconds"), "{err}");
    assert!(!err.contains("greater than 0"), "{err}");
    assert_user_facing(&err);
}

#[test]
fn a_utf8_bom_in_mcp_json_is_accepted() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .tool("echo", ToolBehavior::Echo)
        .write_to(home.path())
        .unwrap();
    let text =
        serde_json::to_string(&json!({ "mcpServers": { "fake": scenario.mcp_json_entry() } }))
            .unwrap();
    home.write_raw(&format!("\u{feff}{text}"));
    let (code, out, err) = home.run(&["mcp", "call", "fake", "echo", "text=hi"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hi"), "{out}");
    // Editing keeps working too.
    let (code, _out, err) = home.run(&["mcp", "add", "other", "--", "true"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn mcp_add_on_an_existing_name_names_force() {
    let home = Home::new();
    let (code, _out, err) = home.run(&["mcp", "add", "dup", "--", "true"]);
    assert_eq!(code, 0, "{err}");
    let (code, _out, err) = home.run(&["mcp", "add", "dup", "--", "false"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_user_facing(&err);
}

/// `agents/NAME/config.yaml` in the test home.
fn write_agent(home: &Home, name: &str, body: &str) {
    let dir = home.config_dir().join("agents").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.yaml"), body).unwrap();
}

#[test]
fn one_shot_delegate_cycles_and_unknown_delegates_exit_2() {
    let home = Home::new();
    std::fs::write(
        home.config_dir().join("config.yaml"),
        "model: fake:m\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: http://127.0.0.1:1/v1\n    models:\n      - name: m\n",
    )
    .unwrap();
    write_agent(&home, "ping", "instructions: ping\ndelegates: [pong]\n");
    write_agent(&home, "pong", "instructions: pong\ndelegates: [ping]\n");
    write_agent(&home, "lost", "instructions: lost\ndelegates: [nobody]\n");
    for agent in ["ping", "lost"] {
        let (code, _out, err) = home.run(&["-a", agent, "hello"]);
        assert_eq!(code, 2, "-a {agent}: {err}");
        assert!(
            err.contains("cycle") || err.contains("nobody"),
            "-a {agent}: {err}"
        );
        assert_user_facing(&err);
    }
}
