//! Claude Code's `.mcp.json` (trusted like `.coyote/mcp.json`, each entry's source shown by
//! `coyote mcp servers`) and `coyote mcp import` from the files other clients write.

use std::path::{Path, PathBuf};

use coyote_test_support::Scenario;
use serde_json::{Value, json};

use super::common::Home;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../config/tests/fixtures")
        .join(name)
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn entries(path: &Path) -> serde_json::Map<String, Value> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["mcpServers"].as_object().unwrap().clone()
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn mcp_json_is_used_only_once_trusted_and_named_as_the_source() {
    let home = Home::new();
    let scenario = Scenario::builder().write_to(home.path()).unwrap();
    home.write_servers(json!({ "mine": scenario.mcp_json_entry() }));
    let shared = home.work_dir().join(".mcp.json");
    let evil = json!({"mcpServers": {
        "evil": {"command": "touch", "args": ["pwned"]},
        "team": scenario.mcp_json_entry(),
    }});
    write(&shared, &evil.to_string());

    let (code, out, err) = home.run(&["mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: Value = serde_json::from_str(&out).unwrap();
    let listed: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["mine"]);
    assert!(err.contains(".mcp.json"), "{err}");
    assert!(err.contains("--trust-project"), "{err}");
    assert!(!home.work_dir().join("pwned").exists());

    // Trusted: its entries load and each row names its file.
    write(
        &shared,
        &json!({"mcpServers": {"team": scenario.mcp_json_entry()}}).to_string(),
    );
    let (code, out, err) = home.run(&["--trust-project", "mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: Value = serde_json::from_str(&out).unwrap();
    let sources: Vec<(String, PathBuf)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                PathBuf::from(r["source"].as_str().unwrap()),
            )
        })
        .collect();
    assert_eq!(
        sources,
        vec![
            ("mine".to_owned(), home.mcp_json_path()),
            ("team".to_owned(), shared.clone())
        ]
    );
    let (code, out, err) = home.run(&["mcp", "servers"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("source"), "{out}");
    assert!(out.contains(".mcp.json"), "{out}");
}

#[test]
fn import_from_claude_desktop() {
    let home = Home::new();
    home.write_servers(json!({ "github": { "command": "mine" } }));
    write(
        &home
            .path()
            .join(".config/Claude/claude_desktop_config.json"),
        &std::fs::read_to_string(fixture("claude_desktop.json")).unwrap(),
    );
    let report = home.json(&["mcp", "import", "--from", "claude-desktop"]);
    assert_eq!(
        names(&report, "imported"),
        ["filesystem", "sqlite", "puppeteer"]
    );
    assert_eq!(names(&report, "skipped"), ["github"]);
    assert!(
        report["skipped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("--force"),
        "{report:#}"
    );
    let source = entries(&fixture("claude_desktop.json"));
    let target = entries(&home.mcp_json_path());
    for name in ["filesystem", "sqlite", "puppeteer"] {
        assert_eq!(target[name], source[name], "{name} is copied unchanged");
    }
    assert_eq!(target["github"], json!({"command": "mine"}));

    // Again: every name exists now, nothing is imported, exit 1; --force replaces.
    let (code, _out, err) = home.run(&["mcp", "import", "--from", "claude-desktop"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("skipped 'sqlite'"), "{err}");
    assert!(err.contains("nothing imported"), "{err}");
    let (code, _out, err) = home.run(&["mcp", "import", "--from", "claude-desktop", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("replaced 'github'"), "{err}");
    assert_eq!(entries(&home.mcp_json_path())["github"], source["github"]);
}

#[test]
fn import_from_claude_code_and_cursor_project_files() {
    let home = Home::new();
    write(
        &home.work_dir().join(".mcp.json"),
        &std::fs::read_to_string(fixture("claude_code.mcp.json")).unwrap(),
    );
    write(
        &home.work_dir().join(".cursor/mcp.json"),
        &std::fs::read_to_string(fixture("cursor.json")).unwrap(),
    );
    let report = home.json(&["mcp", "import", "--from", "claude-code"]);
    let code_names = names(&report, "imported");
    assert_eq!(
        code_names,
        [
            "shared-server",
            "api-server",
            "legacy-events",
            "slack",
            "memory"
        ]
    );
    let report = home.json(&["mcp", "import", "--from", "cursor"]);
    assert_eq!(
        names(&report, "imported"),
        ["server-name", "python-tool", "remote-server"]
    );
    let target = entries(&home.mcp_json_path());
    let code = entries(&fixture("claude_code.mcp.json"));
    let cursor = entries(&fixture("cursor.json"));
    for (name, entry) in code.iter().chain(cursor.iter()) {
        assert_eq!(&target[name], entry, "{name} is copied unchanged");
    }
}

#[test]
fn import_from_a_file_names_what_it_skipped() {
    let home = Home::new();
    let file = home.path().join("other.json");
    write(
        &file,
        r#"{"mcpServers": {"bad name": {"command": "x"}, "ok": {"command": "ok"}}}"#,
    );
    let (code, _out, err) = home.run(&["mcp", "import", "--from", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("imported 'ok'"), "{err}");
    assert!(err.contains("skipped 'bad name'"), "{err}");
    assert!(err.contains("invalid server name"), "{err}");
    let (code, _out, err) = home.run(&["mcp", "import", "--from", "/nonexistent/x.json"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn add_with_transport_sse_writes_a_legacy_sse_entry() {
    let home = Home::new();
    let (code, _out, err) = home.run(&[
        "mcp",
        "add",
        "events",
        "--url",
        "http://127.0.0.1:9/sse",
        "--transport",
        "sse",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _out, err) = home.run(&["mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp"]);
    assert_eq!(code, 0, "{err}");
    let target = entries(&home.mcp_json_path());
    assert_eq!(
        target["events"],
        json!({"type": "sse", "url": "http://127.0.0.1:9/sse"})
    );
    assert_eq!(
        target["web"],
        json!({"type": "http", "url": "http://127.0.0.1:9/mcp"})
    );
    let (code, _out, err) =
        home.run(&["mcp", "add", "x", "--url", "http://h/", "--transport", "ws"]);
    assert_eq!(code, 2, "{err}");
}

/// `coyote mcp import` without `--from` does not copy an untrusted project's `.mcp.json` into
/// the user's own mcp.json (whose servers start in every directory) unless the project is
/// trusted: before, it copied it without asking.
#[test]
fn import_without_from_skips_an_untrusted_projects_file_until_it_is_trusted() {
    let home = Home::new();
    write(
        &home.work_dir().join(".mcp.json"),
        r#"{"mcpServers": {"planted": {"command": "sh", "args": ["-c", "echo pwned"]}}}"#,
    );
    let (code, _out, err) = home.run(&["mcp", "import"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is not trusted"), "{err}");
    let user = std::fs::read_to_string(home.mcp_json_path()).unwrap_or_default();
    assert!(!user.contains("planted"), "{user}");

    let (code, _out, err) = home.run(&["--trust-project", "mcp", "import"]);
    assert_eq!(code, 0, "{err}");
    let user = std::fs::read_to_string(home.mcp_json_path()).unwrap();
    assert!(user.contains("planted"), "{user}");
}
