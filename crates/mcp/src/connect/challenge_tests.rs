use super::*;

#[test]
fn a_challenge_scope_is_read_quoted_or_not() {
    assert_eq!(
        challenge_scope(r#"Bearer error="insufficient_scope", scope="files:read files:write""#)
            .as_deref(),
        Some("files:read files:write")
    );
    assert_eq!(
        challenge_scope("Bearer Scope=read:data, realm=x").as_deref(),
        Some("read:data")
    );
    assert_eq!(challenge_scope("Bearer realm=x"), None);
    assert_eq!(challenge_scope(r#"Bearer scope="unterminated"#), None);
}
