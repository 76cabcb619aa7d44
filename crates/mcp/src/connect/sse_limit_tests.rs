use futures::StreamExt;
use rmcp::model::JsonRpcMessage;

use super::*;

fn limited(max: usize, chunks: &[&[u8]]) -> bool {
    let mut limit = EventLimit::new(max);
    chunks.iter().all(|c| limit.feed(c))
}

#[test]
fn an_event_at_the_limit_passes_and_one_byte_more_does_not() {
    assert!(limited(10, &[b"data: abcd\n\n"]));
    assert!(!limited(10, &[b"data: abcde\n\n"]));
}

#[test]
fn a_blank_line_starts_a_new_count_whatever_the_line_ends() {
    for end in ["\n\n", "\r\r", "\r\n\r\n"] {
        let two = format!("data: abcd{end}data: abcd{end}");
        assert!(limited(10, &[two.as_bytes()]), "{end:?}");
    }
    // Lines of one event add up; a single line end is not an event end.
    assert!(!limited(10, &[b"data: ab\ndata: cd\n\n"]));
    assert!(!limited(10, &[b"data: ab\r\ndata: cd\r\n\r\n"]));
}

#[test]
fn the_count_runs_across_chunks() {
    assert!(!limited(10, &[b"data: ab", b"cde", b"\n\n"]));
    assert!(limited(
        10,
        &[b"data: ab", b"\r", b"\n\r", b"\ndata: abcd\n\n"]
    ));
}

fn chunks(list: &[&'static [u8]]) -> impl Stream<Item = Result<Bytes, reqwest::Error>> + Send {
    futures::stream::iter(
        list.iter()
            .map(|c| Ok(Bytes::from_static(c)))
            .collect::<Vec<_>>(),
    )
}

const STREAM: [&[u8]; 3] = [b"data: 1\n\n", b"data: 123456789\n\n", b"data: 2\n\n"];

#[tokio::test]
async fn an_oversized_event_answers_the_request_with_the_too_large_error() {
    let events: Vec<_> = limited_events(chunks(&STREAM), 8, Some(RequestId::Number(7)))
        .collect()
        .await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(
        events[0].as_ref().expect("first").data.as_deref(),
        Some("1")
    );
    let data = events[1]
        .as_ref()
        .expect("answer")
        .data
        .clone()
        .expect("data");
    let message: ServerJsonRpcMessage = serde_json::from_str(&data).expect("JSON-RPC");
    let JsonRpcMessage::Error(error) = message else {
        panic!("an error answer: {data}");
    };
    assert_eq!(error.id, Some(RequestId::Number(7)));
    assert_eq!(
        crate::connect::line::too_large_details(&error.error),
        Some((9, true, 8))
    );
}

#[tokio::test]
async fn an_oversized_event_on_a_stream_that_answers_nothing_is_an_error() {
    let events: Vec<_> = limited_events(chunks(&STREAM), 8, None).collect().await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        events[1]
            .as_ref()
            .is_err_and(|e| e.to_string().contains("maximum size of 8"))
    );
}

#[tokio::test]
async fn events_within_the_limit_pass_untouched() {
    let events: Vec<_> = limited_events(chunks(&STREAM), 15, Some(RequestId::Number(1)))
        .collect()
        .await;
    let data: Vec<_> = events
        .iter()
        .map(|e| e.as_ref().expect("event").data.clone().unwrap_or_default())
        .collect();
    assert_eq!(data, ["1", "123456789", "2"]);
}

/// Whether some event of `bytes` grows past `max`, counted the slow way: split into lines
/// (`\r\n`, `\n` or `\r` ends one), an empty line ends an event, an event's size is the bytes
/// of its lines.
fn reference_overflows(bytes: &[u8], max: usize) -> bool {
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' | b'\n' => {
                lines.push(&bytes[start..i]);
                if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    lines.push(&bytes[start..]);
    let mut size = 0;
    for line in lines {
        if line.is_empty() {
            size = 0;
            continue;
        }
        size += line.len();
        if size > max {
            return true;
        }
    }
    false
}

#[test]
fn the_limit_matches_a_line_by_line_count_however_the_bytes_are_cut() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(24);
    let alphabet = [b'a', b'b', b':', b' ', b'\r', b'\n'];
    for _ in 0..5_000 {
        let len = rng.random_range(0..60);
        let bytes: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.random_range(0..alphabet.len())])
            .collect();
        let max = rng.random_range(0..12);
        let mut limit = EventLimit::new(max);
        let mut fits = true;
        let mut at = 0;
        while at < bytes.len() && fits {
            let step = rng.random_range(1..=bytes.len() - at);
            fits = limit.feed(&bytes[at..at + step]);
            at += step;
        }
        assert_eq!(
            !fits,
            reference_overflows(&bytes, max),
            "max {max}, bytes {:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
}
