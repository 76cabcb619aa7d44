use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::spill::{SpillEntry, evict_oldest};
use super::*;
use crate::content::{ContentItem, ResourceContent, ToolCallOutcome};
use crate::meta::MetaKind;

// ---------------------------------------------------------------- text paging

fn pages(text: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut offset = 0;
    loop {
        let page = page_text(text, offset, max);
        out.push(page.text.to_string());
        match page.next_offset {
            Some(next) => {
                assert!(next > offset, "paging must advance");
                offset = next;
            }
            None => return out,
        }
    }
}

#[test]
fn ascii_paging_covers_the_text_exactly() {
    let text = "abcdefghij";
    assert_eq!(pages(text, 4), ["abcd", "efgh", "ij"]);
    assert_eq!(
        page_text(text, 4, 4),
        TextPage {
            text: "efgh",
            offset: 4,
            total_bytes: 10,
            next_offset: Some(8)
        }
    );
    assert_eq!(
        page_text(text, 8, 100),
        TextPage {
            text: "ij",
            offset: 8,
            total_bytes: 10,
            next_offset: None
        }
    );
}

#[test]
fn offsets_past_the_end_give_an_empty_final_page() {
    for offset in [10, 11, usize::MAX] {
        assert_eq!(
            page_text("abcdefghij", offset, 4),
            TextPage {
                text: "",
                offset: 10,
                total_bytes: 10,
                next_offset: None
            }
        );
    }
    assert_eq!(
        page_text("", 0, 4),
        TextPage {
            text: "",
            offset: 0,
            total_bytes: 0,
            next_offset: None
        }
    );
}

#[test]
fn multibyte_boundaries_are_never_split() {
    // 2-byte é, 3-byte €, 4-byte 😀
    for ch in ["é", "€", "😀"] {
        let w = ch.len();
        let text = ch.repeat(5);
        for max in 1..=(3 * w) {
            let got = pages(&text, max);
            assert_eq!(got.concat(), text, "{ch} max {max}");
            for page in &got {
                // Whole code points only, at least one per page.
                assert!(
                    !page.is_empty() && page.len() % w == 0,
                    "{ch} max {max}: {page:?}"
                );
                let cap = max.max(w) / w * w;
                assert!(page.len() <= cap, "{ch} max {max}: {page:?}");
            }
        }
        // An offset inside a code point rounds forward to the next one.
        for inside in 1..w {
            let page = page_text(&text, inside, 100);
            assert_eq!(page.offset, w);
            assert_eq!(page.text, ch.repeat(4));
        }
        // The end rounds back: max one byte short of two code points gives one.
        let page = page_text(&text, 0, 2 * w - 1);
        assert_eq!((page.text, page.next_offset), (ch, Some(w)));
    }
}

#[test]
fn mixed_width_text_round_trips_at_every_page_size() {
    let text = "a é € 😀 z\nµ漢字🎉 end";
    for max in 1..=text.len() + 1 {
        assert_eq!(pages(text, max).concat(), text, "max {max}");
    }
}

#[test]
fn max_bytes_is_clamped() {
    let text = "x".repeat(MAX_BYTES_CLAMP + 10);
    let page = page_text(&text, 0, usize::MAX);
    assert_eq!(
        (page.text.len(), page.next_offset),
        (MAX_BYTES_CLAMP, Some(MAX_BYTES_CLAMP))
    );
    assert_eq!(page_text(&text, 0, 0).text, "x");
    assert_eq!(
        ReadOptions::default()
            .with_max_bytes(10_000_000)
            .max_bytes(),
        MAX_BYTES_CLAMP
    );
    assert_eq!(ReadOptions::default().with_max_bytes(0).max_bytes(), 1);
    assert_eq!(ReadOptions::default().max_bytes(), DEFAULT_MAX_BYTES);
}

// ---------------------------------------------------------------- pattern

const LOG: &str = "\
one
two ERROR a
three
four
five
six
seven ERROR b
eight
nine
ten
eleven
twelve ERROR c";

#[test]
fn pattern_output_has_rg_format() {
    let filter = LineFilter::new("ERROR").unwrap();
    assert_eq!(
        filter.filter(LOG),
        "\
1-one
2:two ERROR a
3-three
4-four
5-five
6-six
7:seven ERROR b
8-eight
9-nine
10-ten
11-eleven
12:twelve ERROR c
"
    );
}

#[test]
fn adjacent_groups_merge_and_context_matches_print_as_matches() {
    let filter = LineFilter::new("^(a|c)$").unwrap();
    assert_eq!(
        filter.filter("a\nb\nc\nd\ne\nf\ng\nh"),
        "1:a\n2-b\n3:c\n4-d\n5-e\n"
    );
    let gap = LineFilter::new("^(a|h)$").unwrap();
    assert_eq!(
        gap.filter("a\nb\nc\nd\ne\nf\ng\nh\n"),
        "1:a\n2-b\n3-c\n--\n6-f\n7-g\n8:h\n"
    );
    let none = LineFilter::new("zzz").unwrap();
    assert_eq!(none.filter(LOG), "");
    assert_eq!(none.filter(""), "");
}

#[test]
fn a_match_across_a_newline_does_not_count() {
    // `\s` could span the newline on the whole buffer; ripgrep matches per line.
    let filter = LineFilter::new(r"a\sb").unwrap();
    assert_eq!(filter.filter("xa\nb\nqa bq"), "1-xa\n2-b\n3:qa bq\n");
}

#[test]
fn invalid_pattern_is_a_teaching_error() {
    let err = ReadOptions::default().with_pattern("ERROR(").unwrap_err();
    assert!(matches!(err, RenderError::InvalidPattern { .. }));
    let msg = err.to_string();
    assert!(
        msg.starts_with("invalid pattern \"ERROR(\": regex parse error"),
        "{msg}"
    );
    assert!(msg.contains("unclosed group"), "{msg}");
    assert!(msg.contains("escape special characters"), "{msg}");
}

#[test]
fn pattern_is_applied_before_paging() {
    let options = ReadOptions::default()
        .with_pattern("ERROR")
        .unwrap()
        .with_max_bytes(40);
    let filtered = LineFilter::new("ERROR").unwrap().filter(LOG);
    let first = render_text("file:///log", Some("text/plain"), LOG, &options);
    assert_eq!(first.total_bytes, filtered.len());
    assert_eq!(first.pattern.as_deref(), Some("ERROR"));
    assert!(first.truncated);
    let mut all = first.text.clone();
    let mut next = first.next_offset;
    while let Some(offset) = next {
        let page = render_text(
            "file:///log",
            None,
            LOG,
            &options.clone().with_offset(offset as u64),
        );
        all.push_str(&page.text);
        next = page.next_offset;
    }
    assert_eq!(all, filtered);
}

/// ripgrep as the oracle: identical output for a set of patterns over tricky inputs.
#[test]
#[expect(
    clippy::print_stderr,
    reason = "the skip note is for the person reading the test output"
)]
fn pattern_matches_ripgrep() {
    let Some(rg) = rg_binary() else {
        eprintln!(
            "note: `rg` not installed; skipping the ripgrep oracle test (scripts/test installs it)"
        );
        return;
    };
    let inputs = [
        LOG.to_string(),
        format!("{LOG}\n"),
        "a\n\nb\n\n\nc\r\nERROR\r\n".to_string(),
        "x\n".repeat(3) + "ERROR\n" + &"y\n".repeat(5) + "ERROR end",
        "ERROR\nERROR\nno\nno\nno\nno\nno\nERROR".to_string(),
        "é ERROR ü\n漢字\nx\n😀 ERROR\n".to_string(),
        "\n\n\n".to_string(),
        "".to_string(),
    ];
    let patterns = [
        "ERROR",
        "^$",
        "^",
        "$",
        "R$",
        "x|y",
        r"\bend\b",
        "(?i)error",
        r"a\sb",
        "é|😀",
        ".*",
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, input) in inputs.iter().enumerate() {
        let path = dir.path().join(format!("in{i}.txt"));
        std::fs::write(&path, input).unwrap();
        for pattern in patterns {
            let expected = run_rg(&rg, pattern, &path);
            let got = LineFilter::new(pattern).unwrap().filter(input);
            assert_eq!(got, expected, "pattern {pattern:?} input {input:?}");
        }
    }
}

fn rg_binary() -> Option<std::path::PathBuf> {
    std::process::Command::new("rg")
        .arg("--version")
        .output()
        .ok()?;
    Some("rg".into())
}

fn run_rg(rg: &Path, pattern: &str, path: &Path) -> String {
    let out = std::process::Command::new(rg)
        .args([
            "--no-config",
            "-n",
            "-C2",
            "--color=never",
            "--no-heading",
            "-e",
            pattern,
        ])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

// ---------------------------------------------------------------- blobs and spill

fn store() -> (tempfile::TempDir, SpillStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SpillStore::new(dir.path().join("mcp-resources"));
    (dir, store)
}

/// A tiny but real PNG header + data: not UTF-8 (0x89 first byte).
fn png_bytes() -> Vec<u8> {
    let mut v = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    v.extend((0..=255u8).cycle().take(5000));
    v
}

#[test]
fn utf8_blob_is_sniffed_as_text() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "srv",
        spill: &store,
        read_function: &MetaKind::Read.function_name("srv"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let contents = vec![ResourceContent::Blob {
        uri: "test://b".into(),
        mime_type: Some("application/octet-stream".into()),
        blob_base64: STANDARD.encode("héllo\nworld"),
    }];
    let out = render_resource_contents(contents, &ReadOptions::default(), &ctx);
    assert_eq!(
        out,
        json!({
            "uri": "test://b",
            "mime_type": "application/octet-stream",
            "text": "héllo\nworld",
            "truncated": false,
            "total_bytes": 12,
            "next_offset": null,
            "sniffed": true
        })
    );
    assert!(!store.root().exists(), "text is never spilled");
}

#[test]
fn png_blob_is_spilled_0600_with_its_sha256() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "my server/..",
        spill: &store,
        read_function: &MetaKind::Read.function_name("my server/.."),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let bytes = png_bytes();
    let sha = hex::encode(Sha256::digest(&bytes));
    let contents = vec![ResourceContent::Blob {
        uri: "test://img".into(),
        mime_type: Some("image/png".into()),
        blob_base64: STANDARD.encode(&bytes),
    }];
    let out = render_resource_contents(contents, &ReadOptions::default(), &ctx);
    let path = store.root().join("my_server___").join(format!("{sha}.png"));
    assert_eq!(
        out,
        json!({
            "spilled": true,
            "path": path.display().to_string(),
            "uri": "test://img",
            "mime_type": "image/png",
            "sniffed": false,
            "size_bytes": bytes.len(),
            "sha256": sha
        })
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    // No temp files are left behind.
    let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [format!("{sha}.png")]);
}

#[test]
fn base64_with_line_breaks_and_no_padding_decodes() {
    let (_dir, store) = store();
    let bytes = png_bytes();
    let encoded = STANDARD.encode(&bytes);
    let wrapped: String = encoded
        .trim_end_matches('=')
        .as_bytes()
        .chunks(76)
        .map(|c| format!("{}\r\n", std::str::from_utf8(c).unwrap()))
        .collect();
    let DecodedBlob::Spilled(file) = decode_blob(&wrapped, None, "s", &store).unwrap() else {
        panic!("binary must spill")
    };
    assert_eq!(std::fs::read(&file.path).unwrap(), bytes);
    assert!(file.path.extension().unwrap() == "bin");
}

#[test]
fn large_blobs_cross_chunk_boundaries_intact() {
    let (_dir, store) = store();
    // Multi-chunk text with multibyte chars on chunk edges, and multi-chunk binary.
    let text = "ab€😀".repeat(60_000);
    let DecodedBlob::Text(got) = decode_blob(&STANDARD.encode(&text), None, "s", &store).unwrap()
    else {
        panic!("text")
    };
    assert_eq!(got, text);
    let mut binary = text.clone().into_bytes();
    binary.push(0xff);
    let DecodedBlob::Spilled(file) =
        decode_blob(&STANDARD.encode(&binary), None, "s", &store).unwrap()
    else {
        panic!("binary")
    };
    assert_eq!(std::fs::read(&file.path).unwrap(), binary);
    assert_eq!(file.sha256, hex::encode(Sha256::digest(&binary)));
}

#[test]
fn invalid_base64_is_an_error_item_not_a_panic() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let contents = vec![ResourceContent::Blob {
        uri: "u".into(),
        mime_type: None,
        blob_base64: "@@@@".into(),
    }];
    let out = render_resource_contents(contents, &ReadOptions::default(), &ctx);
    assert_eq!(out["uri"], "u");
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid base64 in blob"),
        "{out}"
    );
}

#[test]
fn the_50_mib_ceiling_is_enforced_and_named() {
    let (_dir, store) = store();
    // One group past the ceiling: rejected from the length alone, before decoding.
    let groups = MAX_BLOB_DECODED_BYTES / 3 + 2;
    let b64 = "AAAA".repeat(groups);
    let err = decode_blob(&b64, None, "s", &store).unwrap_err();
    assert!(matches!(err, RenderError::BlobTooLarge { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("52428800") && msg.contains("MAX_BLOB_DECODED_BYTES"),
        "{msg}"
    );
    assert!(!store.root().exists());
}

#[test]
fn a_blob_of_exactly_the_ceiling_is_accepted() {
    let (_dir, store) = store();
    let bytes = vec![0xffu8; MAX_BLOB_DECODED_BYTES];
    let DecodedBlob::Spilled(file) =
        decode_blob(&STANDARD.encode(&bytes), None, "s", &store).unwrap()
    else {
        panic!("binary")
    };
    assert_eq!(file.size_bytes, MAX_BLOB_DECODED_BYTES as u64);
}

#[test]
fn same_bytes_same_path() {
    let (_dir, store) = store();
    let bytes = png_bytes();
    let a = store.put_bytes("s", &bytes, "png").unwrap();
    let b = store.put_bytes("s", &bytes, "png").unwrap();
    assert_eq!(a, b);
    let count = std::fs::read_dir(store.server_dir("s")).unwrap().count();
    assert_eq!(count, 1);
}

#[test]
fn crafted_mimes_fall_back_to_bin_and_stay_inside_the_store() {
    let (_dir, store) = store();
    let long = "a".repeat(200);
    let crafted = [
        "../../x",
        "text/..",
        "image/png;x=/",
        "image/png; charset=x",
        "imäge/png",
        "image/p\u{202e}ng",
        long.as_str(),
        "",
        "/",
        "image/",
    ];
    for (i, mime) in crafted.iter().enumerate() {
        assert_eq!(extension_for_mime(Some(mime)), "bin", "{mime:?}");
        let mut bytes = png_bytes();
        bytes.push(i as u8);
        let DecodedBlob::Spilled(file) =
            decode_blob(&STANDARD.encode(&bytes), Some(mime), "../../etc", &store).unwrap()
        else {
            panic!("binary")
        };
        assert_eq!(
            file.path.parent().unwrap(),
            store.root().join("______etc"),
            "{mime:?}"
        );
        assert_eq!(file.path.extension().unwrap(), "bin");
    }
    assert_eq!(extension_for_mime(Some(" Image/PNG ")), "png");
    assert_eq!(extension_for_mime(None), "bin");
    assert_eq!(sanitise_server(""), "_");
}

#[test]
fn every_allow_listed_extension_is_safe() {
    for mime in [
        "image/png",
        "image/jpeg",
        "audio/wav",
        "application/pdf",
        "font/woff2",
        "image/svg+xml",
    ] {
        let ext = extension_for_mime(Some(mime));
        assert!(spill::is_safe_ext(ext) && ext != "bin", "{mime} → {ext}");
    }
}

#[test]
fn eviction_removes_oldest_across_servers_and_ignores_vanished_files() {
    let (_dir, store) = store();
    let store = store.with_eviction_limit(2500);
    let a = store.put_bytes("a", &[1u8; 1000], "bin").unwrap();
    set_age(&a.path, 300);
    let b = store.put_bytes("b", &[2u8; 1000], "bin").unwrap();
    set_age(&b.path, 200);
    // Third write brings the tree to 3000 > 2500: the oldest (server a) goes.
    let c = store.put_bytes("c", &[3u8; 1000], "bin").unwrap();
    assert!(!a.path.exists());
    assert!(b.path.exists() && c.path.exists());

    // A concurrent process already unlinked the oldest entry: eviction carries on.
    let now = std::time::SystemTime::now();
    let gone = SpillEntry {
        path: store.root().join("x/gone.bin"),
        size: 1000,
        modified: now - secs(900),
    };
    let b_entry = SpillEntry {
        path: b.path.clone(),
        size: 1000,
        modified: now - secs(200),
    };
    let c_entry = SpillEntry {
        path: c.path.clone(),
        size: 1000,
        modified: now,
    };
    let removed = evict_oldest(vec![c_entry, gone, b_entry], 1500, &c.path);
    assert_eq!(removed, 1);
    assert!(!b.path.exists() && c.path.exists());
}

fn secs(n: u64) -> std::time::Duration {
    std::time::Duration::from_secs(n)
}

fn set_age(path: &Path, seconds: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::now() - secs(seconds))
        .unwrap();
}

// ---------------------------------------------------------------- multi-content

#[test]
fn invalid_entries_are_structured_errors_next_to_valid_ones() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let contents = vec![
        ResourceContent::Invalid {
            uri: Some("u1".into()),
            reason: "both text and blob".into(),
        },
        ResourceContent::Text {
            uri: "u2".into(),
            mime_type: None,
            text: "ok".into(),
        },
        ResourceContent::Invalid {
            uri: None,
            reason: "neither text nor blob".into(),
        },
    ];
    let out = render_resource_contents(contents, &ReadOptions::default(), &ctx);
    assert_eq!(
        out,
        json!([
            {"uri": "u1", "error": "the server sent an invalid resource content entry: both text and blob"},
            {"uri": "u2", "mime_type": null, "text": "ok", "truncated": false, "total_bytes": 2, "next_offset": null},
            {"uri": null, "error": "the server sent an invalid resource content entry: neither text nor blob"}
        ])
    );
}

#[test]
fn the_whole_response_is_capped_with_an_omitted_marker() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let contents: Vec<ResourceContent> = (0..6)
        .map(|i| ResourceContent::Text {
            uri: format!("u{i}"),
            mime_type: None,
            text: "x".repeat(100_000),
        })
        .collect();
    let out = render_resource_contents(contents, &ReadOptions::default(), &ctx);
    let items = out.as_array().unwrap();
    // 3 × ~51 KiB pages fit in 204,800 bytes; the 4th would still fit by text alone, but
    // not with its metadata: 51,200 × 4 + overhead > 204,800.
    assert_eq!(items.len(), 4, "{}", items.len());
    assert_eq!(items[3]["omitted"], 3);
    assert!(
        items[3]["note"]
            .as_str()
            .unwrap()
            .contains("204800 bytes (RESPONSE_CEILING_BYTES or the result budget)")
    );
    assert!(serialized_len(&items[..3]) <= RESPONSE_CEILING_BYTES);
    assert_eq!(items[2]["uri"], "u2");
}

// ---------------------------------------------------------------- tool results

fn outcome(content: Vec<ContentItem>) -> ToolCallOutcome {
    ToolCallOutcome {
        content,
        structured_content: None,
        is_error: false,
        schema_warning: None,
        meta: None,
        task: None,
    }
}

#[test]
fn small_tool_results_pass_unchanged() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let out = bound_tool_result(
        ToolCallOutcome {
            content: vec![ContentItem::Text {
                text: "hi".into(),
                annotations: Some(json!({"audience": ["user"]})),
            }],
            structured_content: Some(json!({"n": 1})),
            is_error: true,
            schema_warning: None,
            meta: None,
            task: None,
        },
        &ctx,
    );
    assert_eq!(
        out,
        json!({
            "content": [{"type": "text", "text": "hi", "annotations": {"audience": ["user"]}}],
            "structured_content": {"n": 1},
            "is_error": true
        })
    );
}

#[test]
fn oversized_tool_text_is_truncated_and_fully_recoverable_through_its_handle() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "srv",
        spill: &store,
        read_function: &MetaKind::Read.function_name("srv"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let text: String = (0..30_000).map(|i| format!("line {i:06} é\n")).collect();
    assert!(text.len() > 300 * 1024);
    let out = bound_tool_result(
        outcome(vec![ContentItem::Text {
            text: text.clone(),
            annotations: None,
        }]),
        &ctx,
    );
    let item = &out["content"][0];
    assert_eq!(item["truncated"], true);
    assert_eq!(item["total_bytes"], text.len());
    let first = item["text"].as_str().unwrap();
    assert!(first.len() <= TOOL_RESULT_TEXT_CEILING_BYTES && text.starts_with(first));
    let handle = item["handle"].as_str().unwrap();
    assert_eq!(
        handle,
        format!(
            "coyote-result://{}",
            hex::encode(Sha256::digest(text.as_bytes()))
        )
    );
    let note = item["note"].as_str().unwrap();
    assert!(
        note.contains("mcp_read_srv")
            && note.contains(handle)
            && note.contains("the result budget")
    );

    // Page the rest through the handle exactly as mcp_read_ would.
    let full = store.read_result_text("srv", handle).unwrap();
    let mut recovered = first.to_string();
    let mut offset = item["next_offset"].as_u64();
    while let Some(o) = offset {
        let options = ReadOptions::default()
            .with_offset(o)
            .with_max_bytes(MAX_BYTES_CLAMP as u64);
        let page = render_text(handle, None, &full, &options);
        recovered.push_str(&page.text);
        offset = page.next_offset.map(|n| n as u64);
    }
    assert_eq!(recovered, text);

    // And filter it.
    let options = ReadOptions::default()
        .with_pattern("^line 012345 ")
        .unwrap();
    let hit = render_text(handle, None, &full, &options);
    assert!(hit.text.contains("12346:line 012345 é\n"), "{}", hit.text);
}

#[test]
fn result_handles_are_validated_and_expire_cleanly() {
    let (_dir, store) = store();
    for bad in [
        "coyote-result://../../etc/passwd",
        "coyote-result://ABC",
        "file:///x",
        &format!("coyote-result://{}", "G".repeat(64)),
    ] {
        assert!(
            matches!(
                store.read_result_text("s", bad),
                Err(RenderError::BadHandle { .. })
            ),
            "{bad}"
        );
    }
    let missing = format!("coyote-result://{}", "0".repeat(64));
    let err = store.read_result_text("s", &missing).unwrap_err();
    assert!(matches!(err, RenderError::HandleExpired { .. }));
    assert!(
        err.to_string().contains("SPILL_EVICTION_LIMIT_BYTES"),
        "{err}"
    );
}

#[test]
fn tool_images_are_spilled_links_keep_uris_and_invalid_blocks_do_not_hide_neighbours() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let png = png_bytes();
    let sha = hex::encode(Sha256::digest(&png));
    let out = bound_tool_result(
        outcome(vec![
            ContentItem::Image {
                data_base64: STANDARD.encode(&png),
                mime_type: Some("image/png".into()),
            },
            ContentItem::Invalid {
                index: 1,
                reason: "unknown content type \"video\"".into(),
            },
            ContentItem::ResourceLink {
                uri: "file:///a.txt".into(),
                name: Some("a.txt".into()),
                title: None,
                description: None,
                mime_type: Some("text/plain".into()),
                size: None,
            },
            ContentItem::Resource {
                resource: ResourceContent::Text {
                    uri: "test://e".into(),
                    mime_type: None,
                    text: "embedded".into(),
                },
            },
        ]),
        &ctx,
    );
    let path = store.server_dir("s").join(format!("{sha}.png"));
    assert_eq!(
        out,
        json!({
            "content": [
                {"spilled": true, "path": path.display().to_string(), "mime_type": "image/png", "sniffed": false,
                 "size_bytes": png.len(), "sha256": sha, "type": "image"},
                {"type": "invalid", "index": 1, "error": "content block 1 is off-spec and was skipped: unknown content type \"video\""},
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "mime_type": "text/plain", "hint": "read it with mcp_read_s"},
                {"type": "resource", "uri": "test://e", "mime_type": null, "text": "embedded"}
            ],
            "is_error": false
        })
    );
    assert!(
        !out.to_string().contains(&STANDARD.encode(&png)[..40]),
        "no base64 in the output"
    );
}

#[test]
fn oversized_structured_content_is_kept_behind_a_handle() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let big = json!({"rows": vec!["0123456789"; 30_000]});
    let out = bound_tool_result(
        ToolCallOutcome {
            content: vec![],
            structured_content: Some(big.clone()),
            is_error: false,
            schema_warning: None,
            meta: None,
            task: None,
        },
        &ctx,
    );
    assert!(out.get("structured_content").is_none());
    let marker = &out["structured_content_truncated"];
    assert_eq!(marker["total_bytes"], serialized_len(&big));
    let text = store
        .read_result_text("s", marker["handle"].as_str().unwrap())
        .unwrap();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), big);
}

#[test]
fn tool_items_beyond_the_response_ceiling_are_kept_and_counted() {
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let items: Vec<ContentItem> = (0..4)
        .map(|i| ContentItem::Text {
            text: format!("{i}").repeat(150_000),
            annotations: None,
        })
        .collect();
    let out = bound_tool_result(outcome(items), &ctx);
    let content = out["content"].as_array().unwrap();
    assert_eq!(content.len(), 2);
    assert_eq!(content[1]["omitted"], 3);
    let handles = content[1]["handles"].as_array().unwrap();
    assert_eq!(handles.len(), 3);
    let third = store
        .read_result_text("s", handles[1].as_str().unwrap())
        .unwrap();
    assert_eq!(third, "2".repeat(150_000));
}

/// An image a tool also puts in `structuredContent` (server-filesystem's `read_media_file`
/// does) reaches the model once, as a spilled file: before, the structured copy carried the
/// whole base64 (40,242 of a 40,737-byte result for a 30 KB PNG).
#[test]
fn binary_strings_in_structured_content_are_spilled_and_described() {
    use base64::Engine as _;
    let (_dir, store) = store();
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend((0..30_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
    let text_b64 = base64::engine::general_purpose::STANDARD.encode("plain text ".repeat(200));
    let structured = json!({
        "content": [{"type": "image", "data": b64, "mimeType": "image/png"}],
        "preview": format!("data:image/png;base64,{b64}"),
        "encodedText": text_b64,
        "name": "photo.png",
    });
    let out = bound_tool_result(
        ToolCallOutcome {
            content: vec![ContentItem::Image {
                data_base64: b64.clone(),
                mime_type: Some("image/png".into()),
            }],
            structured_content: Some(structured),
            is_error: false,
            schema_warning: None,
            meta: None,
            task: None,
        },
        &ctx,
    );
    let text = out.to_string();
    assert!(
        !text.contains(&b64[..200]),
        "base64 reached the model: {}",
        text.len()
    );
    assert!(text.len() < 6_000, "{text}");
    let described = out["structured_content"]["content"][0]["data"]
        .as_str()
        .unwrap();
    assert!(
        described.starts_with("[binary content: image/png, 30008 bytes, saved to "),
        "{described}"
    );
    let path = described
        .split("saved to ")
        .nth(1)
        .unwrap()
        .split(" (named")
        .next()
        .unwrap();
    assert_eq!(std::fs::read(path).unwrap(), png);
    assert!(
        out["structured_content"]["preview"]
            .as_str()
            .unwrap()
            .starts_with("[binary content")
    );
    // Base64 of text and short strings are the tool's own data: unchanged.
    assert_eq!(out["structured_content"]["encodedText"], text_b64);
    assert_eq!(out["structured_content"]["name"], "photo.png");
}
