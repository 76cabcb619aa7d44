use std::fs;
use std::path::PathBuf;

use super::*;
use crate::error::NameProblem;
use crate::expand::VarProblem;

fn tmp_file() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config/coyote/mcp.json");
    (tmp, path)
}

const EXISTING: &str = r#"{
  "other": 1,
  "mcpServers": {
    "zeta": {"command": "z", "disabled": true, "futureKey": {"x": 1}},
    "alpha": {"url": "https://a/mcp"},
    "mid": {"command": "m"}
  }
}"#;

fn server_names(path: &Path) -> Vec<String> {
    let v: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    v["mcpServers"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn add_creates_file_and_directories() {
    let (_tmp, path) = tmp_file();
    let entry = ServerEntry::stdio("npx")
        .args(["-y", "@modelcontextprotocol/server-everything"])
        .env("TOKEN", "${TOKEN}")
        .into();
    assert_eq!(
        add_server(&path, "everything", &entry, IfExists::Refuse).unwrap(),
        AddOutcome::Added
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        r#"{
  "mcpServers": {
    "everything": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-everything"
      ],
      "env": {
        "TOKEN": "${TOKEN}"
      }
    }
  }
}
"#
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}

#[test]
fn add_keeps_other_entries_keys_and_order() {
    let (_tmp, path) = tmp_file();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, EXISTING).unwrap();
    let entry = ServerEntry::http("https://new/mcp")
        .header("Authorization", "Bearer ${T}")
        .into();
    add_server(&path, "new", &entry, IfExists::Refuse).unwrap();
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let mut want: Value = serde_json::from_str(EXISTING).unwrap();
    want["mcpServers"]["new"] = serde_json::json!({"type": "http", "url": "https://new/mcp", "headers": {"Authorization": "Bearer ${T}"}});
    assert_eq!(v, want);
    assert_eq!(server_names(&path), ["zeta", "alpha", "mid", "new"]);
    let top: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(top, ["other", "mcpServers"]);
    let zeta: Vec<_> = v["mcpServers"]["zeta"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(zeta, ["command", "disabled", "futureKey"]);
}

#[test]
fn oauth_client_id_and_scopes_are_written() {
    let (_tmp, path) = tmp_file();
    let entry = ServerEntry::http("https://mcp.example/mcp")
        .client_id("app-1")
        .scope("read")
        .scope("write")
        .scope("read")
        .into();
    add_server(&path, "remote", &entry, IfExists::Refuse).unwrap();
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        v["mcpServers"]["remote"],
        serde_json::json!({"type": "http", "url": "https://mcp.example/mcp",
            "oauth": {"clientId": "app-1", "scopes": ["read", "write"]}})
    );
}

#[test]
fn existing_name_is_refused_unless_replacing() {
    let (_tmp, path) = tmp_file();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, EXISTING).unwrap();
    let entry: ServerEntry = ServerEntry::stdio("new-alpha").into();
    let err = add_server(&path, "alpha", &entry, IfExists::Refuse).unwrap_err();
    assert!(
        matches!(&err, ConfigError::ServerExists { name, .. } if name == "alpha"),
        "{err:?}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), EXISTING);
    assert_eq!(
        add_server(&path, "alpha", &entry, IfExists::Replace).unwrap(),
        AddOutcome::Replaced
    );
    assert_eq!(server_names(&path), ["zeta", "alpha", "mid"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        v["mcpServers"]["alpha"],
        serde_json::json!({"command": "new-alpha"})
    );
}

#[test]
fn invalid_entries_are_rejected_before_writing() {
    let (_tmp, path) = tmp_file();
    let cases: Vec<(&str, ServerEntry, ProblemKind)> = vec![
        (
            "bad name",
            ServerEntry::stdio("x").into(),
            ProblemKind::BadName {
                name: "bad name".into(),
                reason: NameProblem::BadChar { ch: ' ' },
            },
        ),
        ("ok", ServerEntry::stdio("").into(), ProblemKind::Empty),
        (
            "ok",
            ServerEntry::stdio("x").arg("${oops").into(),
            ProblemKind::Variable(VarProblem::Unterminated),
        ),
        (
            "ok",
            ServerEntry::http("https://h")
                .header("Bad Header", "v")
                .into(),
            ProblemKind::BadHeaderName {
                name: "Bad Header".into(),
            },
        ),
        (
            "ok",
            ServerEntry::http("ftp://h").into(),
            ProblemKind::BadUrl {
                reason: "scheme \"ftp\" is not http or https".into(),
            },
        ),
        (
            "ok",
            ServerEntry::stdio("x").env("A=B", "1").into(),
            ProblemKind::BadEnvName { name: "A=B".into() },
        ),
    ];
    for (name, entry, kind) in cases {
        match add_server(&path, name, &entry, IfExists::Refuse) {
            Err(ConfigError::Invalid { problems, .. }) => {
                assert_eq!(
                    problems.iter().map(|p| p.kind.clone()).collect::<Vec<_>>(),
                    vec![kind],
                    "{entry:?}"
                )
            }
            other => panic!("{entry:?}: {other:?}"),
        }
        assert!(!path.exists());
    }
}

#[test]
fn unset_variables_are_fine_when_adding() {
    let (_tmp, path) = tmp_file();
    let entry = ServerEntry::http("https://${HOST_NOT_SET}/mcp")
        .header("X-Key", "${KEY_NOT_SET}")
        .into();
    add_server(&path, "later", &entry, IfExists::Refuse).unwrap();
    assert_eq!(server_names(&path), ["later"]);
}

#[test]
fn broken_files_are_not_overwritten() {
    let (_tmp, path) = tmp_file();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    for text in ["{\"mcpServers\": {", "[1]", r#"{"mcpServers": 3}"#] {
        fs::write(&path, text).unwrap();
        let entry: ServerEntry = ServerEntry::stdio("x").into();
        let err = add_server(&path, "a", &entry, IfExists::Refuse).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::Syntax { .. } | ConfigError::Invalid { .. }
            ),
            "{err:?}"
        );
        assert!(remove_server(&path, "a").is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }
}

#[test]
fn remove_keeps_the_rest_in_order() {
    let (_tmp, path) = tmp_file();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, EXISTING).unwrap();
    remove_server(&path, "alpha").unwrap();
    assert_eq!(server_names(&path), ["zeta", "mid"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["other"], 1);
    assert_eq!(
        v["mcpServers"]["zeta"]["futureKey"],
        serde_json::json!({"x": 1})
    );
}

#[test]
fn remove_unknown_lists_the_names() {
    let (_tmp, path) = tmp_file();
    let err = remove_server(&path, "nope").unwrap_err();
    assert!(
        matches!(&err, ConfigError::UnknownServer { known, .. } if known.is_empty()),
        "{err:?}"
    );
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, EXISTING).unwrap();
    let err = remove_server(&path, "nope").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: no server named \"nope\" (servers: zeta, alpha, mid). Fix: use one of the names listed",
            path.display()
        )
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), EXISTING);
}

#[test]
fn cli_argument_parsing() {
    assert_eq!(
        parse_env_assignment("A=b=c").unwrap(),
        ("A".into(), "b=c".into())
    );
    assert_eq!(parse_env_assignment("A=").unwrap(), ("A".into(), "".into()));
    assert!(matches!(
        parse_env_assignment("secretvalue"),
        Err(ConfigError::BadArgument { .. })
    ));
    assert!(matches!(
        parse_env_assignment("=x"),
        Err(ConfigError::BadArgument { .. })
    ));
    assert_eq!(
        parse_header("Authorization: Bearer x:y").unwrap(),
        ("Authorization".into(), "Bearer x:y".into())
    );
    assert_eq!(parse_header("X-A:1").unwrap(), ("X-A".into(), "1".into()));
    let err = parse_header("secretvalue").unwrap_err();
    assert_eq!(
        err.to_string(),
        "--header expects \"Name: value\". Fix: write it as --header \"Authorization: Bearer ${TOKEN}\""
    );
}

#[test]
fn builders_replace_repeated_names() {
    let entry: ServerEntry = ServerEntry::stdio("x").env("A", "1").env("A", "2").into();
    assert_eq!(
        entry.to_json(),
        serde_json::json!({"command": "x", "env": {"A": "2"}})
    );
    let entry: ServerEntry = ServerEntry::sse("https://h")
        .header("x-a", "1")
        .header("X-A", "2")
        .into();
    assert_eq!(
        entry.to_json(),
        serde_json::json!({"type": "sse", "url": "https://h", "headers": {"X-A": "2"}})
    );
}

#[test]
fn debug_redacts_values() {
    let entry: ServerEntry = ServerEntry::stdio("x")
        .env("TOKEN", "SECRET1")
        .cwd("/w")
        .into();
    let http: ServerEntry = ServerEntry::http("https://h/?k=SECRET2")
        .header("Authorization", "SECRET3")
        .into();
    let debug = format!("{entry:?} {http:?}");
    assert!(!debug.contains("SECRET"), "{debug}");
    assert!(
        debug.contains("TOKEN=<redacted>") && debug.contains("Authorization=<redacted>"),
        "{debug}"
    );
}
