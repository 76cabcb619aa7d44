//! OpenAI-compatible provider against a wiremock chat-completions endpoint and a raw chunked
//! server: request bodies compared whole, streamed parallel tool calls, usage, retry paths and
//! typed errors.

use std::time::Duration;

use coyote_llm::{
    AssistantMessage, ChatRequest, ChatResponse, FinishReason, LlmError, Message, ProviderKind,
    StreamEvent, StreamMode, ToolCall, ToolChoice, Usage,
};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer};

use super::common::{conversation, tools};
use super::support::{
    ChunkedServer, ConversationInvariants, OPENAI_KEY, Wire, bodies, collect, events_ok,
    json_response, make_provider, openai_sse, sse_response,
};

/// Mounts `response` for chat completions behind the invariant matcher.
async fn mount(
    server: &MockServer,
    response: wiremock::ResponseTemplate,
) -> ConversationInvariants {
    let invariants = ConversationInvariants::new(Wire::OpenAi);
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header(
            "authorization",
            format!("Bearer {OPENAI_KEY}").as_str(),
        ))
        .and(invariants.clone())
        .respond_with(response)
        .mount(server)
        .await;
    invariants
}

fn parallel_chunks() -> Vec<Value> {
    let delta = |d: Value| json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": d, "finish_reason": null}]});
    vec![
        delta(json!({"role": "assistant", "content": "Checking"})),
        delta(
            json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
        ),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]})),
        delta(
            json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]}),
        ),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]})),
        json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 33, "total_tokens": 153}}),
    ]
}

fn parallel_events() -> Vec<StreamEvent> {
    vec![
        StreamEvent::TextDelta("Checking".into()),
        StreamEvent::ToolCallStarted {
            index: 0,
            id: "call_a".into(),
            name: "get_weather".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 0,
            delta: "{\"city\":".into(),
        },
        StreamEvent::ToolCallStarted {
            index: 1,
            id: "call_b".into(),
            name: "get_time".into(),
        },
        StreamEvent::ToolCallArgumentsDelta {
            index: 1,
            delta: "{}".into(),
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
            call: ToolCall::new("call_b", "get_time", "{}"),
        },
        StreamEvent::Usage(Usage {
            input: 120,
            output: 33,
        }),
        StreamEvent::Done {
            finish_reason: FinishReason::ToolCalls,
        },
    ]
}

fn parallel_response() -> ChatResponse {
    ChatResponse {
        message: AssistantMessage {
            replay: Vec::new(),
            text: "Checking".into(),
            tool_calls: vec![
                ToolCall::new("call_a", "get_weather", "{\"city\":\"Paris\"}"),
                ToolCall::new("call_b", "get_time", "{}"),
            ],
        },
        usage: Some(Usage {
            input: 120,
            output: 33,
        }),
        finish_reason: FinishReason::ToolCalls,
    }
}

fn full_request() -> ChatRequest {
    ChatRequest::new("gpt-test", conversation())
        .with_tools(tools())
        .with_temperature(0.5)
        .with_max_tokens(256)
}

#[tokio::test]
async fn streams_parallel_tool_calls_and_sends_the_whole_conversation() {
    let server = MockServer::start().await;
    let invariants = mount(&server, sse_response(openai_sse(&parallel_chunks()))).await;
    let (provider, clock) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1/", server.uri()),
    );

    let (events, response) = events_ok(provider.as_ref(), &full_request()).await;
    assert_eq!(events, parallel_events());
    assert_eq!(response, parallel_response());

    let expected_body = json!({
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris, and the time?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18\u{b0}C"},
            {"role": "tool", "tool_call_id": "call_2", "content": "cancelled by the user"},
            {"role": "assistant", "content": "It is 18\u{b0}C."},
            {"role": "user", "content": "And tomorrow?"}
        ],
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
            {"type": "function", "function": {"name": "get_time", "description": "Current time",
                "parameters": {"type": "object", "properties": {}}}}
        ],
        "parallel_tool_calls": true,
        "temperature": 0.5,
        "max_tokens": 256,
        "stream": true,
        "stream_options": {"include_usage": true}
    });
    assert_eq!(bodies(&server).await, vec![expected_body]);
    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(request.headers.get("accept").unwrap(), "text/event-stream");
    assert_eq!(invariants.violations(), Vec::<String>::new());
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn sse_split_across_tcp_writes() {
    let body = openai_sse(&parallel_chunks()).into_bytes();
    // Cut inside `data:`, inside JSON strings, between events and at every 7th byte after that.
    let mut cuts = vec![3, 17, 60, 61, 140];
    cuts.extend((141..body.len()).step_by(7));
    let mut pieces = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([body.len()]) {
        pieces.push(body[start..cut].to_vec());
        start = cut;
    }
    let server = ChunkedServer::start(pieces).await;
    let (provider, _) = make_provider(ProviderKind::OpenAiCompatible, &server.base);
    let (events, response) = events_ok(provider.as_ref(), &full_request()).await;
    assert_eq!(events, parallel_events());
    assert_eq!(response, parallel_response());
    let raw = String::from_utf8(server.request().await).unwrap();
    assert!(
        raw.starts_with("POST /chat/completions HTTP/1.1\r\n"),
        "{raw}"
    );
}

#[tokio::test]
async fn rate_limit_with_retry_after_is_retried_then_succeeds() {
    let server = MockServer::start().await;
    let invariants = ConversationInvariants::new(Wire::OpenAi);
    Mock::given(method("POST"))
        .and(invariants.clone())
        .respond_with(
            json_response(429, json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}))
                .insert_header("retry-after", "7"),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(sse_response(openai_sse(&parallel_chunks())))
        .with_priority(2)
        .mount(&server)
        .await;
    let (provider, clock) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );

    let (_, response) = events_ok(provider.as_ref(), &full_request()).await;
    assert_eq!(response, parallel_response());
    assert_eq!(clock.sleeps(), vec![Duration::from_secs(7)]);
    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0], sent[1], "the retry resends the same request");
    assert_eq!(invariants.violations(), Vec::<String>::new());
}

#[tokio::test]
async fn rate_limit_without_retry_after_backs_off_then_gives_up() {
    let server = MockServer::start().await;
    mount(
        &server,
        json_response(429, json!({"error": {"message": "slow down"}})),
    )
    .await;
    let (provider, clock) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    let error = provider.stream(&full_request()).await.err().unwrap();
    assert_eq!(
        error,
        LlmError::RateLimited {
            provider: "openai".into(),
            retry_after: None,
            attempts: 4,
            detail: "slow down".into()
        }
    );
    assert_eq!(
        clock.sleeps(),
        vec![
            Duration::from_secs(1),
            Duration::from_secs(2),
            Duration::from_secs(4)
        ]
    );
    assert_eq!(bodies(&server).await.len(), 4);
}

#[tokio::test]
async fn a_wait_longer_than_the_cap_is_reported_at_once() {
    let server = MockServer::start().await;
    mount(
        &server,
        json_response(429, json!({"error": {"message": "daily limit"}}))
            .insert_header("retry-after", "3600"),
    )
    .await;
    let (provider, clock) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    let error = provider.stream(&full_request()).await.err().unwrap();
    assert_eq!(error.retry_after(), Some(Duration::from_secs(3600)));
    assert!(
        matches!(error, LlmError::RateLimited { attempts: 1, .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("the server asks to wait 3600s"),
        "{error}"
    );
    assert_eq!(clock.sleeps(), vec![]);
}

/// `Retry-After: 1e30` once panicked converting seconds to a `Duration`.
/// A hostile wait is clamped to a named maximum and reported at once.
#[tokio::test]
async fn a_hostile_retry_after_is_clamped_not_a_panic() {
    for hostile in ["1e30", "1e300", "18446744073709551616"] {
        let server = MockServer::start().await;
        mount(
            &server,
            json_response(429, json!({"error": {"message": "busy"}}))
                .insert_header("retry-after", hostile),
        )
        .await;
        let (provider, clock) = make_provider(
            ProviderKind::OpenAiCompatible,
            &format!("{}/v1", server.uri()),
        );
        let error = provider.stream(&full_request()).await.err().unwrap();
        assert_eq!(
            error.retry_after(),
            Some(Duration::from_secs(86_400)),
            "{hostile}"
        );
        assert!(
            matches!(error, LlmError::RateLimited { attempts: 1, .. }),
            "{error:?}"
        );
        assert!(
            error.to_string().contains("at least 86400s"),
            "{hostile}: {error}"
        );
        assert_eq!(clock.sleeps(), vec![]);
    }
}

#[tokio::test]
async fn insufficient_quota_is_not_retried() {
    let server = MockServer::start().await;
    mount(&server, json_response(429, json!({"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}}))).await;
    let (provider, clock) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    let error = provider.stream(&full_request()).await.err().unwrap();
    assert!(
        matches!(
            error,
            LlmError::RateLimited {
                attempts: 1,
                retry_after: None,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn unauthorized_is_an_auth_error_naming_the_variable() {
    let server = MockServer::start().await;
    mount(&server, json_response(401, json!({"error": {"message": "Invalid token", "type": "invalid_request_error", "code": "invalid_api_key"}}))).await;
    let (provider, clock) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    let error = provider.stream(&full_request()).await.err().unwrap();
    assert_eq!(
        error,
        LlmError::Auth {
            provider: "openai".into(),
            status: 401,
            detail: "Invalid token".into(),
            advice: "check the key in $OPENAI_API_KEY and its permissions".into(),
        }
    );
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn context_length_errors_are_recognised_across_servers() {
    let cases = [
        // OpenAI / Groq
        (
            400,
            json!({"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}),
        ),
        // llama.cpp server
        (
            400,
            json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}}),
        ),
        // vLLM
        (
            400,
            json!({"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", "type": "BadRequestError", "code": 400}),
        ),
    ];
    for (status, body) in cases {
        let server = MockServer::start().await;
        mount(&server, json_response(status, body.clone())).await;
        let (provider, clock) = make_provider(
            ProviderKind::OpenAiCompatible,
            &format!("{}/v1", server.uri()),
        );
        let error = provider.stream(&full_request()).await.err().unwrap();
        assert!(
            matches!(error, LlmError::ContextLength { .. }),
            "{body}: {error:?}"
        );
        assert!(
            error
                .to_string()
                .contains("start a new conversation (.clear)"),
            "{error}"
        );
        assert_eq!(clock.sleeps(), vec![]);
    }
}

#[tokio::test]
async fn other_bad_requests_and_server_errors() {
    let server = MockServer::start().await;
    mount(
        &server,
        json_response(
            404,
            json!({"error": "model \"nope\" not found, try pulling it first"}),
        ),
    )
    .await;
    let (provider, _) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    let error = provider.stream(&full_request()).await.err().unwrap();
    assert_eq!(
        error,
        LlmError::InvalidRequest {
            provider: "openai".into(),
            status: 404,
            detail: "model \"nope\" not found, try pulling it first".into(),
        }
    );

    let server = MockServer::start().await;
    mount(
        &server,
        wiremock::ResponseTemplate::new(503)
            .set_body_string("<html>upstream\n   unavailable</html>"),
    )
    .await;
    let (provider, clock) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    let error = provider.stream(&full_request()).await.err().unwrap();
    assert_eq!(
        error,
        LlmError::Server {
            provider: "openai".into(),
            status: 503,
            detail: "<html>upstream unavailable</html>".into()
        }
    );
    assert_eq!(clock.sleeps().len(), 3, "5xx is retried with backoff");
}

#[tokio::test]
async fn stream_cut_mid_event_is_a_protocol_error_and_never_retried() {
    let server = MockServer::start().await;
    let body = openai_sse(&parallel_chunks());
    let cut = body.find("\"Paris").unwrap();
    mount(&server, sse_response(body[..cut].to_string())).await;
    let (provider, clock) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    let items = collect(provider.as_ref(), &full_request()).await.unwrap();
    let (last, before) = items.split_last().unwrap();
    assert!(
        matches!(last, Err(LlmError::Protocol { detail, .. }) if detail.contains("not valid JSON")),
        "{last:?}"
    );
    let before: Vec<StreamEvent> = before.iter().map(|i| i.clone().unwrap()).collect();
    assert_eq!(before, parallel_events()[..5].to_vec());
    assert_eq!(bodies(&server).await.len(), 1);
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn whole_mode_sends_stream_false_and_yields_the_same_answer() {
    let server = MockServer::start().await;
    let completion = json!({
        "id": "x", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Sunny."}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 2}
    });
    mount(&server, json_response(200, completion)).await;
    let (provider, _) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    let request = ChatRequest::new("gpt-test", vec![Message::user("Weather?")])
        .with_stream(StreamMode::Whole);
    let response = provider.complete(&request).await.unwrap();
    assert_eq!(
        response,
        ChatResponse {
            message: AssistantMessage::text("Sunny."),
            usage: Some(Usage {
                input: 9,
                output: 2
            }),
            finish_reason: FinishReason::Stop,
        }
    );
    assert_eq!(
        bodies(&server).await,
        vec![
            json!({"model": "gpt-test", "messages": [{"role": "user", "content": "Weather?"}], "stream": false})
        ]
    );
}

#[tokio::test]
async fn lists_models() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(json_response(200, json!({"object": "list", "data": [{"id": "qwen2.5:7b", "object": "model"}, {"id": "llama3.2", "object": "model"}]})))
        .mount(&server)
        .await;
    let (provider, _) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    assert_eq!(
        provider.list_models().await.unwrap(),
        vec!["qwen2.5:7b".to_string(), "llama3.2".to_string()]
    );
}

#[tokio::test]
async fn tool_choice_required_is_sent_and_none_leaves_the_declarations_out() {
    let server = MockServer::start().await;
    mount(&server, sse_response(openai_sse(&parallel_chunks()))).await;
    let (provider, _) = make_provider(
        ProviderKind::OpenAiCompatible,
        &format!("{}/v1", server.uri()),
    );
    for choice in [ToolChoice::Auto, ToolChoice::Required, ToolChoice::None] {
        events_ok(provider.as_ref(), &full_request().with_tool_choice(choice)).await;
    }
    let bodies = bodies(&server).await;
    let shape = |body: &Value| {
        (
            body["tools"].as_array().map(Vec::len),
            body.get("tool_choice").cloned(),
        )
    };
    assert_eq!(
        bodies.iter().map(shape).collect::<Vec<_>>(),
        vec![
            (Some(2), None),
            (Some(2), Some(json!("required"))),
            // llama.cpp renders declared tools into the prompt even under "none".
            (None, None),
        ]
    );
    // The conversation itself is the same in all three.
    assert_eq!(bodies[0]["messages"], bodies[2]["messages"]);
}

#[tokio::test]
async fn llama_cpp_unparsed_output_is_its_own_error_and_not_retried() {
    let llama = json!({"error": {"code": 500, "message": "The model produced output that does not match the expected peg-native format", "type": "server_error"}});
    // As an HTTP status (non-streamed) and in-band after the stream started (streamed).
    let responses = [
        json_response(500, llama.clone()),
        sse_response(format!(
            "data: {}\n\ndata: {llama}\n\n",
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}, "finish_reason": null}]})
        )),
    ];
    for response in responses {
        let server = MockServer::start().await;
        mount(&server, response).await;
        let (provider, clock) = make_provider(
            ProviderKind::OpenAiCompatible,
            &format!("{}/v1", server.uri()),
        );
        let error = match collect(provider.as_ref(), &full_request()).await {
            Err(error) => error,
            Ok(events) => events
                .into_iter()
                .find_map(Result::err)
                .expect("an error event"),
        };
        assert!(
            matches!(&error, LlmError::UnparsedOutput { detail, .. }
                if detail == "The model produced output that does not match the expected peg-native format"),
            "{error:?}"
        );
        assert!(error.to_string().contains("use a larger model"), "{error}");
        assert_eq!(
            clock.sleeps(),
            vec![],
            "the same request gives the same output"
        );
        assert_eq!(server.received_requests().await.unwrap().len(), 1);
    }
}
