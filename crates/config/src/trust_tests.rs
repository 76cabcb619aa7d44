use super::*;

fn setup() -> (tempfile::TempDir, TrustStore, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let store = TrustStore::at(tmp.path().join("state/trusted-projects.json"));
    let file = tmp.path().join("proj/.coyote/mcp.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, "{}").unwrap();
    (tmp, store, file)
}

#[test]
fn untrusted_then_trusted_then_changed() {
    let (_tmp, store, file) = setup();
    assert_eq!(store.status(&file, "aa"), Ok(TrustStatus::Untrusted));
    store.trust(&file, "aa").unwrap();
    assert_eq!(store.status(&file, "aa"), Ok(TrustStatus::Trusted));
    assert_eq!(store.status(&file, "bb"), Ok(TrustStatus::Changed));
}

#[test]
fn trust_is_per_path() {
    let (tmp, store, file) = setup();
    store.trust(&file, "aa").unwrap();
    let other = tmp.path().join("other/.coyote/mcp.json");
    assert_eq!(store.status(&other, "aa"), Ok(TrustStatus::Untrusted));
}

#[test]
fn equivalent_paths_share_trust() {
    let (tmp, store, file) = setup();
    store.trust(&file, "aa").unwrap();
    let dotted = tmp.path().join("proj/.coyote/../.coyote/mcp.json");
    assert_eq!(store.status(&dotted, "aa"), Ok(TrustStatus::Trusted));
}

#[test]
fn decide_distrust_revokes() {
    let (_tmp, store, file) = setup();
    let project = ProjectFile {
        path: file.clone(),
        root: file.parent().unwrap().parent().unwrap().to_owned(),
        sha256: "aa".into(),
        status: TrustStatus::Untrusted,
    };
    store.decide(&project, TrustDecision::Trust).unwrap();
    assert_eq!(store.status(&file, "aa"), Ok(TrustStatus::Trusted));
    store.decide(&project, TrustDecision::Distrust).unwrap();
    assert_eq!(store.status(&file, "aa"), Ok(TrustStatus::Untrusted));
}

#[test]
fn corrupt_store_trusts_nothing_and_is_replaced() {
    let (_tmp, store, file) = setup();
    fs::create_dir_all(store.path().parent().unwrap()).unwrap();
    fs::write(store.path(), "{not json").unwrap();
    assert!(store.status(&file, "aa").is_err());
    store.trust(&file, "aa").unwrap();
    assert_eq!(store.status(&file, "aa"), Ok(TrustStatus::Trusted));
}

#[cfg(unix)]
#[test]
fn store_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, store, file) = setup();
    store.trust(&file, "aa").unwrap();
    let mode = fs::metadata(store.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn sha256_is_lowercase_hex() {
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}
