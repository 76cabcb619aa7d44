use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::env::MapEnv;
use crate::mcp_json::{McpFileContext, parse_mcp_json};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn servers(path: &Path) -> serde_json::Map<String, Value> {
    let doc: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    doc["mcpServers"].as_object().unwrap().clone()
}

/// The specs of a file as coyote loads them, without the `source` field.
fn specs(path: &Path) -> Vec<coyote_protocol::McpServerSpec> {
    let env = MapEnv::new()
        .with("API_KEY", "k")
        .with("HOME", "/home/alice");
    let cx = McpFileContext::new(&env, "/work/project");
    let text = fs::read_to_string(path).unwrap();
    let mut specs = parse_mcp_json(&text, path, &cx).unwrap().servers;
    for s in &mut specs {
        s.source = PathBuf::new();
    }
    specs
}

#[test]
fn every_fixture_imports_unchanged() {
    for name in ["claude_desktop.json", "claude_code.mcp.json", "cursor.json"] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("mcp.json");
        let report = import_servers(&target, &[fixture(name)], false).unwrap();
        assert_eq!(report.skipped, vec![], "{name}");
        assert_eq!(report.read, vec![fixture(name)]);
        assert_eq!(
            servers(&target),
            servers(&fixture(name)),
            "{name}: entries are copied verbatim"
        );
        assert_eq!(specs(&target), specs(&fixture(name)), "{name}");
    }
}

#[test]
fn existing_names_are_skipped_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("mcp.json");
    fs::write(
        &target,
        r#"{"mcpServers": {"github": {"command": "mine"}, "keep": {"command": "k"}}}"#,
    )
    .unwrap();
    let source = fixture("claude_desktop.json");
    let report = import_servers(&target, std::slice::from_ref(&source), false).unwrap();
    let imported: Vec<&str> = report.imported.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(imported, ["filesystem", "sqlite", "puppeteer"]);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].name, "github");
    assert!(
        report.skipped[0].reason.contains("--force"),
        "{}",
        report.skipped[0].reason
    );
    assert_eq!(servers(&target)["github"], json!({"command": "mine"}));

    let report = import_servers(&target, &[source], true).unwrap();
    assert_eq!(report.skipped, vec![]);
    let github = report.imported.iter().find(|i| i.name == "github").unwrap();
    assert!(github.replaced);
    assert_eq!(servers(&target)["github"]["command"], json!("npx"));
    let keys: Vec<String> = servers(&target).keys().cloned().collect();
    assert_eq!(
        keys,
        ["github", "keep", "filesystem", "sqlite", "puppeteer"],
        "a replaced entry keeps its place"
    );
}

#[test]
fn invalid_entries_are_skipped_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("other.json");
    fs::write(
        &source,
        r#"{"mcpServers": {
            "my server": {"command": "x"},
            "nothing": {"args": ["x"]},
            "ok": {"command": "ok"}
        }}"#,
    )
    .unwrap();
    let target = dir.path().join("mcp.json");
    let report = import_servers(&target, &[source], false).unwrap();
    let imported: Vec<&str> = report.imported.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(imported, ["ok"]);
    let skipped: Vec<(&str, bool)> = report
        .skipped
        .iter()
        .map(|s| (s.name.as_str(), s.reason.contains("reject")))
        .collect();
    assert_eq!(skipped, [("my server", true), ("nothing", true)]);
    assert!(report.skipped[0].reason.contains("invalid server name"));
    assert!(report.skipped[1].reason.contains("command"));
}

#[test]
fn nothing_to_import_leaves_the_target_alone() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("mcp.json");
    let report = import_servers(&target, &[dir.path().join("missing.json")], false).unwrap();
    assert_eq!(report, ImportReport::default());
    assert!(!target.exists());
}

#[test]
fn a_name_from_an_earlier_source_wins() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    fs::write(&a, r#"{"mcpServers": {"x": {"command": "from-a"}}}"#).unwrap();
    fs::write(&b, r#"{"mcpServers": {"x": {"command": "from-b"}}}"#).unwrap();
    let target = dir.path().join("mcp.json");
    let report = import_servers(&target, &[a.clone(), b], true).unwrap();
    assert_eq!(report.imported.len(), 1);
    assert!(report.skipped[0].reason.contains(&a.display().to_string()));
    assert_eq!(servers(&target)["x"]["command"], json!("from-a"));
}

#[test]
fn client_files() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    let cwd = repo.join("src");
    fs::create_dir_all(&cwd).unwrap();
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(repo.join(".cursor")).unwrap();
    fs::write(repo.join(".mcp.json"), "{}").unwrap();
    fs::write(repo.join(".cursor/mcp.json"), "{}").unwrap();
    let env = MapEnv::new().with("HOME", home.to_str().unwrap());
    assert_eq!(
        ImportSource::ClaudeCode.candidates(&env, &cwd),
        vec![repo.join(".mcp.json"), home.join(".claude.json")]
    );
    assert_eq!(
        ImportSource::Cursor.candidates(&env, &cwd),
        vec![repo.join(".cursor/mcp.json"), home.join(".cursor/mcp.json")]
    );
    let desktop = ImportSource::ClaudeDesktop.candidates(&env, &cwd);
    assert_eq!(
        desktop.last(),
        Some(&home.join(".config/Claude/claude_desktop_config.json"))
    );
    assert_eq!(
        ImportSource::parse("x/y.json").candidates(&env, &cwd),
        vec![cwd.join("x/y.json")]
    );
}
