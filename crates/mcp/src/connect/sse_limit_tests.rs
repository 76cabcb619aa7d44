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
