//! Anthropic provider against a wiremock Messages endpoint: request bodies compared whole
//! (system parameter, merged tool results, tool_use inputs), streamed tool_use with
//! input_json_delta, usage, retry paths and typed errors.

use std::time::Duration;

use coyote_llm::{
    ANTHROPIC_VERSION, AssistantMessage, ChatRequest, ChatResponse, FinishReason, LlmError,
    Message, ProviderKind, StreamEvent, StreamMode, ToolCall, ToolChoice, Usage,
};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer};

use super::common::{conversation, tools};
use super::support::{
    ANTHROPIC_KEY, ChunkedServer, ConversationInvariants, Wire, anthropic_sse, bodies, collect,
    events_ok, json_response, make_provider, sse_response,
};

async fn mount(
    server: &MockServer,
    response: wiremock::ResponseTemplate,
) -> ConversationInvariants {
    let invariants = ConversationInvariants::new(Wire::Anthropic);
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", ANTHROPIC_KEY))
        .and(header("anthropic-version", ANTHROPIC_VERSION))
        .and(invariants.clone())
        .respond_with(response)
        .mount(server)
        .await;
    invariants
}

fn tool_use_events() -> Vec<Value> {
    vec![
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "usage": {"input_tokens": 300, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "ping"}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Looking it up."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Par"}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "is\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_b", "name": "get_time", "input": {}}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 57}}),
        json!({"type": "message_stop"}),
    ]
}

fn tool_use_stream_events() -> Vec<StreamEvent> {
    vec![
        StreamEvent::TextDelta("Looking it up.".into()),
        StreamEvent::ToolCallStarted {
            index: 0,
            id: "toolu_a".into(),
            name: "get_weather".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 0,
            delta: "{\"city\": \"Par".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 0,
            delta: "is\"}".into(),
        },
        StreamEvent::ToolCallFinished {
            index: 0,
            call: ToolCall::new("toolu_a", "get_weather", "{\"city\": \"Paris\"}"),
        },
        StreamEvent::ToolCallStarted {
            index: 1,
            id: "toolu_b".into(),
            name: "get_time".into(),
        },
        StreamEvent::ToolCallFinished {
            index: 1,
            call: ToolCall::new("toolu_b", "get_time", "{}"),
        },
        StreamEvent::Usage(Usage {
            input: 310,
            output: 57,
        }),
        StreamEvent::Done {
            finish_reason: FinishReason::ToolCalls,
        },
    ]
}

fn tool_use_response() -> ChatResponse {
    ChatResponse {
        message: AssistantMessage {
            replay: Vec::new(),
            text: "Looking it up.".into(),
            tool_calls: vec![
                ToolCall::new("toolu_a", "get_weather", "{\"city\": \"Paris\"}"),
                ToolCall::new("toolu_b", "get_time", "{}"),
            ],
        },
        usage: Some(Usage {
            input: 310,
            output: 57,
        }),
        finish_reason: FinishReason::ToolCalls,
    }
}

fn full_request() -> ChatRequest {
    ChatRequest::new("claude-test", conversation())
        .with_tools(tools())
        .with_temperature(0.2)
}

#[tokio::test]
async fn streams_tool_use_and_sends_the_whole_conversation() {
    let server = MockServer::start().await;
    let invariants = mount(&server, sse_response(anthropic_sse(&tool_use_events()))).await;
    let (provider, clock) = make_provider(ProviderKind::Anthropic, &server.uri());

    let (events, response) = events_ok(provider.as_ref(), &full_request()).await;
    assert_eq!(events, tool_use_stream_events());
    assert_eq!(response, tool_use_response());

    let expected_body = json!({
        "model": "claude-test",
        "max_tokens": 4096,
        "system": "You are terse.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris, and the time?"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_2", "name": "get_time", "input": {}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "18\u{b0}C"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": "cancelled by the user", "is_error": true}
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "It is 18\u{b0}C."}]},
            {"role": "user", "content": [{"type": "text", "text": "And tomorrow?"}]}
        ],
        "tools": [
            {"name": "get_weather", "description": "Weather for a city",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
            {"name": "get_time", "description": "Current time", "input_schema": {"type": "object", "properties": {}}}
        ],
        "temperature": 0.2,
        "stream": true
    });
    assert_eq!(bodies(&server).await, vec![expected_body]);
    assert_eq!(invariants.violations(), Vec::<String>::new());
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn tool_results_followed_by_user_text_share_one_user_turn() {
    let server = MockServer::start().await;
    let invariants = mount(&server, sse_response(anthropic_sse(&tool_use_events()))).await;
    let (provider, _) = make_provider(ProviderKind::Anthropic, &format!("{}/v1", server.uri()));
    let mut messages = conversation();
    messages.truncate(5);
    messages.push(Message::user("Also: Berlin?"));
    events_ok(
        provider.as_ref(),
        &ChatRequest::new("claude-test", messages).with_max_tokens(100),
    )
    .await;
    let body = &bodies(&server).await[0];
    assert_eq!(body["max_tokens"], json!(100));
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "18\u{b0}C"},
            {"type": "tool_result", "tool_use_id": "call_2", "content": "cancelled by the user", "is_error": true},
            {"type": "text", "text": "Also: Berlin?"}
        ]})
    );
    assert_eq!(invariants.violations(), Vec::<String>::new());
}

#[tokio::test]
async fn sse_split_across_tcp_writes() {
    let body = anthropic_sse(&tool_use_events()).into_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    for cut in (5..body.len()).step_by(11).chain([body.len()]) {
        pieces.push(body[start..cut].to_vec());
        start = cut;
    }
    let server = ChunkedServer::start(pieces).await;
    let (provider, _) = make_provider(ProviderKind::Anthropic, &server.base);
    let (events, response) = events_ok(provider.as_ref(), &full_request()).await;
    assert_eq!(events, tool_use_stream_events());
    assert_eq!(response, tool_use_response());
    let raw = String::from_utf8(server.request().await).unwrap();
    assert!(raw.starts_with("POST /v1/messages HTTP/1.1\r\n"), "{raw}");
}

#[tokio::test]
async fn overloaded_then_rate_limited_then_success() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(json_response(529, json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            json_response(429, json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded your rate limit"}}))
                .insert_header("retry-after", "12"),
        )
        .up_to_n_times(1)
        .with_priority(2)
        .mount(&server)
        .await;
    let invariants = ConversationInvariants::new(Wire::Anthropic);
    Mock::given(method("POST"))
        .and(invariants.clone())
        .respond_with(sse_response(anthropic_sse(&tool_use_events())))
        .with_priority(3)
        .mount(&server)
        .await;
    let (provider, clock) = make_provider(ProviderKind::Anthropic, &server.uri());
    let (_, response) = events_ok(provider.as_ref(), &full_request()).await;
    assert_eq!(response, tool_use_response());
    assert_eq!(
        clock.sleeps(),
        vec![Duration::from_secs(1), Duration::from_secs(12)]
    );
    assert_eq!(bodies(&server).await.len(), 3);
    assert_eq!(invariants.violations(), Vec::<String>::new());
}

#[tokio::test]
async fn unauthorized_is_an_auth_error() {
    let server = MockServer::start().await;
    mount(&server, json_response(401, json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}))).await;
    let (provider, _) = make_provider(ProviderKind::Anthropic, &server.uri());
    let error = provider.stream(&full_request()).await.err().unwrap();
    assert_eq!(
        error,
        LlmError::Auth {
            provider: "anthropic".into(),
            status: 401,
            detail: "invalid x-api-key".into(),
            advice: "check the key in $ANTHROPIC_API_KEY and its permissions".into(),
        }
    );
}

#[tokio::test]
async fn prompt_too_long_is_a_context_length_error() {
    let server = MockServer::start().await;
    mount(&server, json_response(400, json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 208310 tokens > 200000 maximum"}}))).await;
    let (provider, clock) = make_provider(ProviderKind::Anthropic, &server.uri());
    let error = provider.stream(&full_request()).await.err().unwrap();
    assert_eq!(
        error,
        LlmError::ContextLength {
            provider: "anthropic".into(),
            detail: "prompt is too long: 208310 tokens > 200000 maximum".into(),
        }
    );
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn stream_cut_before_message_stop_is_a_protocol_error() {
    let server = MockServer::start().await;
    let body = anthropic_sse(&tool_use_events());
    let cut = body.find("\"partial_json\":\"is").unwrap();
    mount(&server, sse_response(body[..cut].to_string())).await;
    let (provider, clock) = make_provider(ProviderKind::Anthropic, &server.uri());
    let items = collect(provider.as_ref(), &full_request()).await.unwrap();
    let (last, before) = items.split_last().unwrap();
    assert!(matches!(last, Err(LlmError::Protocol { .. })), "{last:?}");
    let before: Vec<StreamEvent> = before.iter().map(|i| i.clone().unwrap()).collect();
    assert_eq!(before, tool_use_stream_events()[..3].to_vec());
    assert_eq!(
        bodies(&server).await.len(),
        1,
        "never retried once streaming began"
    );
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn whole_mode_sends_stream_false() {
    let server = MockServer::start().await;
    let message = json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": "Hello."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 11, "output_tokens": 3}
    });
    mount(&server, json_response(200, message)).await;
    let (provider, _) = make_provider(ProviderKind::Anthropic, &server.uri());
    let request = ChatRequest::new(
        "claude-test",
        vec![Message::system("Be kind."), Message::user("Hi")],
    )
    .with_stream(StreamMode::Whole);
    assert_eq!(
        provider.complete(&request).await.unwrap(),
        ChatResponse {
            message: AssistantMessage::text("Hello."),
            usage: Some(Usage {
                input: 11,
                output: 3
            }),
            finish_reason: FinishReason::Stop,
        }
    );
    assert_eq!(
        bodies(&server).await,
        vec![json!({
            "model": "claude-test", "max_tokens": 4096, "system": "Be kind.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
            "stream": false
        })]
    );
}

#[tokio::test]
async fn tool_choice_is_sent_as_any_or_none_with_the_declarations_kept() {
    let server = MockServer::start().await;
    mount(&server, sse_response(anthropic_sse(&tool_use_events()))).await;
    let (provider, _) = make_provider(ProviderKind::Anthropic, &server.uri());
    for choice in [ToolChoice::Auto, ToolChoice::Required, ToolChoice::None] {
        events_ok(provider.as_ref(), &full_request().with_tool_choice(choice)).await;
    }
    let shape = |body: &Value| {
        (
            body["tools"].as_array().map(Vec::len),
            body.get("tool_choice").cloned(),
        )
    };
    assert_eq!(
        bodies(&server).await.iter().map(shape).collect::<Vec<_>>(),
        vec![
            (Some(2), None),
            (Some(2), Some(json!({"type": "any"}))),
            // The history holds tool_use blocks, which Anthropic accepts only with tools.
            (Some(2), Some(json!({"type": "none"}))),
        ]
    );
}
