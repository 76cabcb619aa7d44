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
        config.projects.first().map(|p| p.status),
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
        .decide(&first.projects[0], TrustDecision::Trust)
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
    assert!(config.projects[0].clone().is_trusted());
}

#[test]
fn changed_project_file_is_ignored_again() {
    let home = TestHome::new();
    let path = home.project_file(PROJECT);
    let first = home.load(&MapEnv::new()).unwrap();
    TrustStore::new(&home.paths)
        .decide(&first.projects[0], TrustDecision::Trust)
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
    let project = home.load(&MapEnv::new()).unwrap().projects[0].clone();
    let store = TrustStore::new(&home.paths);
    store.decide(&project, TrustDecision::Trust).unwrap();
    store.decide(&project, TrustDecision::Distrust).unwrap();
    assert_eq!(
        home.load(&MapEnv::new())
            .unwrap()
            .projects
            .first()
            .map(|p| p.status),
        Some(TrustStatus::Untrusted)
    );
}

/// Claude Code's `.mcp.json`: the user's file, then `.mcp.json`, then `.coyote/mcp.json`.
const SHARED: &str = r#"{"mcpServers": {
  "github": {"command": "shared-github"},
  "memory": {"command": "shared-memory"},
  "linear": {"type": "sse", "url": "https://mcp.linear.app/sse"}
}}"#;

fn trust_all(home: &TestHome) {
    let store = TrustStore::new(&home.paths);
    for project in home.load(&MapEnv::new()).unwrap().projects {
        store.decide(&project, TrustDecision::Trust).unwrap();
    }
}

#[test]
fn untrusted_mcp_json_is_ignored_with_a_warning() {
    let home = TestHome::new();
    home.user_file(USER);
    let shared = home.shared_file(SHARED);
    let config = home.load(&MapEnv::new()).unwrap();
    assert_eq!(
        commands(&config),
        owned(&[("github", "user-github"), ("memory", "user-memory")])
    );
    assert_eq!(config.projects.len(), 1);
    assert_eq!(config.projects[0].path, shared);
    assert_eq!(config.projects[0].root, home.project);
    assert_eq!(config.untrusted_projects().count(), 1);
    assert_eq!(config.warnings[0].file, shared);
    assert_eq!(
        config.warnings[0].kind,
        WarningKind::ProjectNotTrusted {
            status: TrustStatus::Untrusted
        }
    );
}

#[test]
fn precedence_is_coyote_project_then_mcp_json_then_user() {
    let home = TestHome::new();
    home.user_file(USER);
    let shared = home.shared_file(SHARED);
    let own = home.project_file(PROJECT);
    let first = home.load(&MapEnv::new()).unwrap();
    let paths: Vec<_> = first.projects.iter().map(|p| p.path.clone()).collect();
    assert_eq!(paths, vec![shared.clone(), own.clone()]);
    trust_all(&home);
    let config = home.load(&MapEnv::new()).unwrap();
    assert_eq!(config.warnings, vec![]);
    let sources: Vec<(String, String, std::path::PathBuf)> = config
        .servers
        .iter()
        .map(|s| {
            let what = match &s.transport {
                McpTransport::Stdio(st) => st.command.clone(),
                McpTransport::Sse(h) | McpTransport::Http(h) => h.url.clone(),
            };
            (s.name.clone(), what, s.source.clone())
        })
        .collect();
    assert_eq!(
        sources,
        vec![
            ("github".into(), "project-github".into(), own.clone()),
            ("memory".into(), "shared-memory".into(), shared.clone()),
            (
                "linear".into(),
                "https://mcp.linear.app/sse".into(),
                shared.clone()
            ),
            ("tests".into(), "./scripts/test-mcp".into(), own),
        ]
    );
}

#[test]
fn each_project_file_is_trusted_on_its_own() {
    let home = TestHome::new();
    home.user_file(USER);
    home.shared_file(SHARED);
    let own = home.project_file(PROJECT);
    let first = home.load(&MapEnv::new()).unwrap();
    let coyote_file = first.projects.iter().find(|p| p.path == own).unwrap();
    TrustStore::new(&home.paths)
        .decide(coyote_file, TrustDecision::Trust)
        .unwrap();
    let config = home.load(&MapEnv::new()).unwrap();
    assert_eq!(
        commands(&config),
        owned(&[
            ("github", "project-github"),
            ("memory", "user-memory"),
            ("tests", "./scripts/test-mcp")
        ])
    );
    let untrusted: Vec<_> = config.untrusted_projects().map(|p| &p.path).collect();
    assert_eq!(untrusted, vec![&home.project.join(".mcp.json")]);
}

#[test]
fn mcp_json_above_the_repository_root_is_not_read() {
    let home = TestHome::new();
    // Above the project's `.git` (inside the temp dir): the search stops before it.
    crate::common::write(&home.tmp.path().join(".mcp.json"), SHARED);
    let config = home.load(&MapEnv::new()).unwrap();
    assert_eq!(config.projects, vec![]);
}
