use std::fs;

use super::*;
use crate::definition::DefinitionWarningKind;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn loads_front_matter_and_body() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        "reviewer.md",
        "---\nmodel: openai:gpt-4o\ntemperature: 0.2\nenabled_mcp_servers: [github, fs]\ndescription: Reviews code\ncolour: red\n---\nYou review code.\n",
    );
    let role = load_role(tmp.path(), "reviewer").unwrap();
    assert_eq!(
        role,
        Role {
            name: "reviewer".into(),
            file: file.clone(),
            model: Some("openai:gpt-4o".into()),
            temperature: Some(0.2),
            enabled_mcp_servers: Some(ServerList::Names(vec!["github".into(), "fs".into()])),
            description: Some("Reviews code".into()),
            prompt: "You review code.".into(),
            warnings: vec![DefinitionWarning {
                file,
                kind: DefinitionWarningKind::UnknownKey {
                    key: "colour".into()
                },
            }],
        }
    );
}

#[test]
fn no_front_matter_is_all_prompt_and_selection_unset() {
    let role = parse_role("plain", Path::new("plain.md"), "Be terse.\n").unwrap();
    assert_eq!(role.prompt, "Be terse.");
    assert_eq!(role.enabled_mcp_servers, None);
    assert_eq!(role.model, None);
}

#[test]
fn explicit_empty_selection_means_none() {
    for front in [
        "enabled_mcp_servers: []",
        "enabled_mcp_servers:",
        "enabled_mcp_servers: ''",
    ] {
        let text = format!("---\n{front}\n---\nx");
        let role = parse_role("r", Path::new("r.md"), &text).unwrap();
        assert_eq!(
            role.enabled_mcp_servers,
            Some(ServerList::Names(vec![])),
            "{front}"
        );
    }
    let role = parse_role(
        "r",
        Path::new("r.md"),
        "---\nenabled_mcp_servers: all\n---\nx",
    )
    .unwrap();
    assert_eq!(role.enabled_mcp_servers, Some(ServerList::All));
}

#[test]
fn malformed_roles_name_file_key_and_fix() {
    let file = Path::new("/cfg/roles/bad.md");
    let cases = [
        (
            "---\ntemperature: hot\n---\nx",
            "/cfg/roles/bad.md (key `temperature`): expected a number; write `temperature: 0.7`",
        ),
        (
            "---\nenabled_mcp_servers: {a: 1}\n---\nx",
            "/cfg/roles/bad.md (key `enabled_mcp_servers`): expected `all`, a list of server names or an empty list; write `enabled_mcp_servers: [github, fs]`, `enabled_mcp_servers: all` or `enabled_mcp_servers: []`",
        ),
        (
            "---\nmodel: x\nno closing fence",
            "/cfg/roles/bad.md: the front matter opened by `---` is never closed; end the YAML header with a line containing only `---`, followed by the prompt",
        ),
        (
            "---\n- a\n- b\n---\nx",
            "/cfg/roles/bad.md: the YAML is not a mapping of `key: value` lines; write one `key: value` per line (see `coyote help agents`)",
        ),
    ];
    for (text, message) in cases {
        let err = parse_role("bad", file, text).unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(err.file(), Some(file));
    }
    let err = parse_role("bad", file, "---\nmodel: [unclosed\n---\nx").unwrap_err();
    assert!(
        matches!(&err, DefinitionError::Invalid { key: None, problem, .. } if problem.starts_with("invalid YAML at line")),
        "{err}"
    );
}

#[test]
fn a_bad_role_never_stops_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "good.md", "---\nmodel: a:b\n---\nGood.");
    write(tmp.path(), "bad.md", "---\ntemperature: [1]\n---\nBad.");
    write(tmp.path(), "notes.txt", "ignored");
    fs::write(tmp.path().join("latin1.md"), b"\xff\xfe").unwrap();
    let listing = list_roles(tmp.path());
    let names: Vec<&str> = listing.items.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["good"]);
    let files: Vec<PathBuf> = listing
        .errors
        .iter()
        .map(|e| e.file().unwrap().to_owned())
        .collect();
    assert_eq!(
        files,
        vec![tmp.path().join("bad.md"), tmp.path().join("latin1.md")]
    );
}

#[test]
fn missing_and_invalid_names() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "a.md", "x");
    let err = load_role(tmp.path(), "zzz").unwrap_err();
    assert!(
        matches!(&err, DefinitionError::NotFound { known, .. } if known == &vec!["a".to_owned()]),
        "{err}"
    );
    assert!(matches!(
        load_role(tmp.path(), "../etc/passwd"),
        Err(DefinitionError::InvalidName { .. })
    ));
    assert!(list_roles(&tmp.path().join("missing")).items.is_empty());
}
