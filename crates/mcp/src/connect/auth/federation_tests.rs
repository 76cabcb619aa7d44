use super::*;

fn source_file(text: &str) -> (tempfile::TempDir, TokenSource) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("token");
    std::fs::write(&path, text).unwrap();
    (dir, TokenSource::File(path))
}

#[tokio::test]
async fn tokens_are_read_trimmed_and_never_shown_when_unusable() {
    let (_dir, file) = source_file("eyJ.a.b\n");
    assert_eq!(
        read_token(&file, "workload token").await.unwrap(),
        "eyJ.a.b"
    );

    let (_dir, two_words) = source_file("SECRET-ONE SECRET-TWO");
    let e = read_token(&two_words, "ID token")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the token alone") && !e.contains("SECRET"),
        "{e}"
    );

    let missing = TokenSource::File("/nonexistent/coyote/token".into());
    let e = read_token(&missing, "workload token")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("/nonexistent/coyote/token"), "{e}");

    let unset = TokenSource::Env("COYOTE_TEST_SURELY_UNSET_VARIABLE".into());
    let e = read_token(&unset, "workload token")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not set"), "{e}");

    let printed = TokenSource::Command(vec!["echo".into(), "id-token-value".into()]);
    assert_eq!(
        read_token(&printed, "ID token").await.unwrap(),
        "id-token-value"
    );
    let failing = TokenSource::Command(vec!["false".into()]);
    let e = read_token(&failing, "ID token")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("it failed"), "{e}");
}
