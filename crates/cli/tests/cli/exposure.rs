//! `coyote mcp servers` shows each server's exposure: configured → effective and the
//! estimated tokens of its declarations; config.yaml's `expose` is the default and an mcp.json
//! entry's own `expose` wins.

use coyote_test_support::{Capabilities, Generated, Scenario, ToolBehavior};
use serde_json::{Value, json};

use super::common::Home;

fn entry(home: &Home, dir: &str, scenario: coyote_test_support::ScenarioBuilder) -> Value {
    let dir = home.path().join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    scenario
        .capabilities(Capabilities::none().with_tools())
        .write_to(&dir)
        .unwrap()
        .mcp_json_entry()
}

fn row<'a>(servers: &'a Value, name: &str) -> &'a Value {
    servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} missing: {servers:#}"))
}

fn labels(servers: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = servers
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["exposure"]["label"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn servers_show_exposure_and_config_yaml_sets_the_default() {
    let home = Home::new();
    let small = entry(
        &home,
        "small",
        Scenario::builder().tool("echo", ToolBehavior::Echo),
    );
    let big = entry(
        &home,
        "big",
        Scenario::builder().generated(Generated {
            tools: 250,
            ..Generated::default()
        }),
    );
    let mut forced = small.clone();
    forced["expose"] = json!("direct");
    home.write_servers(json!({ "small": small, "big": big, "forced": forced }));

    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(
        labels(&servers),
        vec![
            ("big".to_owned(), "auto→retrieve".to_owned()),
            ("forced".to_owned(), "direct".to_owned()),
            ("small".to_owned(), "auto→direct".to_owned()),
        ]
    );
    let s = &row(&servers, "small")["exposure"];
    assert_eq!(
        (&s["configured"], &s["effective"], &s["tools"]),
        (&json!("auto"), &json!("direct"), &json!(1))
    );
    // One tool declared as itself: what is declared is exactly the direct estimate.
    assert_eq!(s["declared_tokens"], s["direct_tokens"]);
    let b = &row(&servers, "big")["exposure"];
    assert_eq!(b["tools"], json!(250));
    assert!(b["direct_tokens"].as_u64().unwrap() > 2000, "{b:#}");
    assert!(
        b["declared_tokens"].as_u64().unwrap() < b["direct_tokens"].as_u64().unwrap(),
        "{b:#}"
    );

    let (code, out, err) = home.run(&["mcp", "servers"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("EXPOSURE") && out.contains("DECLARED"),
        "{out}"
    );
    assert!(
        out.contains("auto→direct") && out.contains("auto→retrieve"),
        "{out}"
    );

    // `coyote mcp meta` runs a direct name exactly as the model would.
    let (code, out, err) = home.run(&["mcp", "meta", "small__echo", r#"{"text": "hi"}"#]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Result of tool `echo` on MCP server `small`: answer the user from it unless you need \
         another tool.\nhi\n"
    );

    // config.yaml's default: meta for every server that does not set its own.
    std::fs::write(home.config_dir().join("config.yaml"), "expose: meta\n").unwrap();
    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(
        labels(&servers),
        vec![
            ("big".to_owned(), "meta".to_owned()),
            ("forced".to_owned(), "direct".to_owned()),
            ("small".to_owned(), "meta".to_owned()),
        ]
    );
}

/// `coyote mcp meta SERVER__TOOL` for a tool the exposure does not declare says why and what
/// to run instead (before: only "not a function you can call now").
#[test]
fn a_direct_name_the_exposure_does_not_declare_is_explained() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .tool("echo", ToolBehavior::Echo)
        .write_to(home.path())
        .unwrap();
    let mut entry = scenario.mcp_json_entry();
    entry["expose"] = serde_json::json!("meta");
    home.write_servers(serde_json::json!({ "fake": entry }));
    let (code, _out, err) = home.run(&["mcp", "meta", "fake__echo", r#"{"message": "hi"}"#]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is exposed as meta"), "{err}");
    assert!(
        err.contains("coyote mcp meta mcp_invoke_fake '{\"tool\": \"echo\""),
        "{err}"
    );
    let (code, out, err) = home.run(&[
        "mcp",
        "meta",
        "mcp_invoke_fake",
        r#"{"tool": "echo", "arguments": {"message": "hi"}}"#,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hi"), "{out}");
}
