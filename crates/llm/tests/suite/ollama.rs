//! Ollama's native API (`type: ollama`) against a local fake of `/api/chat` and `/api/tags`: a
//! whole turn (tool call → tool result named by `tool_name` → streamed answer) with the request
//! bodies compared whole, an error line mid-stream, a model that is not pulled, a busy server
//! retried, and the model list.
//!
//! Wire shapes: <https://github.com/ollama/ollama/blob/main/docs/api.md> ("Generate a chat
//! completion": streamed JSON lines, `done`/`done_reason`, `prompt_eval_count`/`eval_count`,
//! "Chat request (with tools)"; "List Local Models"; errors as `{"error": "…"}`) and the tool
//! streaming example of <https://ollama.com/blog/streaming-tool>.

use std::time::Duration;

use coyote_llm::{
    ChatRequest, FinishReason, LlmError, Message, ProviderConfig, ProviderKind, ToolResult, Usage,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer};

use super::support::{
    bodies, collect, full_turn, json_response, mount_sequence, ndjson_response, provider_from,
};

fn config(base: &str) -> ProviderConfig {
    ProviderConfig::new(ProviderKind::Ollama, "ollama", base)
}

fn line(message: Value, done: bool) -> Value {
    json!({"model": "qwen3", "created_at": "2025-05-27T22:54:57.641643Z", "message": message, "done": done})
}

fn call_lines() -> Vec<Value> {
    vec![
        line(
            json!({"role": "assistant", "content": "", "thinking": "The user wants weather."}),
            false,
        ),
        line(
            json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}),
            false,
        ),
        json!({"model": "qwen3", "created_at": "2025-05-27T22:54:58.1Z", "message": {"role": "assistant", "content": ""}, "done_reason": "stop", "done": true, "total_duration": 3_000_000_000_u64, "prompt_eval_count": 180, "eval_count": 25}),
    ]
}

fn answer_lines() -> Vec<Value> {
    vec![
        line(json!({"role": "assistant", "content": "It is "}), false),
        line(json!({"role": "assistant", "content": "18\u{b0}C."}), false),
        json!({"model": "qwen3", "created_at": "2025-05-27T22:55:00Z", "message": {"role": "assistant", "content": ""}, "done_reason": "stop", "done": true, "prompt_eval_count": 210, "eval_count": 6}),
    ]
}

#[tokio::test]
async fn a_whole_turn_against_the_native_chat_api() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        "/api/chat",
        vec![
            ndjson_response(&call_lines()),
            ndjson_response(&answer_lines()),
        ],
    )
    .await;
    let (provider, clock) = provider_from(config(&server.uri()));
    let (first, second, _) = full_turn(provider.as_ref(), "qwen3", |call| {
        ToolResult::success(call.id.clone(), "18\u{b0}C")
    })
    .await;
    assert_eq!(first.message.tool_calls.len(), 1);
    let call = &first.message.tool_calls[0];
    assert_eq!(
        (call.name.as_str(), call.arguments.as_str()),
        ("get_weather", "{\"city\":\"Paris\"}")
    );
    assert_eq!(
        (first.finish_reason, first.usage),
        (
            FinishReason::ToolCalls,
            Some(Usage {
                input: 180,
                output: 25
            })
        )
    );
    assert_eq!(second.message.text, "It is 18\u{b0}C.");
    assert_eq!(second.finish_reason, FinishReason::Stop);
    let sent = bodies(&server).await;
    assert_eq!(
        sent[1],
        json!({
            "model": "qwen3",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
                {"role": "tool", "content": "18\u{b0}C", "tool_name": "get_weather"}
            ],
            "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
            "stream": true
        })
    );
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn options_carry_temperature_and_the_output_limit() {
    let server = MockServer::start().await;
    mount_sequence(&server, "/api/chat", vec![ndjson_response(&answer_lines())]).await;
    let (provider, _) = provider_from(config(&format!("{}/v1", server.uri())));
    let request = ChatRequest::new("qwen3", vec![Message::user("hi")])
        .with_temperature(0.3)
        .with_max_tokens(64);
    let answer = provider.complete(&request).await.unwrap();
    assert_eq!(answer.message.text, "It is 18\u{b0}C.");
    assert_eq!(
        bodies(&server).await[0]["options"],
        json!({"temperature": 0.3, "num_predict": 64})
    );
}

#[tokio::test]
async fn an_error_line_mid_stream_ends_the_answer_with_that_error() {
    let server = MockServer::start().await;
    let lines = vec![
        answer_lines()[0].clone(),
        json!({"error": "an error was encountered while running the model: unexpected EOF"}),
    ];
    mount_sequence(&server, "/api/chat", vec![ndjson_response(&lines)]).await;
    let (provider, _) = provider_from(config(&server.uri()));
    let items = collect(
        provider.as_ref(),
        &ChatRequest::new("qwen3", vec![Message::user("hi")]),
    )
    .await
    .unwrap();
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(
        matches!(&items[1], Err(LlmError::Protocol { detail, .. }) if detail.contains("unexpected EOF")),
        "{items:?}"
    );
}

#[tokio::test]
async fn a_model_that_is_not_pulled_is_an_invalid_request() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        "/api/chat",
        vec![json_response(
            404,
            json!({"error": "model \"nope\" not found, try pulling it first"}),
        )],
    )
    .await;
    let (provider, _) = provider_from(config(&server.uri()));
    let error = provider
        .stream(&ChatRequest::new("nope", vec![Message::user("hi")]))
        .await
        .err()
        .unwrap();
    assert_eq!(
        error,
        LlmError::InvalidRequest {
            provider: "ollama".into(),
            status: 404,
            detail: "model \"nope\" not found, try pulling it first".into()
        }
    );
}

#[tokio::test]
async fn a_busy_server_is_retried() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        "/api/chat",
        vec![
            json_response(503, json!({"error": "server busy, please try again.  maximum pending requests exceeded"})),
            ndjson_response(&answer_lines()),
        ],
    )
    .await;
    let (provider, clock) = provider_from(config(&server.uri()));
    let answer = provider
        .complete(&ChatRequest::new("qwen3", vec![Message::user("hi")]))
        .await
        .unwrap();
    assert_eq!(answer.message.text, "It is 18\u{b0}C.");
    assert_eq!(clock.sleeps(), vec![Duration::from_secs(1)]);
}

#[tokio::test]
async fn the_model_list_comes_from_api_tags() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/tags"))
        .respond_with(json_response(
            200,
            json!({"models": [
                {"name": "qwen3:latest", "model": "qwen3:latest", "modified_at": "2025-05-01T10:00:00Z", "size": 5_200_000_000_u64, "digest": "abc", "details": {"family": "qwen3"}},
                {"name": "llama3.2:1b", "model": "llama3.2:1b", "size": 1_300_000_000_u64, "digest": "def"}
            ]}),
        ))
        .mount(&server)
        .await;
    let (provider, _) = provider_from(config(&server.uri()));
    assert_eq!(
        provider.list_models().await.unwrap(),
        vec!["qwen3:latest".to_string(), "llama3.2:1b".to_string()]
    );
}

#[tokio::test]
async fn whole_mode_reads_one_json_object() {
    let server = MockServer::start().await;
    let whole = json!({"model": "qwen3", "created_at": "2025-05-27T22:55:00Z",
        "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
        "done_reason": "stop", "done": true, "prompt_eval_count": 30, "eval_count": 9});
    mount_sequence(&server, "/api/chat", vec![json_response(200, whole)]).await;
    let (provider, _) = provider_from(config(&server.uri()));
    let request = ChatRequest::new("qwen3", vec![Message::user("Oslo?")])
        .with_stream(coyote_llm::StreamMode::Whole);
    let answer = provider.complete(&request).await.unwrap();
    assert_eq!(
        answer.message.tool_calls[0].arguments,
        "{\"city\":\"Oslo\"}"
    );
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert_eq!(bodies(&server).await[0]["stream"], json!(false));
}
