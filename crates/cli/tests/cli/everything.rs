//! `coyote mcp …` against @modelcontextprotocol/server-everything (npm), over stdio and over
//! streamable HTTP on 127.0.0.1 (issue 2 acceptance 2 and 3).

use serde_json::{Value, json};

use super::common::{Home, everything_entry};

fn names(list: &Value, key: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|i| i[key].as_str().unwrap().to_owned())
        .collect()
}

fn assert_lists_everything(home: &Home) {
    let servers = home.json(&["mcp", "servers"]);
    let s = &servers[0];
    assert_eq!(s["name"], "everything");
    assert_eq!(s["state"], "ready", "{servers:#}");
    assert_eq!(s["protocol_version"], "2025-11-25");
    for cap in ["tools", "resources", "prompts"] {
        assert!(
            s["capabilities"].as_array().unwrap().contains(&json!(cap)),
            "{s:#}"
        );
    }
    let tools = home.json(&["mcp", "tools", "everything"]);
    let tool_names = names(&tools, "name");
    for t in ["echo", "get-sum", "get-tiny-image"] {
        assert!(tool_names.contains(&t.to_owned()), "{tool_names:?}");
    }
    assert_eq!(s["counts"]["tools"], json!(tool_names.len()));
    let resources = home.json(&["mcp", "resources", "everything"]);
    assert!(
        names(&resources, "uri")
            .iter()
            .any(|u| u.starts_with("demo://resource/static/"))
    );
    assert_eq!(
        s["counts"]["resources"],
        json!(resources.as_array().unwrap().len())
    );
    let templates = home.json(&["mcp", "templates", "everything"]);
    assert!(
        names(&templates, "uri_template")
            .contains(&"demo://resource/dynamic/text/{resourceId}".to_owned())
    );
    let prompts = home.json(&["mcp", "prompts", "everything"]);
    let args_prompt = prompts
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "args-prompt")
        .expect("args-prompt");
    assert_eq!(args_prompt["server"], "everything");
    assert_eq!(args_prompt["arguments"][0]["name"], "city");
    assert_eq!(args_prompt["arguments"][0]["required"], true);
}

#[test]
fn stdio_server_is_ready_and_lists_every_kind() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    assert_lists_everything(&home);
}

#[test]
fn http_server_is_ready_and_lists_every_kind() {
    let Some(server) = coyote_test_support::peers::require(
        coyote_test_support::peers::ServerEverythingHttp::start(),
    ) else {
        return;
    };
    assert!(
        server.url().starts_with("http://127.0.0.1:"),
        "{}",
        server.url()
    );
    let home = Home::new();
    home.write_servers(json!({ "everything": { "type": "http", "url": server.url() } }));
    assert_lists_everything(&home);
    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(servers[0]["transport"], "http");
}

#[test]
fn call_returns_the_tool_result_and_coerces_numbers() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let (code, out, err) = home.run(&["mcp", "call", "everything", "echo", "message=hello world"]);
    assert_eq!((code, out.as_str()), (0, "Echo: hello world\n"), "{err}");
    // get-sum's schema says numbers: "2" and "3" must arrive as numbers.
    let (code, out, err) = home.run(&["mcp", "call", "everything", "get-sum", "a=2", "b=3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains('5'), "{out}");
    let result = home.json(&[
        "mcp",
        "call",
        "everything",
        "get-sum",
        "--json-args",
        r#"{"a": 40, "b": 2}"#,
    ]);
    assert_eq!(result["is_error"], false);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("42"),
        "{result:#}"
    );
}

#[test]
fn unknown_tool_exits_1_with_the_servers_message() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let (code, out, err) = home.run(&["mcp", "call", "everything", "no-such-tool"]);
    assert_eq!(code, 1, "stdout: {out}\nstderr: {err}");
    assert!(
        format!("{out}{err}").contains("no-such-tool"),
        "stdout: {out}\nstderr: {err}"
    );
}
