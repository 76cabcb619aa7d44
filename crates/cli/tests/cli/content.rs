//! The content policy end-to-end against the fake server binary over stdio: binaries are spilled (0600,
//! sha256 of the decoded bytes), oversized tool results come back page by page through their
//! handle, big blobs pass the raised transport limit and bigger ones fail at once, and an
//! off-spec content block does not hide its neighbours.

use std::os::unix::fs::PermissionsExt;

use coyote_test_support::{
    PNG_BYTES, ResourceBody, Scenario, ToolBehavior, big_text, generated_blob,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::common::Home;

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[test]
fn png_resource_is_spilled_0600_with_the_decoded_sha256() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .resource("fake://logo.png", "logo", ResourceBody::Png)
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let body = home.json(&["mcp", "read", "fake", "fake://logo.png"]);
    assert_eq!(body["spilled"], true, "{body:#}");
    assert_eq!(body["sniffed"], false);
    assert_eq!(body["sha256"], sha256_hex(PNG_BYTES));
    let path = std::path::PathBuf::from(body["path"].as_str().unwrap());
    assert_eq!(path.extension().unwrap(), "png");
    assert_eq!(std::fs::read(&path).unwrap(), PNG_BYTES);
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // Same bytes → same path (dedup) on a second read.
    let again = home.json(&["mcp", "read", "fake", "fake://logo.png"]);
    assert_eq!(again["path"], body["path"]);
}

#[test]
fn a_300_kib_tool_result_is_truncated_then_recovered_page_by_page_through_its_handle() {
    let home = Home::new();
    let len = 300 * 1024;
    let scenario = Scenario::builder()
        .tool("big", ToolBehavior::BigText { bytes: len })
        .write_to(home.path())
        .unwrap();
    // `mcp meta` runs what the model may call: meta exposure declares mcp_invoke_fake.
    let mut entry = scenario.mcp_json_entry();
    entry["expose"] = json!("meta");
    home.write_servers(json!({ "fake": entry }));
    let (code, out, err) = home.run(&["mcp", "meta", "mcp_invoke_fake", r#"{"tool": "big"}"#]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.len() < 250 * 1024,
        "the bounded result must be smaller than the raw one: {}",
        out.len()
    );
    let handle = out
        .split(|c: char| c == '"' || c.is_whitespace())
        .find(|w| w.starts_with("coyote-result://"))
        .unwrap_or_else(|| panic!("no handle in {}", &out[out.len().saturating_sub(2000)..]))
        .trim_end_matches(|c: char| !c.is_ascii_hexdigit())
        .to_owned();
    // Page through the full text with mcp_read_ on the handle, as a model would.
    let mut recovered = String::new();
    let mut offset = 0u64;
    for _ in 0..100 {
        let page: Value = {
            let args = json!({ "uri": handle, "offset": offset, "max_bytes": 100_000 }).to_string();
            let (code, out, err) = home.run(&["mcp", "meta", "mcp_read_fake", &args]);
            assert_eq!(code, 0, "{err}");
            serde_json::from_str(&out).unwrap()
        };
        recovered.push_str(page["text"].as_str().unwrap());
        match page["next_offset"].as_u64() {
            Some(next) => {
                assert!(next > offset, "paging must advance");
                offset = next;
            }
            None => break,
        }
    }
    assert_eq!(recovered, big_text(len));
}

#[test]
fn a_50_mib_blob_reads_over_stdio_and_a_60_mib_one_fails_at_once_naming_the_limit() {
    let home = Home::new();
    let mib = 1024 * 1024;
    let scenario = Scenario::builder()
        .resource(
            "fake://blob50",
            "blob50",
            ResourceBody::GeneratedBlob { bytes: 50 * mib },
        )
        .resource(
            "fake://blob60",
            "blob60",
            ResourceBody::GeneratedBlob { bytes: 60 * mib },
        )
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let body = home.json(&["mcp", "read", "fake", "fake://blob50"]);
    assert_eq!(body["spilled"], true, "{body:#}");
    assert_eq!(body["size_bytes"], json!(50 * mib));
    assert_eq!(body["sha256"], sha256_hex(&generated_blob(50 * mib)));
    let (code, out, err) = home.run(&["mcp", "read", "fake", "fake://blob60"]);
    assert_eq!(code, 1, "stdout: {out}\nstderr: {err}");
    assert!(err.contains("MiB"), "the error names the limit: {err}");
}

#[test]
fn an_off_spec_block_does_not_hide_its_valid_neighbours() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .tool("mixed", ToolBehavior::off_spec_mixed())
        .write_to(home.path())
        .unwrap();
    let mut entry = scenario.mcp_json_entry();
    entry["expose"] = json!("meta");
    home.write_servers(json!({ "fake": entry }));
    let (code, out, err) = home.run(&["mcp", "meta", "mcp_invoke_fake", r#"{"tool": "mixed"}"#]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("before off-spec"), "{out}");
    assert!(out.contains("after off-spec"), "{out}");
    let (code, out, err) = home.run(&["mcp", "call", "fake", "mixed"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("before off-spec") && out.contains("after off-spec"),
        "{out}"
    );
}

/// An entry with both `text` and `blob` is a structured error
/// through `coyote mcp read` (stdio: the typed fast path answers it) and through
/// `mcp_read_`, never the text read silently.
#[test]
fn an_entry_with_both_text_and_blob_is_an_error_not_text() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .resource(
            "fake://both",
            "both",
            ResourceBody::RawContents {
                contents: json!([{"uri": "fake://both", "text": "TEXT", "blob": "YQ=="}]),
            },
        )
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let (code, out, err) = home.run(&["mcp", "read", "fake", "fake://both"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(!out.contains("TEXT"), "{out}");
    assert!(
        err.contains("has both \"text\" and \"blob\" (exactly one is allowed)"),
        "{err}"
    );
    let (code, out, err) = home.run(&["mcp", "meta", "mcp_read_fake", r#"{"uri": "fake://both"}"#]);
    assert_eq!(code, 0, "{err}");
    let item: Value = serde_json::from_str(&out).unwrap();
    assert!(
        item["error"].as_str().unwrap().contains("has both"),
        "{item}"
    );
}

/// A resource entry coyote refuses (here a blob that is not base64) fails `mcp read` with
/// exit 1 in JSON as in text: before, `--json` exited 0 (and a `batch --json` line said
/// `"exit":0`) while the text mode exited 1.
#[test]
fn a_refused_entry_fails_mcp_read_with_and_without_json() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .resource(
            "fake://broken",
            "broken",
            ResourceBody::Blob {
                base64: "this is not base64 at all!".into(),
            },
        )
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let (code, _out, err) = home.run(&["mcp", "read", "fake", "fake://broken"]);
    assert_eq!(code, 1, "{err}");
    let (code, out, err) = home.run(&["mcp", "read", "fake", "fake://broken", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let body: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(out.contains("\"error\""), "{body:#}");
}

/// `coyote mcp call --json` passes a result's `_meta` through verbatim (docs/mcp-cli.md "JSON
/// keys"); before, it was dropped.
#[test]
fn mcp_call_json_keeps_the_results_meta() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .tool(
            "traced",
            ToolBehavior::RawResult {
                result: json!({
                    "content": [{"type": "text", "text": "ok"}],
                    "_meta": {"io.example/trace-id": "t-42"}
                }),
            },
        )
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let out = home.json(&["mcp", "call", "fake", "traced"]);
    assert_eq!(
        out["_meta"],
        json!({"io.example/trace-id": "t-42"}),
        "{out:#}"
    );
}
