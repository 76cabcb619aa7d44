use std::fs;

use super::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Turn {
    role: String,
    text: String,
}

fn sample() -> SessionFile<Vec<Turn>> {
    SessionFile::new(
        SessionMeta {
            role: Some("reviewer".into()),
            agent: None,
            enabled_mcp_servers: Some(ServerListValue::List(vec!["fs".into()])),
            model: Some("openai:gpt-4o".into()),
        },
        vec![
            Turn {
                role: "user".into(),
                text: "hi: there # not a comment".into(),
            },
            Turn {
                role: "assistant".into(),
                text: "hello\nworld".into(),
            },
        ],
    )
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn save_load_round_trip_in_both_formats_private() {
    let tmp = tempfile::tempdir().unwrap();
    let store = SessionStore::new(tmp.path().join("sessions"));
    for (name, format) in [("a", SessionFormat::Yaml), ("b", SessionFormat::Json)] {
        let path = store.save(name, &sample(), format).unwrap();
        assert_eq!(
            path,
            store.dir().join(format!("{name}.{}", format.extension()))
        );
        #[cfg(unix)]
        assert_eq!(mode(&path), 0o600);
        let loaded: SessionFile<Vec<Turn>> = store.load(name).unwrap();
        assert_eq!(loaded, sample());
    }
    let names: Vec<(String, SessionFormat)> = store
        .list()
        .into_iter()
        .map(|e| (e.name, e.format))
        .collect();
    assert_eq!(
        names,
        vec![
            ("a".into(), SessionFormat::Yaml),
            ("b".into(), SessionFormat::Json)
        ]
    );
    // Re-saving keeps the existing file's format.
    let path = store.save("b", &sample(), SessionFormat::Yaml).unwrap();
    assert_eq!(path, store.dir().join("b.json"));
}

#[test]
fn a_corrupt_file_is_reported_and_never_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let store = SessionStore::new(tmp.path());
    let path = tmp.path().join("broken.yaml");
    fs::write(&path, "version: [unclosed").unwrap();
    let err = store.load::<Vec<Turn>>("broken").unwrap_err();
    assert!(
        matches!(&err, SessionStoreError::Corrupt { path: p, .. } if p == &path),
        "{err}"
    );
    assert!(err.to_string().contains("left untouched"), "{err}");
    let err = store
        .save("broken", &sample(), SessionFormat::Yaml)
        .unwrap_err();
    assert!(matches!(err, SessionStoreError::Corrupt { .. }), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "version: [unclosed");

    // Valid YAML of the wrong shape is corrupt too, and a payload mismatch as well.
    fs::write(tmp.path().join("shape.json"), r#"{"hello": 1}"#).unwrap();
    assert!(matches!(
        store.load::<Vec<Turn>>("shape"),
        Err(SessionStoreError::Corrupt { .. })
    ));
    fs::write(
        tmp.path().join("payload.json"),
        r#"{"version": 1, "conversation": 3}"#,
    )
    .unwrap();
    assert!(matches!(
        store.load::<Vec<Turn>>("payload"),
        Err(SessionStoreError::Corrupt { .. })
    ));
    fs::write(
        tmp.path().join("future.json"),
        r#"{"version": 9, "conversation": []}"#,
    )
    .unwrap();
    assert!(matches!(
        store.load::<Vec<Turn>>("future"),
        Err(SessionStoreError::UnsupportedVersion { found: 9, .. })
    ));
}

#[test]
fn names_missing_and_ambiguous() {
    let tmp = tempfile::tempdir().unwrap();
    let store = SessionStore::new(tmp.path());
    assert!(matches!(
        store.save("../x", &sample(), SessionFormat::Yaml),
        Err(SessionStoreError::InvalidName { .. })
    ));
    assert!(matches!(
        store.load::<Vec<Turn>>("nope"),
        Err(SessionStoreError::NotFound { .. })
    ));
    store.save("dup", &sample(), SessionFormat::Yaml).unwrap();
    fs::copy(tmp.path().join("dup.yaml"), tmp.path().join("dup.yml")).unwrap();
    assert!(matches!(
        store.load::<Vec<Turn>>("dup"),
        Err(SessionStoreError::Ambiguous { .. })
    ));
}
