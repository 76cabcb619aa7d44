//! OpenAI Responses API (`api: responses`) against a scripted `/v1/responses` endpoint: a whole
//! turn (reasoning + function call → function_call_output → streamed answer) with the request
//! bodies compared whole, a rate limit retried, an error event mid-stream, a cut stream.
//!
//! Wire shapes: the streaming events and response object of
//! <https://platform.openai.com/docs/api-reference/responses-streaming> and
//! <https://platform.openai.com/docs/api-reference/responses/object>; error body and
//! `retry-after` of <https://platform.openai.com/docs/guides/error-codes>; the reasoning item
//! with `encrypted_content` of
//! <https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context>.

use std::time::Duration;

use coyote_llm::{
    ApiKey, ChatRequest, FinishReason, LlmError, Message, ProviderConfig, ProviderKind, ReplayItem,
    StreamEvent, StreamMode, ToolResult, Usage, WireApi,
};
use serde_json::{Value, json};
use wiremock::MockServer;

use super::support::{
    OPENAI_KEY, bodies, collect, events_ok, full_turn, json_response, mount_sequence, named_sse,
    provider_from, sse_response,
};

fn config(base: &str) -> ProviderConfig {
    ProviderConfig::new(ProviderKind::OpenAiCompatible, "openai", base)
        .with_api(WireApi::Responses)
        .with_api_key(ApiKey::from_env("OPENAI_API_KEY", OPENAI_KEY))
}

fn reasoning_item() -> Value {
    json!({"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Need the weather."}], "encrypted_content": "gAAAAenc=="})
}

fn call_item(status: &str, arguments: &str) -> Value {
    json!({"id": "fc_1", "type": "function_call", "status": status, "arguments": arguments, "call_id": "call_w", "name": "get_weather"})
}

/// A reasoning item, then a function call streamed in two argument deltas.
fn call_events() -> Vec<Value> {
    vec![
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
        json!({"type": "response.reasoning_summary_part.added", "sequence_number": 2, "item_id": "rs_1", "output_index": 0, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
        json!({"type": "response.reasoning_summary_text.delta", "sequence_number": 3, "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "Need the weather."}),
        json!({"type": "response.output_item.done", "sequence_number": 4, "output_index": 0, "item": reasoning_item()}),
        json!({"type": "response.output_item.added", "sequence_number": 5, "output_index": 1, "item": call_item("in_progress", "")}),
        json!({"type": "response.function_call_arguments.delta", "sequence_number": 6, "item_id": "fc_1", "output_index": 1, "delta": "{\"city\":"}),
        json!({"type": "response.function_call_arguments.delta", "sequence_number": 7, "item_id": "fc_1", "output_index": 1, "delta": "\"Paris\"}"}),
        json!({"type": "response.function_call_arguments.done", "sequence_number": 8, "item_id": "fc_1", "output_index": 1, "arguments": "{\"city\":\"Paris\"}"}),
        json!({"type": "response.output_item.done", "sequence_number": 9, "output_index": 1, "item": call_item("completed", "{\"city\":\"Paris\"}")}),
        json!({"type": "response.completed", "sequence_number": 10, "response": {"id": "resp_1", "object": "response", "status": "completed", "output": [reasoning_item(), call_item("completed", "{\"city\":\"Paris\"}")], "usage": {"input_tokens": 50, "output_tokens": 20, "total_tokens": 70}}}),
    ]
}

fn answer_events() -> Vec<Value> {
    let message = json!({"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []});
    vec![
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_2", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": message}),
        json!({"type": "response.content_part.added", "sequence_number": 2, "item_id": "msg_1", "output_index": 0, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
        json!({"type": "response.output_text.delta", "sequence_number": 3, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "It is "}),
        json!({"type": "response.output_text.delta", "sequence_number": 4, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "18\u{b0}C."}),
        json!({"type": "response.output_text.done", "sequence_number": 5, "item_id": "msg_1", "output_index": 0, "content_index": 0, "text": "It is 18\u{b0}C."}),
        json!({"type": "response.completed", "sequence_number": 6, "response": {"id": "resp_2", "status": "completed", "usage": {"input_tokens": 90, "output_tokens": 6, "total_tokens": 96}}}),
    ]
}

#[tokio::test]
async fn a_whole_turn_keeps_the_reasoning_item_and_pairs_call_and_output() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        "/v1/responses",
        vec![
            sse_response(named_sse(&call_events())),
            sse_response(named_sse(&answer_events())),
        ],
    )
    .await;
    let (provider, clock) = provider_from(config(&format!("{}/v1", server.uri())));
    let (first, second, _) = full_turn(provider.as_ref(), "gpt-test", |call| {
        ToolResult::success(call.id.clone(), "18\u{b0}C")
    })
    .await;
    assert_eq!(
        first.message.tool_calls,
        vec![coyote_llm::ToolCall::new(
            "call_w",
            "get_weather",
            "{\"city\":\"Paris\"}"
        )]
    );
    assert_eq!(
        first.message.replay,
        vec![ReplayItem {
            wire: "openai-responses".into(),
            item: reasoning_item()
        }]
    );
    assert_eq!(
        (first.finish_reason, first.usage),
        (
            FinishReason::ToolCalls,
            Some(Usage {
                input: 50,
                output: 20
            })
        )
    );
    assert_eq!(second.message.text, "It is 18\u{b0}C.");
    assert_eq!(second.finish_reason, FinishReason::Stop);

    let sent = bodies(&server).await;
    let tools = json!([{"type": "function", "name": "get_weather", "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, "strict": false}]);
    assert_eq!(
        sent[1],
        json!({
            "model": "gpt-test",
            "input": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Weather in Paris?"},
                reasoning_item(),
                {"type": "function_call", "call_id": "call_w", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
                {"type": "function_call_output", "call_id": "call_w", "output": "18\u{b0}C"}
            ],
            "tools": tools,
            "store": false,
            "include": ["reasoning.encrypted_content"],
            "stream": true
        })
    );
    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(
        request.headers.get("authorization").unwrap(),
        format!("Bearer {OPENAI_KEY}").as_str()
    );
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn streamed_events_arrive_in_order() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        "/v1/responses",
        vec![sse_response(named_sse(&call_events()))],
    )
    .await;
    let (provider, _) = provider_from(config(&format!("{}/v1", server.uri())));
    let request = ChatRequest::new("gpt-test", vec![Message::user("Weather?")]);
    let (events, _) = events_ok(provider.as_ref(), &request).await;
    let shown: Vec<StreamEvent> = events
        .into_iter()
        .filter(|e| !matches!(e, StreamEvent::Replay(_)))
        .collect();
    assert_eq!(
        shown,
        vec![
            StreamEvent::ReasoningDelta("Need the weather.".into()),
            StreamEvent::ToolCallStarted {
                index: 0,
                id: "call_w".into(),
                name: "get_weather".into()
            },
            StreamEvent::ToolCallArgumentsDelta {
                index: 0,
                delta: "{\"city\":".into()
            },
            StreamEvent::ToolCallArgumentsDelta {
                index: 0,
                delta: "\"Paris\"}".into()
            },
            StreamEvent::ToolCallFinished {
                index: 0,
                call: coyote_llm::ToolCall::new("call_w", "get_weather", "{\"city\":\"Paris\"}")
            },
            StreamEvent::Usage(Usage {
                input: 50,
                output: 20
            }),
            StreamEvent::Done {
                finish_reason: FinishReason::ToolCalls
            },
        ]
    );
}

#[tokio::test]
async fn a_rate_limit_is_retried_after_the_wait_it_names() {
    let server = MockServer::start().await;
    let limited = json_response(
        429,
        json!({"error": {"message": "Rate limit reached for gpt-test on requests per min (RPM): Limit 3, Used 3, Requested 1.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}),
    )
    .insert_header("retry-after", "2")
    .insert_header("x-ratelimit-remaining-requests", "0")
    .insert_header("x-ratelimit-reset-requests", "2s");
    mount_sequence(
        &server,
        "/v1/responses",
        vec![limited, sse_response(named_sse(&answer_events()))],
    )
    .await;
    let (provider, clock) = provider_from(config(&format!("{}/v1", server.uri())));
    let request = ChatRequest::new("gpt-test", vec![Message::user("hi")]);
    let (_, response) = events_ok(provider.as_ref(), &request).await;
    assert_eq!(response.message.text, "It is 18\u{b0}C.");
    assert_eq!(clock.sleeps(), vec![Duration::from_secs(2)]);
    assert_eq!(bodies(&server).await.len(), 2);
}

#[tokio::test]
async fn a_failed_response_mid_stream_is_a_typed_error_and_is_not_retried() {
    let server = MockServer::start().await;
    let events = vec![
        answer_events()[0].clone(),
        json!({"type": "response.failed", "sequence_number": 1, "response": {"id": "resp_3", "status": "failed", "error": {"code": "server_error", "message": "The model failed to generate a response."}}}),
    ];
    mount_sequence(
        &server,
        "/v1/responses",
        vec![sse_response(named_sse(&events))],
    )
    .await;
    let (provider, clock) = provider_from(config(&format!("{}/v1", server.uri())));
    let request = ChatRequest::new("gpt-test", vec![Message::user("hi")]);
    let items = collect(provider.as_ref(), &request).await.unwrap();
    assert_eq!(
        items,
        vec![Err(LlmError::Server {
            provider: "openai".into(),
            status: 500,
            detail: "The model failed to generate a response.".into()
        })]
    );
    assert_eq!(clock.sleeps(), vec![]);
    assert_eq!(bodies(&server).await.len(), 1);
}

#[tokio::test]
async fn a_stream_without_response_completed_is_cut() {
    let server = MockServer::start().await;
    let events = answer_events();
    mount_sequence(
        &server,
        "/v1/responses",
        vec![sse_response(named_sse(&events[..4]))],
    )
    .await;
    let (provider, _) = provider_from(config(&format!("{}/v1", server.uri())));
    let request = ChatRequest::new("gpt-test", vec![Message::user("hi")]);
    let items = collect(provider.as_ref(), &request).await.unwrap();
    assert!(
        matches!(items.last(), Some(Err(LlmError::Protocol { .. }))),
        "{items:?}"
    );
}

#[tokio::test]
async fn whole_mode_reads_the_response_object() {
    let server = MockServer::start().await;
    let response = json!({
        "id": "resp_4", "object": "response", "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [
            reasoning_item(),
            {"id": "msg_4", "type": "message", "role": "assistant", "status": "incomplete",
             "content": [{"type": "output_text", "text": "It is", "annotations": []}]}
        ],
        "usage": {"input_tokens": 9, "output_tokens": 16}
    });
    mount_sequence(&server, "/v1/responses", vec![json_response(200, response)]).await;
    let (provider, _) = provider_from(config(&format!("{}/v1", server.uri())));
    let request = ChatRequest::new("gpt-test", vec![Message::user("hi")])
        .with_stream(StreamMode::Whole)
        .with_max_tokens(16);
    let answer = provider.complete(&request).await.unwrap();
    assert_eq!(answer.message.text, "It is");
    assert_eq!(answer.finish_reason, FinishReason::Length);
    assert_eq!(answer.message.replay.len(), 1);
    let sent = &bodies(&server).await[0];
    assert_eq!(
        (&sent["stream"], &sent["max_output_tokens"]),
        (&json!(false), &json!(16))
    );
}
