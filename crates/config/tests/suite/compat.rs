//! Files written for other MCP clients load unchanged, without warnings.

use std::path::Path;

use coyote_config::{DisabledServer, MapEnv, McpFile, McpFileContext, parse_mcp_json};

fn load_fixture(name: &str) -> McpFile {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap();
    let env = MapEnv::new()
        .with("API_KEY", "test-key")
        .with("HOME", "/home/alice");
    let cx = McpFileContext::new(&env, "/work/project");
    let file = parse_mcp_json(&text, &Path::new("/fixtures").join(name), &cx)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file.warnings, vec![], "{name} must load without warnings");
    file
}

#[test]
fn claude_desktop() {
    let file = load_fixture("claude_desktop.json");
    assert_eq!(file.disabled, vec![]);
    insta::assert_json_snapshot!(file.servers);
}

#[test]
fn claude_code() {
    let file = load_fixture("claude_code.mcp.json");
    insta::assert_json_snapshot!(file.servers);
}

#[test]
fn cursor() {
    let file = load_fixture("cursor.json");
    insta::assert_json_snapshot!(file.servers);
}

#[test]
fn cline() {
    let file = load_fixture("cline.json");
    assert_eq!(
        file.disabled,
        vec![DisabledServer {
            name: "old-tool".into(),
            source: "/fixtures/cline.json".into()
        }]
    );
    insta::assert_json_snapshot!(file.servers);
}

#[test]
fn roo_and_windsurf() {
    let file = load_fixture("roo_windsurf.json");
    insta::assert_json_snapshot!(file.servers);
}
