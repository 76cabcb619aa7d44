use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::*;
use crate::render::decode_blob;

fn store() -> (tempfile::TempDir, SpillStore) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SpillStore::new(dir.path().join("mcp-resources"));
    (dir, store)
}

fn receive(pieces: &[&[u8]]) -> ReceivedBlob {
    let mut rx = BlobReceiver::new();
    for piece in pieces {
        rx.push(piece);
    }
    rx.finish()
}

#[test]
fn a_token_is_taken_once_and_a_forged_one_is_just_base64() {
    let token = stash(receive(&[b"QUJD"]));
    let (_dir, store) = store();
    match decode_blob(&token, None, "s", &store) {
        Ok(DecodedBlob::Text(text)) => assert_eq!(text, "ABC"),
        other => panic!("expected text, got {other:?}"),
    }
    let again = decode_blob(&token, None, "s", &store).expect_err("taken already");
    assert!(again.to_string().contains("no longer held"), "{again}");
    let forged = format!("{TOKEN_PREFIX}0000:0");
    assert!(take(&forged).is_none(), "another nonce is not ours");
    let err = decode_blob(&forged, None, "s", &store).expect_err("not base64");
    assert!(matches!(err, RenderError::InvalidBase64 { .. }), "{err}");
}

#[test]
fn received_and_direct_decoding_agree_byte_for_byte() {
    let (_dir, store) = store();
    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i * 31 % 256) as u8).collect();
    let encoded = STANDARD.encode(&bytes);
    // Pieces that split groups of four at every offset.
    let pieces: Vec<&[u8]> = encoded.as_bytes().chunks(4093).collect();
    let token = stash(receive(&pieces));
    let DecodedBlob::Spilled(via_token) = decode_blob(&token, None, "s", &store).expect("ok")
    else {
        panic!("binary")
    };
    let DecodedBlob::Spilled(direct) = decode_blob(&encoded, None, "s", &store).expect("ok") else {
        panic!("binary")
    };
    assert_eq!(via_token, direct, "same bytes, same file (dedup)");
    assert_eq!(std::fs::read(&direct.path).expect("file"), bytes);
}

#[test]
fn unpadded_and_padded_endings_decode_and_data_after_padding_fails() {
    for (pieces, expected) in [
        (vec![&b"QQ"[..]], "A"),
        (vec![&b"QQ=="[..]], "A"),
        (vec![&b"QU"[..], &b"I"[..]], "AB"),
        (vec![&b"QUJD\n"[..], &b" QUJD"[..]], "ABCABC"),
    ] {
        let (_dir, store) = store();
        let token = stash(receive(&pieces));
        match decode_blob(&token, None, "s", &store) {
            Ok(DecodedBlob::Text(text)) => assert_eq!(text, expected),
            other => panic!("{pieces:?}: expected text, got {other:?}"),
        }
    }
    let (_dir, store) = store();
    let token = stash(receive(&[b"QQ==", b"QUJD"]));
    let err = decode_blob(&token, None, "s", &store).expect_err("after padding");
    assert!(matches!(err, RenderError::InvalidBase64 { .. }), "{err}");
}

#[test]
fn the_ceiling_is_enforced_while_receiving_and_named() {
    let group = b"AAAA".repeat(64 * 1024);
    let mut rx = BlobReceiver::new();
    let groups = MAX_BLOB_DECODED_BYTES / 3 + 2;
    let mut sent = 0;
    while sent < groups {
        let n = (groups - sent).min(group.len() / 4);
        rx.push(&group[..n * 4]);
        sent += n;
    }
    assert!(rx.bytes.is_empty(), "the bytes are freed at once");
    let (_dir, store) = store();
    let err = stash(rx.finish());
    let err = decode_blob(&err, None, "s", &store).expect_err("too large");
    assert!(matches!(err, RenderError::BlobTooLarge { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("52428800") && msg.contains("MAX_BLOB_DECODED_BYTES"),
        "{msg}"
    );
    assert!(!store.root().exists());
}

#[test]
fn the_pending_set_is_bounded_by_count_and_bytes() {
    let mut pending = Pending::new();
    let ids: Vec<u64> = (0..MAX_PENDING + 2)
        .map(|_| pending.stash(receive(&[b"QUJD"])))
        .collect();
    assert!(pending.take(ids[0]).is_none() && pending.take(ids[1]).is_none());
    assert!(pending.take(ids[2]).is_some());
    assert!(pending.take(ids[2]).is_none(), "taken once");

    let mut pending = Pending::new();
    let big = || ReceivedBlob {
        outcome: Ok(Decoded {
            held: Held::Memory(vec![0; MAX_PENDING_BYTES / 2]),
            sha256: String::new(),
            is_text: false,
        }),
        chars: 0,
    };
    let first = pending.stash(big());
    let second = pending.stash(big());
    let third = pending.stash(big());
    assert!(
        pending.take(first).is_none(),
        "beyond the bytes: oldest dropped"
    );
    assert!(pending.take(second).is_some() && pending.take(third).is_some());
}

/// A long-lived process reads blob after blob: a finished blob keeps only the bytes
/// it holds, not the address space reserved for one at the ceiling, and the reserve of a failed
/// one is freed at once — nothing a read reserved outlives it but its bytes.
#[test]
fn a_finished_blob_keeps_only_its_bytes() {
    let bytes: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 256) as u8).collect();
    let encoded = STANDARD.encode(&bytes);
    let kept = receive(&[encoded.as_bytes()])
        .into_bytes()
        .expect("decoded");
    assert_eq!(kept, bytes);
    assert!(
        kept.capacity() < bytes.len() + RESERVE_SLACK,
        "a 300 kB blob keeps {} bytes of capacity",
        kept.capacity()
    );
    let mut rx = BlobReceiver::new();
    rx.push(b"QUJD");
    assert!(
        rx.bytes.capacity() >= MAX_BLOB_DECODED_BYTES,
        "reserved once"
    );
    rx.push(b"!!!!");
    assert_eq!(rx.bytes.capacity(), 0, "a failed blob frees its reserve");
    assert!(rx.finish().into_bytes().is_none());
}

/// Bytes that are not UTF-8 from the first one on.
fn binary(len: usize) -> Vec<u8> {
    (0..len).map(|i| 0x80 | (i * 7 % 128) as u8).collect()
}

fn temps(store: &SpillStore, server: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(store.server_dir(server))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_none())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_big_binary_blob_is_written_to_the_store_while_it_arrives() {
    let (_dir, store) = store();
    let bytes = binary(3 * SPILL_FROM_BYTES + 12_345);
    let b64 = STANDARD.encode(&bytes);
    let mut rx = BlobReceiver::spilling_into(store.clone(), "srv".into());
    for piece in b64.as_bytes().chunks(64 * 1024) {
        rx.push(piece);
        assert!(
            rx.bytes.len() <= SPILL_FROM_BYTES + 64 * 1024,
            "never more than a chunk past the threshold in memory: {}",
            rx.bytes.len()
        );
    }
    assert!(rx.file.is_some(), "spilling to a temp file");
    assert!(
        rx.bytes.capacity() < SPILL_FROM_BYTES,
        "the big reservation was given back"
    );
    let received = rx.finish();
    assert_eq!(received.held_bytes(), 0, "nothing held in memory");
    assert_eq!(temps(&store, "srv").len(), 1, "one temp file while waiting");
    let Ok(DecodedBlob::Spilled(file)) = received.into_decoded(Some("image/png"), "srv", &store)
    else {
        panic!("spilled")
    };
    assert_eq!(std::fs::read(&file.path).unwrap(), bytes);
    assert_eq!(file.sha256, hex::encode(Sha256::digest(&bytes)));
    assert_eq!(file.size_bytes, bytes.len() as u64);
    assert!(
        temps(&store, "srv").is_empty(),
        "the temp file became the spilled file"
    );
}

#[test]
fn text_and_small_binaries_stay_in_memory_and_a_failed_blob_leaves_no_file() {
    let (_dir, store) = store();
    let text = "é".repeat(SPILL_FROM_BYTES);
    let mut rx = BlobReceiver::spilling_into(store.clone(), "srv".into());
    rx.push(STANDARD.encode(text.as_bytes()).as_bytes());
    assert!(rx.file.is_none(), "text is the result itself");
    match rx.finish().into_decoded(None, "srv", &store) {
        Ok(DecodedBlob::Text(got)) => assert_eq!(got, text),
        other => panic!("expected text, got {other:?}"),
    }
    let mut rx = BlobReceiver::spilling_into(store.clone(), "srv".into());
    rx.push(STANDARD.encode(binary(1000)).as_bytes());
    assert!(rx.file.is_none(), "below the threshold");

    let mut rx = BlobReceiver::spilling_into(store.clone(), "srv".into());
    rx.push(STANDARD.encode(binary(2 * SPILL_FROM_BYTES)).as_bytes());
    assert_eq!(temps(&store, "srv").len(), 1);
    rx.push(b"!!!!");
    assert!(
        matches!(
            rx.finish().into_decoded(None, "srv", &store),
            Err(RenderError::InvalidBase64 { .. })
        ),
        "invalid base64 after the spill started"
    );
    assert!(temps(&store, "srv").is_empty(), "its temp file is removed");
}
