//! Fixtures both providers share, and tests that are not about one wire format: the invariant
//! matchers themselves, local refusal of invalid conversations, unreachable servers, connections
//! closed without an answer, and key redaction.

use std::time::Duration;

use coyote_llm::{
    AssistantMessage, ChatRequest, ConversationError, HttpTimeouts, LlmError, Message,
    ProviderConfig, ProviderKind, TimeoutPhase, ToolCall, ToolResult, build_provider,
};
use coyote_protocol::FunctionDeclaration;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer};

use super::support::{
    ANTHROPIC_KEY, ClosingServer, ConversationInvariants, OPENAI_KEY, RecordingClock, Wire,
    anthropic_violations, events_ok, json_response, make_provider, openai_sse, openai_violations,
};

/// A conversation with two parallel calls (one answered with an error), a follow-up answer and
/// a new question.
pub fn conversation() -> Vec<Message> {
    vec![
        Message::system("You are terse."),
        Message::user("Weather in Paris, and the time?"),
        Message::assistant(AssistantMessage {
            replay: Vec::new(),
            text: String::new(),
            tool_calls: vec![
                ToolCall::new("call_1", "get_weather", "{\"city\":\"Paris\"}"),
                ToolCall::new("call_2", "get_time", ""),
            ],
        }),
        Message::tool_result(ToolResult::success("call_1", "18\u{b0}C")),
        Message::tool_result(ToolResult::error("call_2", "cancelled by the user")),
        Message::assistant(AssistantMessage::text("It is 18\u{b0}C.")),
        Message::user("And tomorrow?"),
    ]
}

pub fn tools() -> Vec<FunctionDeclaration> {
    vec![
        FunctionDeclaration {
            name: "get_weather".into(),
            description: "Weather for a city".into(),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        },
        FunctionDeclaration {
            name: "get_time".into(),
            description: "Current time".into(),
            parameters: json!(null),
        },
    ]
}

#[test]
fn openai_matcher_catches_each_violation() {
    let bad = json!({
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": null},
            {"role": "tool", "tool_call_id": "nope", "content": "x"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "user", "content": "too early"}
        ],
        "tools": [{"type": "function", "function": {"name": "bad.name", "parameters": {}}}]
    });
    assert_eq!(
        openai_violations(&bad),
        vec![
            "message 1: empty assistant message".to_string(),
            "message 2: tool result for unknown or answered call \"nope\"".to_string(),
            "message 4: calls {\"c1\"} left unanswered".to_string(),
            "tool name \"bad.name\" breaks the provider charset".to_string(),
        ]
    );
}

#[test]
fn anthropic_matcher_catches_each_violation() {
    let bad = json!({
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": []},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": "x"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "?"}]}
        ]
    });
    assert_eq!(
        anthropic_violations(&bad),
        vec![
            "message 1: empty assistant message".to_string(),
            "message 2: two assistant messages in a row".to_string(),
            "message 2: tool_use input is not an object".to_string(),
            "message 3: tool_result for unknown call \"t9\"".to_string(),
            "message 3: tool_use {\"t1\"} left unanswered".to_string(),
        ]
    );
}

#[tokio::test]
async fn a_violating_request_gets_no_answer_and_is_recorded() {
    let server = MockServer::start().await;
    let invariants = ConversationInvariants::new(Wire::OpenAi);
    Mock::given(method("POST"))
        .and(invariants.clone())
        .respond_with(json_response(200, json!({})))
        .mount(&server)
        .await;
    coyote_llm::install_crypto_provider();
    let status = reqwest::Client::new()
        .post(format!("{}/chat/completions", server.uri()))
        .body(
            json!({"messages": [{"role": "tool", "tool_call_id": "x", "content": ""}]}).to_string(),
        )
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 404);
    assert_eq!(
        invariants.violations(),
        vec!["message 0: tool result for unknown or answered call \"x\"".to_string()]
    );
}

#[tokio::test]
async fn invalid_conversations_are_refused_before_sending() {
    for kind in [ProviderKind::OpenAiCompatible, ProviderKind::Anthropic] {
        let server = MockServer::start().await;
        let (provider, _) = make_provider(kind, &server.uri());
        let mut messages = conversation();
        messages.remove(4); // call_2 loses its result
        let error = provider
            .stream(&ChatRequest::new("m", messages))
            .await
            .err()
            .expect("refused");
        assert_eq!(
            error,
            LlmError::InvalidConversation(ConversationError::UnansweredCalls {
                assistant: 2,
                index: 4,
                missing: vec!["call_2".into()],
            })
        );
        assert_eq!(server.received_requests().await.unwrap().len(), 0, "{kind}");
    }
}

/// The error of one "hi" request to an OpenAI-compatible provider at `base` that must fail,
/// with the clock that recorded its waits.
async fn openai_request_error(base: &str) -> (LlmError, std::sync::Arc<RecordingClock>) {
    let (provider, clock) = make_provider(ProviderKind::OpenAiCompatible, base);
    let error = provider
        .stream(&ChatRequest::new("m", vec![Message::user("hi")]))
        .await
        .err()
        .expect("fails");
    (error, clock)
}

#[tokio::test]
async fn unreachable_server_is_a_network_error() {
    // Bind then drop a listener: the port is (very likely) closed when we connect.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let (error, clock) = openai_request_error(&base).await;
    match &error {
        LlmError::Network {
            provider, endpoint, ..
        } => {
            assert_eq!(
                (provider.as_str(), endpoint.as_str()),
                ("openai", format!("{base}/chat/completions").as_str())
            );
        }
        other => panic!("expected a network error, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .contains("check `api_base` and that the server is running"),
        "{error}"
    );
    assert_eq!(
        clock.sleeps(),
        vec![],
        "connection failures are not retried"
    );
}

fn hello_sse() -> String {
    openai_sse(&[
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hello"}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ])
}

#[tokio::test]
async fn a_kept_alive_connection_the_server_dropped_is_retried_on_a_new_one() {
    // Seen with llama.cpp's server under concurrent requests: after an error response it
    // closes the connection the client had put back in its pool; the next request on it got
    // "connection closed before message completed" and failed the turn.
    let server = ClosingServer::start(hello_sse(), false).await;
    let (provider, clock) = make_provider(ProviderKind::OpenAiCompatible, &server.base);
    let request = ChatRequest::new("m", vec![Message::user("hi")]);
    for round in 0..3 {
        let (_, response) = events_ok(provider.as_ref(), &request).await;
        assert_eq!(response.message.text, "hello", "round {round}");
    }
    // Requests 2 and 3 each went out on the pooled connection first, were closed unanswered,
    // and were answered on a new connection.
    assert_eq!(server.counts(), (3, 2));
    assert_eq!(clock.sleeps(), vec![], "sent again at once, no backoff");
}

#[tokio::test]
async fn a_server_that_closes_every_request_unanswered_fails_after_the_bounded_retries() {
    let server = ClosingServer::start(hello_sse(), true).await;
    let (error, clock) = openai_request_error(&server.base).await;
    match &error {
        LlmError::Network { detail, .. } => {
            assert!(
                detail.contains("connection closed before message completed"),
                "{detail}"
            );
        }
        other => panic!("expected a network error, got {other:?}"),
    }
    assert_eq!(server.counts(), (0, 1 + coyote_llm::MAX_RETRIES as usize));
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn keys_never_appear_in_errors() {
    for (kind, key, path) in [
        (
            ProviderKind::OpenAiCompatible,
            OPENAI_KEY,
            "/chat/completions",
        ),
        (ProviderKind::Anthropic, ANTHROPIC_KEY, "/v1/messages"),
    ] {
        let server = MockServer::start().await;
        // A server that echoes the key back in its error text.
        Mock::given(method("POST"))
            .and(wiremock::matchers::path(path))
            .respond_with(json_response(
                401,
                json!({"error": {"message": format!("Incorrect API key provided: {key}")}}),
            ))
            .mount(&server)
            .await;
        let (provider, _) = make_provider(kind, &server.uri());
        let error = provider
            .stream(&ChatRequest::new("m", vec![Message::user("hi")]))
            .await
            .err()
            .unwrap();
        for text in [
            error.to_string(),
            format!("{error:?}"),
            format!("{provider:?}"),
        ] {
            assert!(!text.contains(key), "{kind}: key leaked in {text}");
        }
        assert!(
            error
                .to_string()
                .contains("Incorrect API key provided: <redacted>"),
            "{error}"
        );
    }
}

#[tokio::test]
async fn a_server_that_never_answers_hits_the_response_timeout() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(json_response(200, json!({})).set_delay(Duration::from_secs(30)))
        .mount(&server)
        .await;
    let timeouts = HttpTimeouts {
        response: Duration::from_millis(50),
        ..HttpTimeouts::default()
    };
    let config = ProviderConfig::new(ProviderKind::OpenAiCompatible, "local", server.uri())
        .with_timeouts(timeouts);
    let provider = build_provider(config).unwrap();
    let error = provider
        .stream(&ChatRequest::new("m", vec![Message::user("hi")]))
        .await
        .err()
        .unwrap();
    assert_eq!(
        error,
        LlmError::Timeout {
            provider: "local".into(),
            phase: TimeoutPhase::Response,
            after: Duration::from_millis(50)
        }
    );
}

#[test]
fn both_kinds_use_the_portable_function_name_rules() {
    for kind in [ProviderKind::OpenAiCompatible, ProviderKind::Anthropic] {
        assert_eq!(
            kind.function_name_rules(),
            coyote_llm::FunctionNameRules::PORTABLE
        );
    }
}
