//! Acceptance 7: every malformed mcp.json names the file, the key and the fix; unknown keys
//! are warnings with a suggestion. Messages are snapshotted: people read them.

use coyote_config::{ConfigError, MapEnv, ProblemKind, VarProblem, WarningKind};

use crate::common::TestHome;

/// Loads `text` as the user's mcp.json and returns the error message.
fn error_for(text: &str) -> (ConfigError, String) {
    let home = TestHome::new();
    home.user_file(text);
    let err = failure(home.load(&MapEnv::new().with("SET", "1")));
    let msg = home.redact(&err.to_string());
    (err, msg)
}

/// The load's error, or — an entry's problems disable only its server — the problems of the
/// disabled servers as one error, as a strict load reports them.
fn failure(loaded: Result<coyote_config::McpConfig, ConfigError>) -> ConfigError {
    match loaded {
        Err(err) => err,
        Ok(config) => {
            assert!(!config.broken.is_empty(), "must fail: {config:?}");
            ConfigError::Invalid {
                path: config.broken[0].source.clone(),
                problems: config
                    .broken
                    .iter()
                    .flat_map(|b| b.problems.clone())
                    .collect(),
            }
        }
    }
}

#[test]
fn bad_json() {
    let (err, msg) = error_for("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  \n}\n");
    assert!(
        matches!(
            err,
            ConfigError::Syntax {
                line: 6,
                column: 1,
                ..
            }
        ),
        "{err:?}"
    );
    insta::assert_snapshot!(msg);
}

#[test]
fn comments_are_bad_json() {
    let (err, msg) = error_for("{\n  // my servers\n  \"mcpServers\": {}\n}\n");
    assert!(
        matches!(
            err,
            ConfigError::Syntax {
                line: 2,
                column: 3,
                ..
            }
        ),
        "{err:?}"
    );
    insta::assert_snapshot!(msg);
}

#[test]
fn missing_command() {
    let (err, msg) = error_for(
        r#"{"mcpServers": {"github": {"args": ["-y", "@modelcontextprotocol/server-github"]}}}"#,
    );
    match &err {
        ConfigError::Invalid { problems, .. } => {
            assert_eq!(problems.len(), 1);
            assert_eq!(problems[0].path.to_string(), "mcpServers.github.command");
            assert_eq!(
                problems[0].kind,
                ProblemKind::MissingKey {
                    key: "command",
                    transport: "stdio"
                }
            );
        }
        other => panic!("{other:?}"),
    }
    insta::assert_snapshot!(msg);
}

#[test]
fn neither_command_nor_url() {
    let (_, msg) = error_for(r#"{"mcpServers": {"empty": {}}}"#);
    insta::assert_snapshot!(msg);
}

#[test]
fn bad_name() {
    let (err, msg) = error_for(r#"{"mcpServers": {"github.com/org/server": {"command": "x"}}}"#);
    assert!(
        matches!(&err, ConfigError::Invalid { problems, .. }
        if matches!(problems[0].kind, ProblemKind::BadName { .. })),
        "{err:?}"
    );
    insta::assert_snapshot!(msg);
}

#[test]
fn unset_variable() {
    let (err, msg) = error_for(
        r#"{"mcpServers": {"github": {"command": "npx", "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}"#,
    );
    match &err {
        ConfigError::Invalid { problems, .. } => {
            assert_eq!(
                problems[0].path.to_string(),
                "mcpServers.github.env.GITHUB_TOKEN"
            );
            assert_eq!(problems[0].server.as_deref(), Some("github"));
            assert_eq!(
                problems[0].kind,
                ProblemKind::Variable(VarProblem::Unset {
                    var: "GITHUB_TOKEN".into()
                })
            );
        }
        other => panic!("{other:?}"),
    }
    insta::assert_snapshot!(msg);
}

#[test]
fn wrong_type() {
    let (_, msg) =
        error_for(r#"{"mcpServers": {"fs": {"command": "npx", "args": "-y server-filesystem"}}}"#);
    insta::assert_snapshot!(msg);
}

#[test]
fn unknown_key_is_a_warning_with_a_suggestion() {
    let home = TestHome::new();
    home.user_file(r#"{"mcpServers": {"everything": {"commnd": "npx", "command": "npx"}}}"#);
    let config = home.load(&MapEnv::new()).unwrap();
    assert_eq!(config.servers.len(), 1);
    assert_eq!(config.warnings.len(), 1);
    assert_eq!(
        config.warnings[0].kind,
        WarningKind::UnknownKey {
            key: "commnd".into(),
            suggestion: Some("command")
        }
    );
    insta::assert_snapshot!(home.redact(&config.warnings[0].to_string()));
}

#[test]
fn messages_never_contain_secrets() {
    let env = MapEnv::new().with("TOKEN", "tok_SECRET");
    let cases = [
        r#"{"mcpServers": {"a": {"url": "ftp://${TOKEN}@h/"}}}"#,
        r#"{"mcpServers": {"a": {"url": "https://h/", "headers": {"X": "${TOKEN}\n"}}}}"#,
        r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "tok_SECRET"}, "args": 1}}}"#,
        r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "tok_SECRET", "=": "tok_SECRET"}}}}"#,
        r#"{"mcpServers": {"a": {"url": "https://h:99999/tok_SECRET"}}}"#,
    ];
    for text in cases {
        let home = TestHome::new();
        home.user_file(text);
        let err = failure(home.load(&env));
        let shown = format!("{err} {err:?}");
        assert!(!shown.contains("SECRET"), "{text}: {shown}");
    }
}
