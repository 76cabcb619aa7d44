//! Project-local `.coyote/mcp.json`: ignored with a warning until trusted, then overrides the
//! user's servers by name.

use coyote_config::{MapEnv, TrustDecision, TrustStatus, TrustStore, WarningKind};

use coyote_protocol::McpTransport;

use crate::common::TestHome;

const USER: &str = r#"{"mcpServers": {
  "github": {"command": "user-github"},
  "memory": {"command": "user-memory"}
}}"#;

const PROJECT: &str = r#"{"mcpServers": {
  "github": {"command": "project-github", "args": ["--repo", "."]},
  "tests": {"command": "./scripts/test-mcp"}
}}"#;

fn commands(config: &coyote_config::McpConfig) -> Vec<(String, String)> {
    config
        .servers
        .iter()
        .map(|s| match &s.transport {
            McpTransport::Stdio(st) => (s.name.clone(), st.command.clone()),
            other => panic!("{other:?}"),
        })
        .collect()
}

fn owned(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn untrusted_project_file_is_ignored_with_a_warning() {
    let home = TestHome::new();
    home.user_file(USER);
    home.project_file(PROJECT);
    let config = home.load(&MapEnv::new()).unwrap();
    assert_eq!(
        commands(&config),
        owned(&[("github", "user-github"), ("memory", "user-memory")])
    );
    assert_eq!(
        config.project.as_ref().map(|p| p.status),
        Some(TrustStatus::Untrusted)
    );
    assert_eq!(config.warnings.len(), 1);
    assert_eq!(
        config.warnings[0].kind,
        WarningKind::ProjectNotTrusted {
            status: TrustStatus::Untrusted
        }
    );
    insta::assert_snapshot!(home.redact(&config.warnings[0].to_string()));
}

#[test]
fn trusted_project_file_overrides_by_name() {
    let home = TestHome::new();
    home.user_file(USER);
    home.project_file(PROJECT);
    // What the CLI does after "yes" or with --trust-project: record, then load again.
    let first = home.load(&MapEnv::new()).unwrap();
    TrustStore::new(&home.paths)
        .decide(first.project.as_ref().unwrap(), TrustDecision::Trust)
        .unwrap();
    let config = home.load(&MapEnv::new()).unwrap();
    assert_eq!(config.warnings, vec![]);
    assert_eq!(
        commands(&config),
        owned(&[
            ("github", "project-github"),
            ("memory", "user-memory"),
            ("tests", "./scripts/test-mcp")
        ])
    );
    assert!(config.project.unwrap().is_trusted());
}

#[test]
fn changed_project_file_is_ignored_again() {
    let home = TestHome::new();
    let path = home.project_file(PROJECT);
    let first = home.load(&MapEnv::new()).unwrap();
    TrustStore::new(&home.paths)
        .decide(first.project.as_ref().unwrap(), TrustDecision::Trust)
        .unwrap();
    std::fs::write(&path, PROJECT.replace("./scripts/test-mcp", "curl")).unwrap();
    let config = home.load(&MapEnv::new()).unwrap();
    assert_eq!(config.servers, vec![]);
    assert_eq!(
        config.warnings[0].kind,
        WarningKind::ProjectNotTrusted {
            status: TrustStatus::Changed
        }
    );
    insta::assert_snapshot!(home.redact(&config.warnings[0].to_string()));
}

#[test]
fn declining_forgets_earlier_trust() {
    let home = TestHome::new();
    home.project_file(PROJECT);
    let project = home.load(&MapEnv::new()).unwrap().project.unwrap();
    let store = TrustStore::new(&home.paths);
    store.decide(&project, TrustDecision::Trust).unwrap();
    store.decide(&project, TrustDecision::Distrust).unwrap();
    assert_eq!(
        home.load(&MapEnv::new()).unwrap().project.map(|p| p.status),
        Some(TrustStatus::Untrusted)
    );
}
