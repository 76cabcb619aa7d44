use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::*;
use crate::render::{DecodedBlob, RenderError, SpillStore, decode_blob};

/// Feeds `line` to a fresh scanner in pieces of `piece` bytes; returns the assembled line.
fn assemble(line: &str, piece: usize) -> Vec<u8> {
    let mut divert = Divert::default();
    let mut out = Vec::new();
    for chunk in line.as_bytes().chunks(piece) {
        divert.feed(chunk, &mut out);
    }
    divert.end_line();
    out
}

fn read_response(contents: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "result": {"contents": contents}}).to_string()
}

fn png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend((0..5000u32).map(|i| (i * 7 % 251) as u8));
    bytes
}

fn store() -> (tempfile::TempDir, SpillStore) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SpillStore::new(dir.path().join("mcp-resources"));
    (dir, store)
}

fn blob_at(line: &[u8], index: usize) -> String {
    let v: Value = serde_json::from_slice(line).expect("the assembled line is JSON");
    v["result"]["contents"][index]["blob"]
        .as_str()
        .expect("blob string")
        .to_owned()
}

#[test]
fn a_png_blob_is_diverted_in_any_chunking_and_spills_with_its_sha256() {
    let bytes = png();
    let line = read_response(json!([
        {"uri": "fake://png", "mimeType": "image/png", "blob": STANDARD.encode(&bytes)}
    ]));
    for piece in [1, 3, 7, 64, 4096, line.len()] {
        let assembled = assemble(&line, piece);
        assert!(assembled.len() < 200, "the base64 stayed out of the line");
        let token = blob_at(&assembled, 0);
        let (_dir, store) = store();
        let DecodedBlob::Spilled(file) =
            decode_blob(&token, Some("image/png"), "srv", &store).expect("decoded")
        else {
            panic!("a PNG spills")
        };
        assert_eq!(std::fs::read(&file.path).expect("spill file"), bytes);
        assert_eq!(file.sha256, hex::encode(Sha256::digest(&bytes)));
        assert_eq!(file.size_bytes, bytes.len() as u64);
        assert_eq!(file.path.extension().and_then(|e| e.to_str()), Some("png"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file.path)
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}

#[test]
fn everything_but_the_blob_is_copied_verbatim() {
    let line = read_response(json!([
        {"uri": "a\"b\\c", "mimeType": "text/plain", "blob": "QUJD", "_meta": {"k": [1, {"x": "}"}]}}
    ]));
    let assembled = assemble(&line, 5);
    let mut expected: Value = serde_json::from_str(&line).expect("json");
    let got: Value = serde_json::from_slice(&assembled).expect("json");
    expected["result"]["contents"][0]["blob"] = got["result"]["contents"][0]["blob"].clone();
    assert_eq!(got, expected);
    assert_ne!(got["result"]["contents"][0]["blob"], json!("QUJD"));
}

#[test]
fn a_utf8_blob_comes_back_as_text() {
    let text = "héllo ✓ 🦀\n".repeat(1000);
    let line = read_response(json!([{"uri": "u", "blob": STANDARD.encode(&text)}]));
    let token = blob_at(&assemble(&line, 333), 0);
    let (_dir, store) = store();
    match decode_blob(&token, Some("application/octet-stream"), "srv", &store) {
        Ok(DecodedBlob::Text(got)) => assert_eq!(got, text),
        other => panic!("expected text, got {other:?}"),
    }
    assert!(!store.root().exists(), "text is never spilled");
}

#[test]
fn json_escapes_and_whitespace_inside_the_blob_are_resolved() {
    let bytes: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    let encoded = STANDARD.encode(&bytes);
    // `\/` for `/`, a `\u0041`-style escape, and wrapped lines as `\r\n` escapes.
    let mut escaped = String::new();
    for (i, c) in encoded.chars().enumerate() {
        if i > 0 && i % 76 == 0 {
            escaped.push_str("\\r\\n");
        }
        match c {
            '/' => escaped.push_str("\\/"),
            'A' => escaped.push_str("\\u0041"),
            c => escaped.push(c),
        }
    }
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"contents":[{{"uri":"u","blob":"{escaped}"}}]}}}}"#
    );
    for piece in [1, 2, 5, 100] {
        let token = blob_at(&assemble(&line, piece), 0);
        let (_dir, store) = store();
        let DecodedBlob::Spilled(file) = decode_blob(&token, None, "srv", &store).expect("ok")
        else {
            panic!("binary spills")
        };
        assert_eq!(std::fs::read(&file.path).expect("file"), bytes);
    }
}

#[test]
fn only_result_contents_blob_strings_are_diverted() {
    let untouched = [
        r#"{"jsonrpc":"2.0","id":1,"result":{"blob":"QUJD"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"contents":[{"blob":"QUJD"}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"u","_meta":{"blob":"QUJD"}}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"blob","text":"QUJD"}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"u","blob":7}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"x":{"contents":[{"blob":"QUJD"}]}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"QUJD"}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"content":[{"data":"QUJD"}]}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"resource":{"text":"QUJD"}}]}}"#,
    ];
    for line in untouched {
        assert_eq!(assemble(line, 3), line.as_bytes(), "{line}");
    }
}

#[test]
fn every_blob_of_a_multi_content_result_is_diverted_and_neighbours_survive() {
    let bytes = png();
    let line = read_response(json!([
        {"uri": "one", "mimeType": "image/png", "blob": STANDARD.encode(&bytes)},
        {"uri": "two", "mimeType": "text/plain", "text": "hello"},
        {"uri": "three", "blob": STANDARD.encode("plain text")},
        {"uri": "both", "text": "t", "blob": STANDARD.encode("x")},
    ]));
    let assembled = assemble(&line, 50);
    let v: Value = serde_json::from_slice(&assembled).expect("json");
    assert_eq!(v["result"]["contents"][1]["text"], "hello");
    assert_eq!(v["result"]["contents"][3]["text"], "t");
    let (_dir, store) = store();
    let first = decode_blob(&blob_at(&assembled, 0), None, "srv", &store).expect("first");
    assert!(matches!(first, DecodedBlob::Spilled(f) if f.size_bytes == bytes.len() as u64));
    let third = decode_blob(&blob_at(&assembled, 2), None, "srv", &store).expect("third");
    assert!(matches!(third, DecodedBlob::Text(t) if t == "plain text"));
    // rmcp keeps the text of an entry with both; the raw path reports it. Either way its
    // diverted blob is a token like the others.
    assert!(crate::render::blob::received::take(&blob_at(&assembled, 3)).is_some());
}

#[test]
fn invalid_base64_becomes_the_same_error_as_without_diversion() {
    let line = read_response(json!([{"uri": "u", "blob": "@@@@"}]));
    let token = blob_at(&assemble(&line, 2), 0);
    let (_dir, store) = store();
    let err = decode_blob(&token, None, "srv", &store).expect_err("invalid");
    assert!(matches!(err, RenderError::InvalidBase64 { .. }), "{err}");
}

/// `\f` and `\b` are a form feed and a backspace, not the letters `f` and `b` (found by the
/// line_transport fuzz target): the blob is invalid, as it is without diversion.
#[test]
fn form_feed_and_backspace_escapes_are_not_letters() {
    for escape in ["\\f", "\\b"] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"contents":[{{"uri":"u","blob":"QUJ{escape}QUJD"}}]}}}}"#
        );
        let (_dir, store) = store();
        let direct = serde_json::from_str::<Value>(&line).unwrap()["result"]["contents"][0]["blob"]
            .as_str()
            .unwrap()
            .to_owned();
        let direct = decode_blob(&direct, None, "srv", &store);
        assert!(
            direct.is_err(),
            "{escape}: the string holds a control character"
        );
        for piece in [1, 3, 1000] {
            let token = blob_at(&assemble(&line, piece), 0);
            let err = decode_blob(&token, None, "srv", &store).expect_err("invalid");
            assert!(
                matches!(err, RenderError::InvalidBase64 { .. }),
                "{escape}: {err}"
            );
        }
    }
}

#[test]
fn an_abandoned_line_forgets_its_blobs() {
    let line = read_response(json!([{"uri": "u", "blob": "QUJD"}]));
    let mut divert = Divert::default();
    let mut out = Vec::new();
    divert.feed(line.as_bytes(), &mut out);
    let token = blob_at(&out, 0);
    divert.abandon();
    let (_dir, store) = store();
    let err = decode_blob(&token, None, "srv", &store).expect_err("gone");
    assert!(err.to_string().contains("no longer held"), "{err}");
}

#[test]
fn tool_result_images_and_embedded_blobs_stay_in_the_line() {
    // `coyote mcp call` prints tool-result base64 itself, so only resources/read diverts.
    let line = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [
        {"type": "image", "mimeType": "image/png", "data": STANDARD.encode(png())},
        {"type": "resource", "resource": {"uri": "r", "blob": STANDARD.encode(png())}},
    ]}})
    .to_string();
    assert_eq!(assemble(&line, 1000), line.as_bytes());
}
