//! `coyote mcp …` against @modelcontextprotocol/server-everything (npm), over stdio and over
//! streamable HTTP on 127.0.0.1.

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

#[test]
fn read_text_blob_and_template_resources() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    // A text resource pipes to stdout as is.
    let (code, out, err) = home.run(&[
        "mcp",
        "read",
        "everything",
        "demo://resource/static/document/features.md",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# Everything Server - Features"), "{out}");
    // A blob template: server-everything's blob is base64 of UTF-8 text, so the sniff inlines it.
    let body = home.json(&[
        "mcp",
        "read",
        "everything",
        "demo://resource/dynamic/blob/{resourceId}",
        "--arg",
        "resourceId=7",
    ]);
    assert_eq!(body["uri"], "demo://resource/dynamic/blob/7");
    assert_eq!(body["sniffed"], true, "{body:#}");
    assert!(
        body["text"].as_str().unwrap().starts_with("Resource 7: "),
        "{body:#}"
    );
    // A text template with --arg.
    let (code, out, err) = home.run(&[
        "mcp",
        "read",
        "everything",
        "demo://resource/dynamic/text/{resourceId}",
        "--arg",
        "resourceId=42",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("42"), "{out}");
}

#[test]
fn prompt_with_arguments_is_flattened_and_labelled() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let (code, out, err) = home.run(&[
        "mcp",
        "prompt",
        "everything",
        "args-prompt",
        "city=Paris",
        "state=\"Ile de France\"",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("[user]\n"), "{out}");
    assert!(out.contains("Paris"), "{out}");
    // A missing required argument is a teaching error naming it (exit 2).
    let (code, _out, err) = home.run(&["mcp", "prompt", "everything", "args-prompt"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("city"), "{err}");
}

#[test]
fn image_tool_via_meta_invoke_is_spilled_without_base64() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let (code, out, err) = home.run(&[
        "mcp",
        "meta",
        "mcp_invoke_everything",
        r#"{"tool": "get-tiny-image"}"#,
    ]);
    assert_eq!(code, 0, "{err}");
    // The model's text: one header line naming the tool, then the bounded result.
    let (header, body) = out.split_once('\n').unwrap();
    assert!(
        header.starts_with("Result of tool `get-tiny-image`"),
        "{header}"
    );
    let v: Value = serde_json::from_str(body).unwrap();
    let image = v["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spilled"] == true)
        .expect("spill object");
    let path = std::path::Path::new(image["path"].as_str().unwrap());
    assert!(
        path.starts_with(
            home.path()
                .join("cache")
                .join("mcp-resources")
                .join("everything")
        ),
        "{path:?}"
    );
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(image["size_bytes"], json!(bytes.len()));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // No base64 of the image anywhere in what the model would see.
    assert!(!out.contains("iVBORw0KGgo"), "{out}");
}

#[test]
fn search_and_describe_run_the_model_dispatch() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let hits = home.json(&["mcp", "search", "everything", "sum of two numbers"]);
    assert_eq!(hits["results"][0]["id"], "get-sum", "{hits:#}");
    assert_eq!(hits["results"][0]["kind"], "tool");
    let (code, out, err) = home.run(&[
        "mcp",
        "describe",
        "everything",
        "args-prompt",
        "--kind",
        "prompt",
    ]);
    assert_eq!(code, 0, "{err}");
    let d: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(d["arguments"][0]["name"], "city");
    assert_eq!(d["arguments"][0]["required"], true);
    let (code, _out, err) = home.run(&["mcp", "meta", "mcp_bogus_everything", "{}"]);
    assert_eq!(code, 2, "{err}");
}
