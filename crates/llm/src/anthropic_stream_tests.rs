use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;

use super::*;
use crate::stream::sse_event_stream;

fn run(body: &str, cuts: &[usize]) -> Vec<Result<StreamEvent, LlmError>> {
    let bytes = body.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        pieces.push(Ok::<_, Infallible>(Bytes::copy_from_slice(
            &bytes[start..cut],
        )));
        start = cut;
    }
    let stream = sse_event_stream(
        "fake",
        futures::stream::iter(pieces),
        AnthropicStreamParser::new("fake"),
        Duration::from_secs(5),
    );
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(stream.collect())
}

const TWO_TOOLS: &str = concat!(
    "event: message_start\n",
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude\",\"stop_reason\":null,\"usage\":{\"input_tokens\":20,\"cache_read_input_tokens\":5,\"output_tokens\":1}}}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    "event: ping\ndata: {\"type\":\"ping\"}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me look \u{1f50d}\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"search\",\"input\":{}}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"q\\\": \"}}\n\n",
    "event: content_block_delta\n",
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"rust\\\"}\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    "event: content_block_start\n",
    "data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"list\",\"input\":{}}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n",
    "event: message_delta\n",
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":42}}\n\n",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
);

fn two_tools_expected() -> Vec<StreamEvent> {
    vec![
        StreamEvent::TextDelta("Let me look \u{1f50d}".into()),
        StreamEvent::ToolCallStarted {
            index: 0,
            id: "toolu_1".into(),
            name: "search".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 0,
            delta: "{\"q\": ".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 0,
            delta: "\"rust\"}".into(),
        },
        StreamEvent::ToolCallFinished {
            index: 0,
            call: ToolCall::new("toolu_1", "search", "{\"q\": \"rust\"}"),
        },
        StreamEvent::ToolCallStarted {
            index: 1,
            id: "toolu_2".into(),
            name: "list".into(),
        },
        StreamEvent::ToolCallFinished {
            index: 1,
            call: ToolCall::new("toolu_2", "list", "{}"),
        },
        StreamEvent::Usage(Usage {
            input: 25,
            output: 42,
        }),
        StreamEvent::Done {
            finish_reason: FinishReason::ToolCalls,
        },
    ]
}

#[test]
fn tool_use_stream_at_every_split_point() {
    let expected: Vec<Result<StreamEvent, LlmError>> =
        two_tools_expected().into_iter().map(Ok).collect();
    assert_eq!(run(TWO_TOOLS, &[]), expected);
    for cut in 1..TWO_TOOLS.len() {
        assert_eq!(run(TWO_TOOLS, &[cut]), expected, "split at byte {cut}");
    }
}

#[test]
fn cut_before_message_stop_is_a_protocol_error() {
    let cut_at = TWO_TOOLS.find("event: message_delta").unwrap();
    let items = run(&TWO_TOOLS[..cut_at], &[]);
    assert_eq!(
        items.last(),
        Some(&Err(LlmError::protocol(
            "fake",
            "the stream ended before message_stop"
        )))
    );
    let cut_mid = TWO_TOOLS.find("\"rust").unwrap();
    let items = run(&TWO_TOOLS[..cut_mid], &[]);
    assert!(
        matches!(items.last(), Some(Err(LlmError::Protocol { .. }))),
        "{items:?}"
    );
}

#[test]
fn error_events_are_typed() {
    let overloaded = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    assert_eq!(
        run(overloaded, &[]),
        vec![Err(LlmError::Server {
            provider: "fake".into(),
            status: 529,
            detail: "Overloaded".into()
        })]
    );
    let too_long = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}\n\n";
    assert!(matches!(
        run(too_long, &[]).as_slice(),
        [Err(LlmError::ContextLength { .. })]
    ));
}

#[test]
fn whole_message_becomes_the_same_events() {
    let body = serde_json::json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
        "content": [
            {"type": "text", "text": "Sure."},
            {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {"a": [1, 2]}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 7, "output_tokens": 8}
    });
    assert_eq!(
        parse_message("fake", body.to_string().as_bytes()).unwrap(),
        vec![
            StreamEvent::TextDelta("Sure.".into()),
            StreamEvent::ToolCallStarted {
                index: 0,
                id: "toolu_9".into(),
                name: "f".into()
            },
            StreamEvent::ToolCallFinished {
                index: 0,
                call: ToolCall::new("toolu_9", "f", "{\"a\":[1,2]}")
            },
            StreamEvent::Usage(Usage {
                input: 7,
                output: 8
            }),
            StreamEvent::Done {
                finish_reason: FinishReason::ToolCalls
            },
        ]
    );
}

#[test]
fn thinking_blocks_stream_as_reasoning_and_stay_out_of_the_message() {
    let body = concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude\",\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"let me see\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"abc\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Answer.\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    );
    let events: Vec<StreamEvent> = run(body, &[]).into_iter().map(|e| e.unwrap()).collect();
    assert_eq!(events[0], StreamEvent::ReasoningDelta("let me see".into()));
    assert_eq!(events[1], StreamEvent::TextDelta("Answer.".into()));
    let mut assembler = crate::event::ResponseAssembler::new();
    for event in &events {
        assembler.push(event);
    }
    assert_eq!(assembler.partial().text, "Answer.");
}
