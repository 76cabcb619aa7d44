//! Unit tests of log masking.

use super::*;

#[test]
fn secret_values_are_masked_at_every_quoting_depth() {
    let plain = r#"{"key":"API_SECRET","value":"s3cr\"et\\","is_preview":false}"#;
    assert_eq!(
        mask(plain),
        r#"{"key":"API_SECRET","value":"***","is_preview":false}"#
    );
    let debug = r#"arguments: Some({"uuid": String("app-api"), "value": String("pw\"1"), "postgres_password": String("pw2")})"#;
    assert_eq!(
        mask(debug),
        r#"arguments: Some({"uuid": String("app-api"), "value": String("***"), "postgres_password": String("***")})"#
    );
    // Pretty JSON inside a Debug string: escaped once.
    let nested = r#"text: "{\n  \"postgres_password\": \"p\\\"w\\\\\",\n  \"name\": \"db\"\n}""#;
    assert_eq!(
        mask(nested),
        r#"text: "{\n  \"postgres_password\": \"***\",\n  \"name\": \"db\"\n}""#
    );
    // Escaped twice (a JSON line logged inside a Debug string of a Debug string).
    let twice = r#"\\\"internal_db_url\\\":\\\"postgres://a:b@c\\\",\\\"x\\\":1"#;
    assert_eq!(
        mask(twice),
        r#"\\\"internal_db_url\\\":\\\"***\\\",\\\"x\\\":1"#
    );
    // Case-insensitive, and the suffix rules.
    assert_eq!(
        mask(r#"{"DB_PASSWORD":"a","Authorization":"Bearer t","refresh_token":"r","name":"n"}"#),
        r#"{"DB_PASSWORD":"***","Authorization":"***","refresh_token":"***","name":"n"}"#
    );
}

#[test]
fn lines_without_secrets_pass_through_unchanged() {
    for line in [
        "",
        "plain text",
        r#"{"name":"api","value":null,"token":12}"#,
        r#"{"value"}"#,
        r#"unterminated "value": "abc"#,
        "\"",
        "\\\"",
    ] {
        assert!(matches!(mask(line), Cow::Borrowed(_)), "{line}");
    }
}

#[test]
fn the_writer_masks_what_it_writes() {
    let mut sink = MaskingWriter(Vec::new());
    sink.write_all(br#"received {"token":"abc"}"#).unwrap();
    assert_eq!(sink.0, br#"received {"token":"***"}"#);
}
