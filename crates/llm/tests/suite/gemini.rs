//! Google Gemini (`type: gemini`) against a scripted `streamGenerateContent?alt=sse` endpoint: a
//! whole turn (thought + function call with its thought signature → function response →
//! streamed answer) with the request bodies compared whole, a tool schema Gemini cannot take
//! whole reported once, `RESOURCE_EXHAUSTED` retried, a context overflow, a cut stream, the
//! model list.
//!
//! Wire shapes: <https://ai.google.dev/api/generate-content> (request, `GenerateContentResponse`,
//! `usageMetadata`, `finishReason`), <https://ai.google.dev/gemini-api/docs/function-calling>
//! (`functionCall` / `functionResponse` parts), <https://ai.google.dev/gemini-api/docs/thinking>
//! and <https://ai.google.dev/gemini-api/docs/thought-signatures> (`thought: true` parts,
//! `thoughtSignature`), <https://ai.google.dev/gemini-api/docs/troubleshooting> (error bodies
//! with `status`), <https://ai.google.dev/api/models#method:-models.list>.

use std::time::Duration;

use coyote_llm::{
    ApiKey, ChatRequest, FinishReason, LlmError, Message, ProviderConfig, ProviderKind,
    StreamEvent, ToolResult, Usage,
};
use coyote_protocol::FunctionDeclaration;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::support::{
    OPENAI_KEY, bodies, collect, data_sse, events_ok, full_turn, json_response, provider_from,
    sse_response,
};

const STREAM_PATH: &str = "/v1beta/models/gemini-2.5-flash:streamGenerateContent";

fn config(base: &str) -> ProviderConfig {
    ProviderConfig::new(ProviderKind::Gemini, "gemini", base)
        .with_api_key(ApiKey::from_env("GEMINI_API_KEY", OPENAI_KEY))
}

async fn mount_sequence(server: &MockServer, responses: Vec<ResponseTemplate>) {
    for (i, response) in responses.into_iter().enumerate() {
        Mock::given(method("POST"))
            .and(path(STREAM_PATH))
            .and(query_param("alt", "sse"))
            .and(header("x-goog-api-key", OPENAI_KEY))
            .respond_with(response)
            .up_to_n_times(1)
            .with_priority(u8::try_from(i + 1).unwrap())
            .mount(server)
            .await;
    }
}

fn call_chunks() -> Vec<Value> {
    vec![
        json!({"candidates": [{"content": {"parts": [{"text": "The user asks for weather.", "thought": true}], "role": "model"}, "index": 0}],
               "usageMetadata": {"promptTokenCount": 40, "totalTokenCount": 40}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}),
        json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "CiQB0e2Kb7sig=="}], "role": "model"}, "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 15, "thoughtsTokenCount": 30, "totalTokenCount": 85}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}),
    ]
}

fn answer_chunks() -> Vec<Value> {
    vec![
        json!({"candidates": [{"content": {"parts": [{"text": "It is "}], "role": "model"}, "index": 0}], "modelVersion": "gemini-2.5-flash"}),
        json!({"candidates": [{"content": {"parts": [{"text": "18\u{b0}C."}], "role": "model"}, "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": 95, "candidatesTokenCount": 6, "totalTokenCount": 101}, "modelVersion": "gemini-2.5-flash"}),
    ]
}

#[tokio::test]
async fn a_whole_turn_sends_the_thought_signature_back_with_the_call() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![
            sse_response(data_sse(&call_chunks())),
            sse_response(data_sse(&answer_chunks())),
        ],
    )
    .await;
    let (provider, clock) = provider_from(config(&format!("{}/v1beta", server.uri())));
    let (first, second, _) = full_turn(provider.as_ref(), "gemini-2.5-flash", |call| {
        ToolResult::success(call.id.clone(), "18\u{b0}C")
    })
    .await;
    let call = &first.message.tool_calls[0];
    assert_eq!(
        (call.name.as_str(), call.arguments.as_str()),
        ("get_weather", "{\"city\":\"Paris\"}")
    );
    assert!(call.id.starts_with("gemini_call_"), "{}", call.id);
    assert_eq!(
        (first.finish_reason, first.usage),
        (
            FinishReason::ToolCalls,
            Some(Usage {
                input: 40,
                output: 45
            })
        )
    );
    assert_eq!(second.message.text, "It is 18\u{b0}C.");
    let sent = bodies(&server).await;
    assert_eq!(
        sent[1],
        json!({
            "systemInstruction": {"parts": [{"text": "You are terse."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "CiQB0e2Kb7sig=="}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"result": "18\u{b0}C"}}}]}
            ],
            "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
            "generationConfig": {"thinkingConfig": {"includeThoughts": true}}
        })
    );
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn thoughts_stream_as_reasoning() {
    let server = MockServer::start().await;
    mount_sequence(&server, vec![sse_response(data_sse(&call_chunks()))]).await;
    let (provider, _) = provider_from(config(&format!("{}/v1beta", server.uri())));
    let request = ChatRequest::new("gemini-2.5-flash", vec![Message::user("Weather?")]);
    let (events, _) = events_ok(provider.as_ref(), &request).await;
    assert_eq!(
        events[0],
        StreamEvent::ReasoningDelta("The user asks for weather.".into())
    );
}

#[tokio::test]
async fn a_schema_gemini_cannot_take_is_converted_and_reported_once_per_tool() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![
            sse_response(data_sse(&answer_chunks())),
            sse_response(data_sse(&answer_chunks())),
        ],
    )
    .await;
    let (provider, _) = provider_from(config(&format!("{}/v1beta", server.uri())));
    let tools = vec![FunctionDeclaration {
        name: "search".into(),
        description: "Search".into(),
        parameters: json!({
            "type": "object",
            "$defs": {"q": {"type": "string"}},
            "properties": {"query": {"$ref": "#/$defs/q"}, "limit": {"type": ["integer", "null"]}},
            "additionalProperties": false
        }),
    }];
    let request =
        ChatRequest::new("gemini-2.5-flash", vec![Message::user("find x")]).with_tools(tools);
    let (events, _) = events_ok(provider.as_ref(), &request).await;
    assert_eq!(
        events[0],
        StreamEvent::Warning(
            "Gemini cannot take the whole input schema of tool `search`; sent without: \
             additionalProperties: Gemini cannot restrict or type extra properties"
                .into()
        )
    );
    let (again, _) = events_ok(provider.as_ref(), &request).await;
    assert!(
        !again.iter().any(|e| matches!(e, StreamEvent::Warning(_))),
        "reported once: {again:?}"
    );
    assert_eq!(
        bodies(&server).await[0]["tools"][0]["functionDeclarations"][0]["parameters"],
        json!({"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "nullable": true}}})
    );
}

#[tokio::test]
async fn resource_exhausted_is_retried() {
    let server = MockServer::start().await;
    let exhausted = json_response(
        429,
        json!({"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details.", "status": "RESOURCE_EXHAUSTED"}}),
    );
    mount_sequence(
        &server,
        vec![exhausted, sse_response(data_sse(&answer_chunks()))],
    )
    .await;
    let (provider, clock) = provider_from(config(&format!("{}/v1beta", server.uri())));
    let request = ChatRequest::new("gemini-2.5-flash", vec![Message::user("hi")]);
    let (_, answer) = events_ok(provider.as_ref(), &request).await;
    assert_eq!(answer.message.text, "It is 18\u{b0}C.");
    assert_eq!(clock.sleeps(), vec![Duration::from_secs(1)]);
}

#[tokio::test]
async fn too_many_input_tokens_is_a_context_length_error() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![json_response(
            400,
            json!({"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}),
        )],
    )
    .await;
    let (provider, _) = provider_from(config(&format!("{}/v1beta", server.uri())));
    let error = provider
        .stream(&ChatRequest::new(
            "gemini-2.5-flash",
            vec![Message::user("hi")],
        ))
        .await
        .err()
        .unwrap();
    assert!(matches!(error, LlmError::ContextLength { .. }), "{error:?}");
}

#[tokio::test]
async fn a_stream_without_finish_reason_is_cut() {
    let server = MockServer::start().await;
    mount_sequence(&server, vec![sse_response(data_sse(&answer_chunks()[..1]))]).await;
    let (provider, _) = provider_from(config(&format!("{}/v1beta", server.uri())));
    let items = collect(
        provider.as_ref(),
        &ChatRequest::new("gemini-2.5-flash", vec![Message::user("hi")]),
    )
    .await
    .unwrap();
    assert!(
        matches!(items.last(), Some(Err(LlmError::Protocol { .. }))),
        "{items:?}"
    );
}

#[tokio::test]
async fn the_model_list_keeps_models_that_generate_content() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1beta/models"))
        .respond_with(json_response(
            200,
            json!({"models": [
                {"name": "models/gemini-2.5-flash", "displayName": "Gemini 2.5 Flash", "supportedGenerationMethods": ["generateContent", "countTokens"]},
                {"name": "models/text-embedding-004", "supportedGenerationMethods": ["embedContent"]}
            ]}),
        ))
        .mount(&server)
        .await;
    let (provider, _) = provider_from(config(&format!("{}/v1beta", server.uri())));
    assert_eq!(
        provider.list_models().await.unwrap(),
        vec!["gemini-2.5-flash".to_string()]
    );
}

#[tokio::test]
async fn whole_mode_uses_generate_content() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/gemini-2.0-flash:generateContent"))
        .respond_with(json_response(
            200,
            json!({"candidates": [{"content": {"parts": [{"text": "Hi."}], "role": "model"}, "finishReason": "MAX_TOKENS"}],
                   "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2}}),
        ))
        .mount(&server)
        .await;
    let (provider, _) = provider_from(config(&format!("{}/v1beta", server.uri())));
    let request = ChatRequest::new("gemini-2.0-flash", vec![Message::user("hi")])
        .with_stream(coyote_llm::StreamMode::Whole);
    let answer = provider.complete(&request).await.unwrap();
    assert_eq!(
        (answer.message.text.as_str(), answer.finish_reason),
        ("Hi.", FinishReason::Length)
    );
    // Models that cannot think are not asked for thoughts.
    assert_eq!(bodies(&server).await[0]["generationConfig"], json!({}));
}
