use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;

use super::*;
use crate::event::ResponseAssembler;
use crate::stream::sse_event_stream;
use crate::types::{AssistantMessage, ChatResponse};

/// Runs `body` split at `cuts` through the real SSE plumbing and returns every item.
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
        OpenAiStreamParser::new("fake"),
        Duration::from_secs(5),
    );
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(stream.collect())
}

fn ok(items: Vec<Result<StreamEvent, LlmError>>) -> Vec<StreamEvent> {
    items.into_iter().map(|i| i.unwrap()).collect()
}

fn assemble(events: &[StreamEvent]) -> ChatResponse {
    let mut assembler = ResponseAssembler::new();
    events.iter().for_each(|e| assembler.push(e));
    assembler.finish("fake").unwrap()
}

const PARALLEL: &str = concat!(
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Chec\u{e9}\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"king\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"{\\\"tz\\\"\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\":\\\"UTC\\\"}\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    ": keep-alive\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":31,\"completion_tokens\":12,\"total_tokens\":43}}\n\n",
    "data: [DONE]\n\n",
);

fn parallel_expected() -> Vec<StreamEvent> {
    vec![
        StreamEvent::TextDelta("Chec\u{e9}".into()),
        StreamEvent::TextDelta("king".into()),
        StreamEvent::ToolCallStarted {
            index: 0,
            id: "call_a".into(),
            name: "get_weather".into(),
        },
        StreamEvent::ToolCallStarted {
            index: 1,
            id: "call_b".into(),
            name: "get_time".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 1,
            delta: "{\"tz\"".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 0,
            delta: "{\"city\":".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 1,
            delta: ":\"UTC\"}".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 0,
            delta: "\"Paris\"}".into(),
        },
        StreamEvent::ToolCallFinished {
            index: 0,
            call: ToolCall::new("call_a", "get_weather", "{\"city\":\"Paris\"}"),
        },
        StreamEvent::ToolCallFinished {
            index: 1,
            call: ToolCall::new("call_b", "get_time", "{\"tz\":\"UTC\"}"),
        },
        StreamEvent::Usage(Usage {
            input: 31,
            output: 12,
        }),
        StreamEvent::Done {
            finish_reason: FinishReason::ToolCalls,
        },
    ]
}

#[test]
fn parallel_tool_calls_at_every_split_point() {
    let expected = parallel_expected();
    assert_eq!(ok(run(PARALLEL, &[])), expected);
    for cut in 1..PARALLEL.len() {
        assert_eq!(ok(run(PARALLEL, &[cut])), expected, "split at byte {cut}");
    }
    let every_byte: Vec<usize> = (1..PARALLEL.len()).collect();
    assert_eq!(ok(run(PARALLEL, &every_byte)), expected);
}

#[test]
fn assembled_parallel_answer() {
    let response = assemble(&ok(run(PARALLEL, &[])));
    assert_eq!(
        response,
        ChatResponse {
            message: AssistantMessage {
                replay: Vec::new(),
                text: "Chec\u{e9}king".into(),
                tool_calls: vec![
                    ToolCall::new("call_a", "get_weather", "{\"city\":\"Paris\"}"),
                    ToolCall::new("call_b", "get_time", "{\"tz\":\"UTC\"}"),
                ],
            },
            usage: Some(Usage {
                input: 31,
                output: 12
            }),
            finish_reason: FinishReason::ToolCalls,
        }
    );
}

#[test]
fn cut_mid_event_is_a_protocol_error() {
    let cut = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"cont";
    let items = run(cut, &[]);
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0], Ok(StreamEvent::TextDelta("Hi".into())));
    assert!(
        matches!(&items[1], Err(LlmError::Protocol { detail, .. }) if detail.contains("not valid JSON")),
        "{items:?}"
    );
}

#[test]
fn cut_between_events_is_a_protocol_error() {
    let items = run(
        "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n",
        &[],
    );
    assert_eq!(
        items,
        vec![
            Ok(StreamEvent::TextDelta("Hi".into())),
            Err(LlmError::protocol(
                "fake",
                "the stream ended before the model finished (no finish_reason and no [DONE])"
            )),
        ]
    );
}

#[test]
fn finish_without_done_is_accepted() {
    let body =
        "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n";
    assert_eq!(
        ok(run(body, &[])),
        vec![
            StreamEvent::TextDelta("ok".into()),
            StreamEvent::Done {
                finish_reason: FinishReason::Stop
            }
        ]
    );
}

#[test]
fn server_quirks_without_index_or_id_and_object_arguments() {
    // An Ollama-style whole call without index or id, then a second call, with repeated names.
    let body = concat!(
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"a\",\"arguments\":{\"x\":1}}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"id2\",\"function\":{\"name\":\"b\",\"arguments\":\"{\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"id2\",\"function\":{\"name\":\"b\",\"arguments\":\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"x_groq\":{\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":6}}}\n\n",
        "data: [DONE]\n\n",
    );
    let response = assemble(&ok(run(body, &[])));
    assert_eq!(response.message.tool_calls.len(), 2);
    assert!(
        response.message.tool_calls[0]
            .id
            .starts_with("call_coyote_"),
        "{response:?}"
    );
    assert_eq!(
        (
            &response.message.tool_calls[0].name,
            &response.message.tool_calls[0].arguments
        ),
        (&"a".to_string(), &"{\"x\":1}".to_string())
    );
    assert_eq!(
        response.message.tool_calls[1],
        ToolCall::new("id2", "b", "{}")
    );
    assert_eq!(
        response.usage,
        Some(Usage {
            input: 5,
            output: 6
        })
    );
    assert_eq!(response.finish_reason, FinishReason::Stop);
}

#[test]
fn in_stream_error_is_typed() {
    let body = "data: {\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\",\"code\":\"context_length_exceeded\"}}\n\n";
    assert!(matches!(
        run(body, &[]).as_slice(),
        [Err(LlmError::ContextLength { .. })]
    ));
}

#[test]
fn whole_completion_becomes_the_same_events() {
    let body = serde_json::json!({
        "choices": [{
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}},
                    {"id": "c2", "type": "function", "function": {"name": "g", "arguments": ""}}
                ]
            },
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4}
    });
    let events = parse_completion("fake", body.to_string().as_bytes()).unwrap();
    assert_eq!(
        events,
        vec![
            StreamEvent::ToolCallStarted {
                index: 0,
                id: "c1".into(),
                name: "f".into()
            },
            StreamEvent::ToolCallArgumentsDelta {
                index: 0,
                delta: "{\"a\":1}".into()
            },
            StreamEvent::ToolCallStarted {
                index: 1,
                id: "c2".into(),
                name: "g".into()
            },
            StreamEvent::ToolCallFinished {
                index: 0,
                call: ToolCall::new("c1", "f", "{\"a\":1}")
            },
            StreamEvent::ToolCallFinished {
                index: 1,
                call: ToolCall::new("c2", "g", "")
            },
            StreamEvent::Usage(Usage {
                input: 3,
                output: 4
            }),
            StreamEvent::Done {
                finish_reason: FinishReason::ToolCalls
            },
        ]
    );
}

#[test]
fn reasoning_content_streams_as_reasoning_and_stays_out_of_the_message() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"hmm, \"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"so\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Yes.\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let events = ok(run(body, &[30]));
    assert_eq!(events[0], StreamEvent::ReasoningDelta("hmm, ".into()));
    assert_eq!(events[1], StreamEvent::ReasoningDelta("so".into()));
    assert_eq!(events[2], StreamEvent::TextDelta("Yes.".into()));
    assert_eq!(assemble(&events).message, AssistantMessage::text("Yes."));
}
