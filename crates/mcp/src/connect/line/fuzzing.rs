//! Entry point of the `line_transport` fuzz target in `fuzz/` and of the replay of its
//! checked-in corpus as an ordinary test (`fuzzing_tests.rs`) — not API. One input drives every
//! parser of untrusted stdio bytes: the id scanners of oversized lines (`scan.rs`), the blob
//! divert scanner (`divert.rs`), the lone-surrogate repair (`decode.rs`) and the whole line
//! transport over a stream cut at arbitrary places. [`check`] panics when an invariant breaks.

use std::cell::RefCell;
use std::pin::Pin;
use std::task::{Context, Poll};

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, NumberOrString, PingRequest, RequestId,
};
use rmcp::transport::Transport;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

use super::LineTransport;
use super::decode::repair_lone_surrogates;
use super::divert::Divert;
use crate::connect::scan::{scan_head, scan_tail_for_id};
use crate::render::blob::received;

/// Line limit of the transport run: small, so the oversized path is reached.
const FUZZ_LIMIT: usize = 512;
/// Requests in flight before the stream is read.
const IN_FLIGHT: i64 = 3;

/// Checks every invariant on `data`: the first four bytes choose where the stream is cut, the
/// rest is what a server wrote to stdout.
pub fn check(data: &[u8]) {
    let (control, stream) = data.split_at(data.len().min(4));
    let steps: Vec<usize> = control.iter().map(|&b| usize::from(b) + 1).collect();
    let first_line = stream.split(|&b| b == b'\n').next().unwrap_or_default();
    check_scanners(first_line);
    check_divert(first_line, &cut_positions(first_line.len(), &steps));
    check_repair(first_line);
    check_transport(stream, cut_positions(stream.len(), &steps));
}

/// Cut positions in `0..len`, the piece sizes cycling through `steps` (one piece if none).
fn cut_positions(len: usize, steps: &[usize]) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut at = 0;
    for step in steps.iter().cycle() {
        at += step;
        if at >= len {
            break;
        }
        cuts.push(at);
    }
    cuts
}

/// The top-level keys of `line` when it is a JSON object with no key twice.
fn unique_object(line: &[u8]) -> Option<serde_json::Map<String, Value>> {
    struct Unique;
    impl<'de> Visitor<'de> for Unique {
        type Value = Option<serde_json::Map<String, Value>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = serde_json::Map::new();
            let mut unique = true;
            while let Some(key) = map.next_key::<String>()? {
                let value = map.next_value::<Value>()?;
                unique &= out.insert(key, value).is_none();
            }
            Ok(unique.then_some(out))
        }
    }
    let mut de = serde_json::Deserializer::from_slice(line);
    let object = de.deserialize_map(Unique).ok().flatten()?;
    de.end().ok()?;
    Some(object)
}

/// Whether no object anywhere in `line` has a key twice. serde keeps the last of duplicate
/// keys, and so does the transport (every duplicate `blob` is diverted, the parser keeps the
/// last token); document-order pairing of blobs only holds without duplicates.
fn no_duplicate_keys(line: &[u8]) -> bool {
    struct Seed;
    impl<'de> serde::de::DeserializeSeed<'de> for Seed {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<bool, D::Error> {
            de.deserialize_any(Seed)
        }
    }
    impl<'de> Visitor<'de> for Seed {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_str<E>(self, _: &str) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(true)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            let mut unique = true;
            while let Some(inner) = seq.next_element_seed(Seed)? {
                unique &= inner;
            }
            Ok(unique)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut keys = std::collections::HashSet::new();
            let mut unique = true;
            while let Some(key) = map.next_key::<String>()? {
                unique &= keys.insert(key);
                unique &= map.next_value_seed(Seed)?;
            }
            Ok(unique)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(line);
    serde::de::DeserializeSeed::deserialize(Seed, &mut de).unwrap_or(false)
}

/// The JSON `id` equals the scanned one; numbers compare by value (serde keeps `-0` as the
/// float -0.0, which is the id 0 a typed parse gives).
fn same_id(json: Option<&Value>, id: &RequestId) -> bool {
    match (json, id) {
        (Some(Value::Number(json)), NumberOrString::Number(n)) => {
            json.as_i64() == Some(*n) || json.as_f64().is_some_and(|f| f == *n as f64)
        }
        (Some(Value::String(json)), NumberOrString::String(s)) => json.as_str() == s.as_ref(),
        _ => false,
    }
}

/// An id the scanners find is the line's real top-level id, and `has_method` is true exactly
/// when the line has a top-level `method`.
fn check_scanners(line: &[u8]) {
    let head = scan_head(line);
    let tail = scan_tail_for_id(line);
    let Some(object) = unique_object(line) else {
        return;
    };
    if let Some(id) = &head.id {
        assert!(same_id(object.get("id"), id), "head scan id {id:?}");
    }
    if let Some(id) = &tail {
        assert!(same_id(object.get("id"), id), "tail scan id {id:?}");
    }
    if head.id.is_some() {
        assert_eq!(head.has_method, object.contains_key("method"), "has_method");
    }
}

/// Diverting changes nothing but `result.contents[*].blob` strings, each replaced by a token
/// whose decoded bytes equal the base64 decoder's on the unescaped string.
fn check_divert(line: &[u8], cuts: &[usize]) {
    let mut divert = Divert::default();
    let mut assembled = Vec::new();
    let mut from = 0;
    for cut in cuts.iter().copied().chain([line.len()]) {
        divert.feed(&line[from..cut], &mut assembled);
        from = cut;
    }
    let tokens = divert.tokens().to_vec();
    let cut_in_blob = divert.inside_blob();
    divert.end_line();
    let blobs: Vec<(String, Option<Vec<u8>>)> = tokens
        .iter()
        .map(|token| {
            let taken = received::take(token).and_then(Result::ok);
            (token.clone(), taken.and_then(|blob| blob.into_bytes()))
        })
        .collect();
    if blobs.is_empty() && cut_in_blob {
        assert!(
            line.starts_with(&assembled),
            "the bytes before a blob are copied"
        );
        return;
    }
    if blobs.is_empty() {
        assert_eq!(
            assembled, line,
            "a line without a diverted blob is copied verbatim"
        );
        return;
    }
    let Ok(mut original) = serde_json::from_slice::<Value>(line) else {
        return;
    };
    let Ok(diverted) = serde_json::from_slice::<Value>(&assembled) else {
        panic!("a line that parses still parses once its blobs are diverted");
    };
    if !no_duplicate_keys(line) {
        return;
    }
    let mut blobs = blobs.into_iter();
    if let Some(contents) = original
        .pointer_mut("/result/contents")
        .and_then(Value::as_array_mut)
    {
        for item in contents {
            let Some(blob) = item.get_mut("blob") else {
                continue;
            };
            let Some(text) = blob.as_str() else { continue };
            let Some((token, bytes)) = blobs.next() else {
                panic!("a blob was not diverted");
            };
            let expected = crate::render::fuzzing::decode_base64_in_slices(text.as_bytes(), &[]);
            assert_eq!(bytes, expected, "diverted blob bytes");
            *blob = Value::String(token);
        }
    }
    assert_eq!(original, diverted, "only blobs change");
}

/// The repair keeps the length, is idempotent, and never touches valid JSON.
fn check_repair(line: &[u8]) {
    let Some((repaired, count)) = repair_lone_surrogates(line) else {
        return;
    };
    assert!(count > 0);
    assert_eq!(repaired.len(), line.len());
    assert!(repair_lone_surrogates(&repaired).is_none(), "idempotent");
    assert!(
        serde_json::from_slice::<Value>(line).is_err(),
        "valid JSON has no lone surrogate to repair"
    );
}

/// A reader that hands out `data` in slices ending at `cuts`.
struct Chunked {
    data: Vec<u8>,
    cuts: Vec<usize>,
    at: usize,
}

impl AsyncRead for Chunked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let at = self.at;
        let end = self
            .cuts
            .iter()
            .copied()
            .find(|c| *c > at)
            .unwrap_or(self.data.len())
            .min(self.data.len())
            .min(at + buf.remaining());
        let piece = &self.data[at..end];
        buf.put_slice(piece);
        self.at = end;
        Poll::Ready(Ok(()))
    }
}

fn ping(id: i64) -> ClientJsonRpcMessage {
    let request = PingRequest {
        method: Default::default(),
        extensions: Default::default(),
    };
    JsonRpcMessage::request(
        ClientRequest::PingRequest(request),
        NumberOrString::Number(id),
    )
}

thread_local! {
    static RUNTIME: RefCell<Option<tokio::runtime::Runtime>> = const { RefCell::new(None) };
}

/// The transport ends, and yields at most one message per line plus one per request in flight.
fn check_transport(stream: &[u8], cuts: Vec<usize>) {
    let data = stream.to_vec();
    let lines = stream.iter().filter(|&&b| b == b'\n').count() + 1;
    RUNTIME.with(|cell| {
        let mut cell = cell.borrow_mut();
        let runtime = cell.get_or_insert_with(|| {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap_or_else(|e| panic!("a runtime for the fuzz target: {e}"))
        });
        runtime.block_on(async move {
            let reader = Chunked { data, cuts, at: 0 };
            let mut transport = LineTransport::new("fuzz", reader, tokio::io::sink(), FUZZ_LIMIT);
            for id in 1..=IN_FLIGHT {
                let _ = transport.send(ping(id)).await;
            }
            let mut received = 0usize;
            while transport.receive().await.is_some() {
                received += 1;
                assert!(
                    received <= lines + IN_FLIGHT as usize,
                    "more messages than lines and requests"
                );
            }
        });
    });
}

#[cfg(test)]
#[path = "fuzzing_tests.rs"]
mod tests;
