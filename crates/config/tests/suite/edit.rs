//! `coyote mcp add` / `remove` through the public API, then loaded back.

use std::fs;

use coyote_config::{
    AddOutcome, IfExists, MapEnv, ServerEntry, add_server, parse_env_assignment, parse_header,
    remove_server,
};

use crate::common::TestHome;

const START: &str = r#"{
  "mcpServers": {
    "b-second": {"command": "b"},
    "a-first": {"url": "https://a.example/mcp", "futureKey": true},
    "c-third": {"command": "c", "disabled": true}
  }
}
"#;

#[test]
fn add_then_remove_round_trip_keeps_order() {
    let home = TestHome::new();
    let path = home.user_file(START);
    let (k, v) = parse_env_assignment("TOKEN=${GH_TOKEN}").unwrap();
    let stdio = ServerEntry::stdio("npx")
        .args(["-y", "@modelcontextprotocol/server-github"])
        .env(k, v)
        .into();
    assert_eq!(
        add_server(&path, "github", &stdio, IfExists::Refuse).unwrap(),
        AddOutcome::Added
    );
    let (k, v) = parse_header("Authorization: Bearer ${API}").unwrap();
    let http = ServerEntry::http("https://api.example/mcp")
        .header(k, v)
        .into();
    add_server(&path, "api", &http, IfExists::Refuse).unwrap();

    let env = MapEnv::new().with("GH_TOKEN", "t").with("API", "k");
    let config = home.load(&env).unwrap();
    let names: Vec<_> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["b-second", "a-first", "github", "api"]);
    assert_eq!(
        config
            .disabled
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>(),
        ["c-third"]
    );
    // `futureKey` is unknown to coyote: kept in the file, warned about on load.
    assert_eq!(config.warnings.len(), 1);

    remove_server(&path, "a-first").unwrap();
    remove_server(&path, "github").unwrap();
    insta::assert_snapshot!(fs::read_to_string(&path).unwrap());
}

#[cfg(unix)]
#[test]
fn edits_replace_the_file_atomically() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let home = TestHome::new();
    let path = home.user_file(START);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let before = fs::metadata(&path).unwrap();
    let entry = ServerEntry::stdio("x").into();
    add_server(&path, "x", &entry, IfExists::Refuse).unwrap();
    let after = fs::metadata(&path).unwrap();
    // A new inode: the content was renamed into place, never truncated and rewritten.
    assert_ne!(before.ino(), after.ino());
    assert_eq!(after.permissions().mode() & 0o777, 0o640);
    let mut names: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, vec![std::ffi::OsString::from("mcp.json")]);
}

#[test]
fn replace_requires_asking() {
    let home = TestHome::new();
    let path = home.user_file(START);
    let entry = ServerEntry::stdio("new-b").into();
    let err = add_server(&path, "b-second", &entry, IfExists::Refuse).unwrap_err();
    assert_eq!(
        home.redact(&err.to_string()),
        "[TMP]/home/config/mcp.json: server \"b-second\" already exists. Fix: choose another name, \
         remove it first with `coyote mcp remove b-second`, or replace it with `coyote mcp add --force b-second …`"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), START);
    assert_eq!(
        add_server(&path, "b-second", &entry, IfExists::Replace).unwrap(),
        AddOutcome::Replaced
    );
}
