use rmcp::model::{
    ClientRequest, ErrorCode, JsonRpcError, NumberOrString, PingRequest, ServerResult,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use super::*;

const LIMIT: usize = 1024;

struct Pair {
    transport: LineTransport<DuplexStream, DuplexStream>,
    /// What the "server" writes (the client reads).
    server_out: DuplexStream,
    /// What the client wrote.
    server_in: BufReader<DuplexStream>,
}

fn pair(limit: usize) -> Pair {
    let (client_read, server_out) = tokio::io::duplex(1 << 16);
    let (server_in, client_write) = tokio::io::duplex(1 << 16);
    Pair {
        transport: LineTransport::new("srv", client_read, client_write, limit),
        server_out,
        server_in: BufReader::new(server_in),
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

/// Writes `line` from a task (the pipe is smaller than the big lines).
fn write_later(mut out: DuplexStream, line: Vec<u8>) -> tokio::task::JoinHandle<DuplexStream> {
    tokio::spawn(async move {
        out.write_all(&line).await.expect("write");
        out
    })
}

fn too_large(message: ServerJsonRpcMessage) -> (RequestId, String, (u64, bool, u64)) {
    match message {
        JsonRpcMessage::Error(JsonRpcError {
            id: Some(id),
            error,
            ..
        }) => {
            let details = too_large_details(&error).expect("a too-large error");
            (id, error.message.into_owned(), details)
        }
        other => panic!("expected an error response, got {other:?}"),
    }
}

fn big_line(prefix: &str, filler: usize, suffix: &str) -> Vec<u8> {
    let mut line = prefix.as_bytes().to_vec();
    line.extend(std::iter::repeat_n(b'A', filler));
    line.extend_from_slice(suffix.as_bytes());
    line.push(b'\n');
    line
}

#[tokio::test]
async fn parses_messages_in_place_and_across_read_chunks() {
    let mut p = pair(MAX_MESSAGE_BYTES);
    let text = "y".repeat(READ_BUFFER_BYTES + 1000);
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":2,"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
    );
    let mut lines = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n".to_vec();
    lines.extend_from_slice(big.as_bytes());
    lines.push(b'\n');
    let _writer = write_later(p.server_out, lines);

    let first = p.transport.receive().await.expect("first message");
    assert!(matches!(
        first,
        JsonRpcMessage::Response(r) if r.id == NumberOrString::Number(1)
            && matches!(r.result, ServerResult::EmptyResult(_))
    ));
    match p.transport.receive().await.expect("second message") {
        JsonRpcMessage::Response(r) => match r.result {
            ServerResult::CallToolResult(result) => {
                assert_eq!(
                    result.content[0].as_text().map(|t| t.text.len()),
                    Some(text.len())
                );
            }
            other => panic!("expected a tool result, got {other:?}"),
        },
        other => panic!("expected a response, got {other:?}"),
    }
}

#[tokio::test]
async fn oversized_line_with_leading_id_fails_that_request_at_once_and_the_stream_goes_on() {
    let mut p = pair(LIMIT);
    p.transport.send(ping(1)).await.expect("send");
    // Longer than the pipe, so the error is delivered before the line has been read.
    let mut lines = big_line(
        r#"{"jsonrpc":"2.0","id":1,"result":{"blob":""#,
        200_000,
        r#""}}"#,
    );
    lines.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n");
    let _writer = write_later(p.server_out, lines);

    let (id, message, (size, lower_bound, limit)) =
        too_large(p.transport.receive().await.expect("error"));
    assert_eq!(id, NumberOrString::Number(1));
    assert!(lower_bound, "delivered before the line ended");
    assert!(size > LIMIT as u64, "size {size} exceeds the limit");
    assert_eq!(limit, LIMIT as u64);
    assert_eq!(
        message,
        format!(
            "message too large: {size}+ bytes exceeds the limit of 1024 bytes (MAX_MESSAGE_BYTES)"
        )
    );
    let next = p.transport.receive().await.expect("next message");
    assert!(matches!(next, JsonRpcMessage::Response(r) if r.id == NumberOrString::Number(9)));
}

#[tokio::test]
async fn oversized_line_with_trailing_id_fails_that_request_with_the_exact_size() {
    let mut p = pair(LIMIT);
    p.transport.send(ping(3)).await.expect("send");
    p.transport.send(ping(4)).await.expect("send");
    let line = big_line(
        r#"{"result":{"blob":""#,
        5000,
        r#""},"jsonrpc":"2.0","id":3}"#,
    );
    let len = line.len() as u64 - 1;
    let _writer = write_later(p.server_out, line);

    let (id, message, details) = too_large(p.transport.receive().await.expect("error"));
    assert_eq!(id, NumberOrString::Number(3));
    assert_eq!(details, (len, false, LIMIT as u64));
    assert_eq!(
        message,
        format!(
            "message too large: {len} bytes exceeds the limit of 1024 bytes (MAX_MESSAGE_BYTES)"
        )
    );
}

#[tokio::test]
async fn oversized_line_without_a_readable_id_fails_every_request_in_flight() {
    let mut p = pair(LIMIT);
    for id in [5, 6] {
        p.transport.send(ping(id)).await.expect("send");
    }
    let line = big_line(r#"{"result":{"blob":""#, 5000, r#""}}"#);
    let _writer = write_later(p.server_out, line);

    let mut ids = Vec::new();
    for _ in 0..2 {
        let (id, _, _) = too_large(p.transport.receive().await.expect("error"));
        ids.push(id);
    }
    ids.sort_by_key(|id| id.to_string());
    assert_eq!(
        ids,
        vec![NumberOrString::Number(5), NumberOrString::Number(6)]
    );
}

#[tokio::test]
async fn oversized_server_request_is_answered_with_an_error_for_its_id() {
    let mut p = pair(LIMIT);
    let mut lines = big_line(
        r#"{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"x":""#,
        3000,
        r#""}}"#,
    );
    lines.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    let _writer = write_later(p.server_out, lines);
    // The request is not delivered; the next message is.
    let next = p.transport.receive().await.expect("next");
    assert!(matches!(next, JsonRpcMessage::Response(r) if r.id == NumberOrString::Number(1)));

    let mut reply = String::new();
    p.server_in.read_line(&mut reply).await.expect("reply");
    let reply: serde_json::Value = serde_json::from_str(&reply).expect("json");
    assert_eq!(reply["id"], "s1");
    assert_eq!(reply["error"]["code"], -32600);
}

#[tokio::test]
async fn garbage_and_blank_lines_are_skipped() {
    let mut p = pair(LIMIT);
    let lines =
        b"npm WARN something\n\n   \n\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
    let _writer = write_later(p.server_out, lines.to_vec());
    let next = p.transport.receive().await.expect("message");
    assert!(matches!(next, JsonRpcMessage::Response(r) if r.id == NumberOrString::Number(7)));
}

#[tokio::test]
async fn an_unreadable_response_fails_its_own_request() {
    let mut p = pair(LIMIT);
    p.transport.send(ping(8)).await.expect("send");
    let _writer = write_later(p.server_out, b"{\"jsonrpc\":\"2.0\",\"id\":8}\n".to_vec());
    match p.transport.receive().await.expect("message") {
        JsonRpcMessage::Error(JsonRpcError {
            id: Some(id),
            error,
            ..
        }) => {
            assert_eq!(id, NumberOrString::Number(8));
            assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        }
        other => panic!("expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn end_of_stream_ends_the_transport_and_close_ends_stdin() {
    let mut p = pair(LIMIT);
    drop(p.server_out);
    assert!(p.transport.receive().await.is_none());
    p.transport.close().await.expect("close");
    let mut rest = String::new();
    let n = p.server_in.read_line(&mut rest).await.expect("read");
    assert_eq!(n, 0, "the peer sees end of input");
}

fn expect_error_for(message: ServerJsonRpcMessage, expected: i64) -> ErrorData {
    match message {
        JsonRpcMessage::Error(JsonRpcError {
            id: Some(id),
            error,
            ..
        }) if id == NumberOrString::Number(expected) => error,
        other => panic!("expected an error for request {expected}, got {other:?}"),
    }
}

/// A reply that is not UTF-8 was dropped and its request hung until the
/// call timeout. It fails that request at once; the next reply still arrives.
#[tokio::test]
async fn a_reply_that_is_not_utf8_fails_its_request_at_once_and_the_others_keep_working() {
    for filler in [0, READ_BUFFER_BYTES] {
        let mut p = pair(MAX_MESSAGE_BYTES);
        p.transport.send(ping(1)).await.expect("send");
        p.transport.send(ping(2)).await.expect("send");
        let mut lines = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"pad":"{}","text":"a"#,
            "p".repeat(filler)
        )
        .into_bytes();
        lines.extend_from_slice(b"\xFF\xFEb\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
        let _writer = write_later(p.server_out, lines);

        let error = expect_error_for(p.transport.receive().await.expect("error"), 1);
        let problem = &error.message;
        assert!(
            problem.contains("not valid UTF-8") && problem.contains("0xff"),
            "{problem}"
        );
        let next = p.transport.receive().await.expect("next message");
        assert!(
            matches!(next, JsonRpcMessage::Response(ref r) if r.id == NumberOrString::Number(2)),
            "{next:?}"
        );
    }
}

/// Lone UTF-16 surrogates in `\u` escapes (which the TypeScript SDK
/// accepts) become U+FFFD instead of dropping the reply; a valid pair stays one character.
#[tokio::test]
async fn lone_surrogate_escapes_become_replacement_characters() {
    let mut p = pair(MAX_MESSAGE_BYTES);
    p.transport.send(ping(1)).await.expect("send");
    p.transport.send(ping(2)).await.expect("send");
    let line = concat!(
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","#,
        r#""text":"a\ud800b\udc00c\ud83d\ude00d\\ud800e\ud800"}]}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        "\n"
    );
    let _writer = write_later(p.server_out, line.as_bytes().to_vec());
    match p.transport.receive().await.expect("message") {
        JsonRpcMessage::Response(r) if r.id == NumberOrString::Number(1) => match r.result {
            ServerResult::CallToolResult(result) => assert_eq!(
                result.content[0].as_text().map(|t| t.text.as_str()),
                Some("a\u{FFFD}b\u{FFFD}c\u{1F600}d\\ud800e\u{FFFD}")
            ),
            other => panic!("expected a tool result, got {other:?}"),
        },
        other => panic!("expected a response, got {other:?}"),
    }
}
