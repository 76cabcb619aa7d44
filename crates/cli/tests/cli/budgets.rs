//! Result budgets through the binary: `maxResultBytes` and `toolLimits` in
//! mcp.json bound what `coyote mcp meta` (what the model gets) shows, `coyote mcp servers`
//! reports each server's budget, and `coyote mcp call` / `coyote mcp read` are not budgeted.

use coyote_test_support::{Capabilities, ResourceBody, Scenario, ToolBehavior, big_text};
use serde_json::json;

use super::common::Home;

const BIG: u64 = 300 * 1024;

fn home() -> Home {
    let home = Home::new();
    let scenario = Scenario::builder()
        .capabilities(Capabilities::none().with_tools().with_resources())
        .safe_tool("big", ToolBehavior::BigText { bytes: BIG })
        .safe_tool("small_limit", ToolBehavior::BigText { bytes: BIG })
        .resource(
            "fake://long",
            "long",
            ResourceBody::Text {
                text: big_text(5_000),
            },
        )
        .write_to(home.path())
        .unwrap();
    let mut entry = scenario.mcp_json_entry();
    entry["expose"] = json!("meta");
    entry["maxResultBytes"] = json!(1000);
    entry["toolLimits"] = json!({"small_limit": {"maxResultBytes": 300}});
    home.write_servers(json!({ "fake": entry }));
    home
}

#[test]
fn the_budget_bounds_what_the_model_gets_and_is_shown_in_servers() {
    let home = home();
    let rows = home.json(&["mcp", "servers"]);
    assert_eq!(rows[0]["max_result_bytes"], 1000, "{rows:#}");
    assert_eq!(rows[0]["max_result_bytes_source"], "server");
    assert_eq!(rows[0]["tool_limits"], json!({"small_limit": 300}));
    let (code, out, err) = home.run(&["mcp", "servers"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1000 B +1 tool limit(s)"), "{out}");

    let (code, out, err) = home.run(&["mcp", "meta", "mcp_invoke_fake", r#"{"tool": "big"}"#]);
    assert_eq!(code, 0, "{err}");
    let (_header, body) = out.trim_end().split_once('\n').unwrap();
    let (text, note) = body.rsplit_once('\n').unwrap();
    assert!(text.len() <= 1000, "{}", text.len());
    assert!(
        note.len() <= 300 && note.contains("coyote-result://"),
        "{note}"
    );
    let (code, out, _) = home.run(&[
        "mcp",
        "meta",
        "mcp_invoke_fake",
        r#"{"tool": "small_limit"}"#,
    ]);
    assert_eq!(code, 0);
    let (_, body) = out.trim_end().split_once('\n').unwrap();
    assert!(body.rsplit_once('\n').unwrap().0.len() <= 300);

    // The user's own commands are not budgeted.
    let (code, out, err) = home.run(&["mcp", "call", "fake", "big"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&big_text(BIG)));
    let (code, out, err) = home.run(&["mcp", "read", "fake", "fake://long"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, big_text(5_000));
}

/// The model's budget depends on its context window, never on whether its API key is set:
/// before, an unset key made `mcp servers` report the 128,000-token default (51,200 B).
#[test]
fn the_budget_does_not_depend_on_the_models_api_key() {
    let home = home();
    let mut entry = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("big", ToolBehavior::BigText { bytes: 10 })
        .write_to(home.path())
        .unwrap()
        .mcp_json_entry();
    entry["expose"] = json!("meta");
    home.write_servers(json!({ "fake": entry }));
    std::fs::write(
        home.config_dir().join("config.yaml"),
        "model: small:tiny\nclients:\n  - type: openai-compatible\n    name: small\n    \
         api_base: http://127.0.0.1:9/v1\n    api_key_env: SMALL_MODEL_KEY\n    models:\n      \
         - name: tiny\n        context_window: 8000\n",
    )
    .unwrap();
    let without_key = home.json(&["mcp", "servers"]);
    let mut cmd = home.coyote();
    cmd.args(["mcp", "servers", "--json"])
        .env("SMALL_MODEL_KEY", "sk-test");
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let with_key: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        without_key[0]["max_result_bytes"], with_key[0]["max_result_bytes"],
        "without the key: {without_key:#}\nwith it: {with_key:#}"
    );
    let bytes = with_key[0]["max_result_bytes"].as_u64().unwrap();
    assert!(
        bytes < 51_200,
        "an 8,000-token window gets a small budget: {bytes}"
    );
}
