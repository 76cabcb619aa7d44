use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    NumberOrString, PingRequest, ReadResourceRequest, ReadResourceRequestParams,
};

use super::*;
use crate::convert::tool_outcome_from;

fn call(id: i64) -> ClientJsonRpcMessage {
    let params = CallToolRequestParams::new("echo".to_owned());
    JsonRpcMessage::request(
        ClientRequest::CallToolRequest(CallToolRequest::new(params)),
        NumberOrString::Number(id),
    )
}

fn read(id: i64) -> ClientJsonRpcMessage {
    let params = ReadResourceRequestParams::new("mem://a");
    JsonRpcMessage::request(
        ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params)),
        NumberOrString::Number(id),
    )
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

fn cancel(id: i64) -> ClientJsonRpcMessage {
    let params = CancelledNotificationParam::new(Some(NumberOrString::Number(id)), None);
    JsonRpcMessage::notification(ClientNotification::CancelledNotification(
        CancelledNotification::new(params),
    ))
}

fn response_line(id: i64, result: &str) -> Vec<u8> {
    // The TypeScript SDK writes `result` first and `id` last.
    format!(r#"{{"result":{result},"jsonrpc":"2.0","id":{id}}}"#).into_bytes()
}

fn slow(line: &[u8]) -> ServerJsonRpcMessage {
    serde_json::from_slice(line).expect("rmcp parses the line")
}

/// Messages compared by their JSON (rmcp's `ServerResult` has no `PartialEq`).
fn json(message: Option<ServerJsonRpcMessage>) -> Option<serde_json::Value> {
    message.map(|m| serde_json::to_value(m).expect("serializable"))
}

fn result_of(message: ServerJsonRpcMessage) -> (RequestId, ServerResult) {
    match message {
        JsonRpcMessage::Response(response) => (response.id, response.result),
        other => panic!("not a response: {other:?}"),
    }
}

/// Valid `tools/call` results: the fast path must read each, and the caller must get the
/// same outcome as through rmcp's generic parse.
const VALID_RESULTS: &[&str] = &[
    r#"{"content":[{"type":"text","text":"Echo: hi"}]}"#,
    r#"{"content":[{"type":"text","text":"a\nb \u00e9 \"q\""}],"isError":false}"#,
    r#"{"content":[],"isError":true}"#,
    r#"{"isError":true}"#,
    r#"{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}"#,
    r#"{"content":[{"type":"resource_link","uri":"file:///x","name":"x"}]}"#,
    r#"{"content":[{"type":"resource","resource":{"uri":"mem://a","text":"t"}}]}"#,
    r#"{"content":[{"type":"text","text":"{}"}],"structuredContent":{"n":1,"s":["a"]}}"#,
    r#"{"structuredContent":null}"#,
    r#"{"content":[{"type":"text","text":"x"}],"_meta":{"k":"v"},"resultType":"complete"}"#,
    r#"{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5}}]}"#,
];

/// The answer `result` to the request `sent(id)`, read by the fast path (which must take it)
/// and by rmcp's generic parse.
fn both_paths(
    sent: fn(i64) -> ClientJsonRpcMessage,
    id: i64,
    result: &str,
) -> (ServerJsonRpcMessage, ServerJsonRpcMessage) {
    let expected = ExpectedResults::default();
    expected.note_sent(&sent(id));
    let line = response_line(id, result);
    let fast = expected
        .parse(&line)
        .unwrap_or_else(|| panic!("fast path read {result}"));
    (fast, slow(&line))
}

#[test]
fn known_call_results_match_the_generic_parse() {
    for (i, result) in VALID_RESULTS.iter().enumerate() {
        let (fast, slow) = both_paths(call, i as i64 + 1, result);
        let (fast_id, fast_result) = result_of(fast);
        let (slow_id, slow_result) = result_of(slow);
        assert_eq!(fast_id, slow_id, "{result}");
        assert_eq!(
            tool_outcome_from(fast_result),
            tool_outcome_from(slow_result),
            "{result}"
        );
    }
}

/// Valid `resources/read` results: read by the fast path into exactly what rmcp's generic parse
/// gives (a `ReadResourceResult`, compared as JSON), diverted-blob tokens included.
const VALID_READ_RESULTS: &[&str] = &[
    r#"{"contents":[{"uri":"mem://a","mimeType":"text/plain","text":"a\nb \u00e9 \"q\""}]}"#,
    r#"{"contents":[{"uri":"mem://b","blob":"aGk="}]}"#,
    r#"{"contents":[{"uri":"mem://c","text":"t"},{"uri":"mem://d","mimeType":"image/png","blob":"\u0000coyote-blob:7"}]}"#,
    r#"{"contents":[]}"#,
    r#"{"contents":[{"uri":"mem://e","text":"x","_meta":{"k":"v"}}],"_meta":{"m":1}}"#,
    // Both kinds in one item: see an_item_with_both_text_and_blob_reaches_the_raw_path.
    r#"{"contents":[{"uri":"mem://g","text":null,"blob":"aGk=","mimeType":null}]}"#,
    r#"{"contents":[{"uri":"mem://h","text":"t","extra":{"x":[1,2]}}],"extra":true}"#,
    r#"{"resultType":"complete","ttlMs":5000,"cacheScope":"public","contents":[{"uri":"mem://i","text":"t"}]}"#,
    r#"{"contents":[{"\u0075ri":"mem://j","te\u0078t":"escaped keys"}]}"#,
];

#[test]
fn known_read_results_match_the_generic_parse() {
    for (i, result) in VALID_READ_RESULTS.iter().enumerate() {
        let (fast, slow) = both_paths(read, i as i64 + 1, result);
        assert!(
            matches!(&fast, JsonRpcMessage::Response(r) if matches!(r.result, ServerResult::ReadResourceResult(_))),
            "{result}"
        );
        assert!(
            matches!(&slow, JsonRpcMessage::Response(r) if matches!(r.result, ServerResult::ReadResourceResult(_))),
            "the generic parse reads {result} as a ReadResourceResult too"
        );
        assert_eq!(json(Some(fast)), json(Some(slow)), "{result}");
    }
}

/// A `resources/read` answer with an item that is neither text nor blob (or both) is left to
/// the generic parse and the per-item raw path.
#[test]
fn off_spec_read_results_fall_back() {
    for result in [
        r#"{"contents":[{"uri":"mem://a"}]}"#,
        r#"{"contents":[{"uri":"mem://a","text":"t"},{"uri":"mem://b","text":7}]}"#,
        r#"{"contents":{"uri":"mem://a","text":"t"}}"#,
        r#"{}"#,
        r#"{"contents":[],"contents":[{"uri":"mem://a","text":"t"}]}"#,
        r#"{"contents":[{"uri":"mem://a","text":"t","text":"u"}]}"#,
        r#"{"contents":[{"text":"no uri"}]}"#,
    ] {
        let expected = ExpectedResults::default();
        expected.note_sent(&read(9));
        assert!(
            expected.parse(&response_line(9, result)).is_none(),
            "{result}"
        );
    }
}

/// Off-spec results and non-results fall back to the generic parse, which keeps the
/// valid neighbours of a bad item.
#[test]
fn off_spec_results_fall_back() {
    let off_spec = [
        r#"{"content":[{"type":"resource_link","uri":"file:///x"}]}"#,
        r#"{"content":[{"type":"video","url":"x"}]}"#,
        r#"{"content":[{"type":"image","data":"aGk="}]}"#,
        r#"{}"#,
        r#"{"resultType":"input_required","inputRequests":{}}"#,
        r#"[1,2]"#,
    ];
    for result in off_spec {
        let expected = ExpectedResults::default();
        expected.note_sent(&call(7));
        assert!(
            expected.parse(&response_line(7, result)).is_none(),
            "{result}"
        );
    }
}

#[test]
fn only_exact_success_responses_of_known_ids_take_the_fast_path() {
    let expected = ExpectedResults::default();
    expected.note_sent(&call(1));
    expected.note_sent(&ping(2));
    let echo = r#"{"content":[{"type":"text","text":"hi"}]}"#;
    let lines = [
        // an id nobody asked a tools/call with
        response_line(3, echo),
        // a ping's answer is not a tools/call result
        response_line(2, r#"{}"#),
        // an error answer
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#.to_vec(),
        // both result and error
        br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]},"error":{"code":1,"message":"x"}}"#
            .to_vec(),
        // a server request reusing the id
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec(),
        // a wrong version
        br#"{"jsonrpc":"1.0","id":1,"result":{"content":[]}}"#.to_vec(),
        // the id as a string is left to rmcp's own matching
        format!(r#"{{"jsonrpc":"2.0","id":"1","result":{echo}}}"#).into_bytes(),
    ];
    for line in lines {
        let shown = String::from_utf8_lossy(&line).into_owned();
        assert!(expected.parse(&line).is_none(), "{shown}");
    }
    // The tools/call entry survived all of that and is taken by its answer, once.
    let line = response_line(1, echo);
    assert_eq!(json(expected.parse(&line)), json(Some(slow(&line))));
    assert!(expected.parse(&line).is_none());
}

#[test]
fn a_cancelled_request_is_forgotten() {
    let expected = ExpectedResults::default();
    expected.note_sent(&call(5));
    expected.note_sent(&cancel(5));
    let line = response_line(5, r#"{"content":[]}"#);
    assert!(expected.parse(&line).is_none());
}

#[test]
fn the_map_stays_bounded() {
    let expected = ExpectedResults::default();
    for id in 0..(MAX_EXPECTED as i64 + 10) {
        expected.note_sent(&call(id));
    }
    assert!(expected.lock().len() <= MAX_EXPECTED);
    // The newest entry is still there.
    let last = MAX_EXPECTED as i64 + 9;
    let line = response_line(last, r#"{"content":[]}"#);
    assert_eq!(json(expected.parse(&line)), json(Some(slow(&line))));
}

/// An item with both `text` and `blob` is reported, not read as text, on the fast path and on
/// the generic one: both hand the raw result to the per-item raw conversion.
#[test]
fn an_item_with_both_text_and_blob_reaches_the_raw_path_on_both_parses() {
    let result = r#"{"contents":[{"uri":"mem://a","text":"t","blob":"YQ=="},{"uri":"mem://b","text":"fine"}]}"#;
    let line = response_line(4, result);
    let expected = ExpectedResults::default();
    expected.note_sent(&read(4));
    let fast = expected.parse(&line).expect("the fast path answers");
    // The generic parse alone would have read the first item as text.
    let generic = slow(&line);
    assert!(matches!(
        result_of(slow(&line)).1,
        ServerResult::ReadResourceResult(_)
    ));
    let rechecked = recheck_generic(&line, generic);
    for message in [fast, rechecked] {
        let (id, result) = result_of(message);
        assert_eq!(id, NumberOrString::Number(4));
        let contents = crate::convert::resource_contents_from(result);
        assert!(
            matches!(&contents[0], crate::content::ResourceContent::Invalid { uri: Some(u), reason }
                if u == "mem://a" && reason.contains("both")),
            "{contents:?}"
        );
        assert!(
            matches!(&contents[1], crate::content::ResourceContent::Text { text, .. } if text == "fine"),
            "{contents:?}"
        );
    }
    // A plain read answer is left alone by the recheck.
    let plain = response_line(5, r#"{"contents":[{"uri":"mem://a","text":"t"}]}"#);
    assert_eq!(
        json(Some(recheck_generic(&plain, slow(&plain)))),
        json(Some(slow(&plain)))
    );
}
