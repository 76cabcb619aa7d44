//! Azure OpenAI (`type: azure-openai`) against a scripted resource: chat completions on the
//! deployment URL with `api-version` and the `api-key` header (a whole turn and a throttled
//! request retried), and the Responses API on the v1 path with an Entra ID token printed by
//! `api_key_cmd`.
//!
//! Wire shapes: <https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference>
//! (deployment URL, `api-version`, `api-key` / `Authorization: Bearer`, chat completion chunks,
//! 429 with `retry-after`), <https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/responses>
//! (`/openai/v1/responses`) and
//! <https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/managed-identity> (Entra
//! tokens for the `https://cognitiveservices.azure.com` scope).

use std::time::Duration;

use coyote_llm::{
    ApiKey, AzureAuth, ChatRequest, Message, ProviderConfig, ProviderKind, ToolResult, WireApi,
};
use serde_json::json;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer};

use super::support::{
    OPENAI_KEY, bodies, full_turn, json_response, named_sse, openai_sse, provider_from,
    sse_response,
};

fn chat_chunks_call() -> Vec<serde_json::Value> {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        json!({"id": "chatcmpl-az", "object": "chat.completion.chunk", "model": "gpt-4o-2024-11-20",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "content_filter_results": {}}]})
    };
    vec![
        // Azure's first chunk carries only the prompt filter results.
        json!({"id": "", "object": "", "model": "", "choices": [], "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}]}),
        chunk(
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_az", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
            json!(null),
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":\"Paris\"}"}}]}),
            json!(null),
        ),
        chunk(json!({}), json!("tool_calls")),
        json!({"id": "chatcmpl-az", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 60, "completion_tokens": 12, "total_tokens": 72}}),
    ]
}

fn chat_chunks_answer() -> Vec<serde_json::Value> {
    vec![
        json!({"id": "chatcmpl-az2", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "18\u{b0}C in Paris."}, "finish_reason": null}]}),
        json!({"id": "chatcmpl-az2", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]
}

#[tokio::test]
async fn chat_goes_to_the_deployment_url_with_api_version_and_api_key() {
    let server = MockServer::start().await;
    let at = || path("/openai/deployments/prod-gpt4o/chat/completions");
    Mock::given(method("POST"))
        .and(at())
        .and(query_param("api-version", "2024-10-21"))
        .and(header("api-key", OPENAI_KEY))
        .respond_with(
            json_response(
                429,
                json!({"error": {"code": "429", "message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current tier. Please retry after 3 seconds."}}),
            )
            .insert_header("retry-after", "3"),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    for (i, chunks) in [chat_chunks_call(), chat_chunks_answer()]
        .iter()
        .enumerate()
    {
        Mock::given(method("POST"))
            .and(at())
            .and(query_param("api-version", "2024-10-21"))
            .and(header("api-key", OPENAI_KEY))
            .respond_with(sse_response(openai_sse(chunks)))
            .up_to_n_times(1)
            .with_priority(2 + i as u8)
            .mount(&server)
            .await;
    }
    let config = ProviderConfig::new(ProviderKind::AzureOpenAi, "azure", server.uri())
        .with_api_key(ApiKey::from_env("AZURE_OPENAI_API_KEY", OPENAI_KEY));
    let (provider, clock) = provider_from(config);
    let (first, second, _) = full_turn(provider.as_ref(), "prod-gpt4o", |call| {
        ToolResult::success(call.id.clone(), "18\u{b0}C")
    })
    .await;
    assert_eq!(first.message.tool_calls[0].id, "call_az");
    assert_eq!(second.message.text, "18\u{b0}C in Paris.");
    assert_eq!(clock.sleeps(), vec![Duration::from_secs(3)]);
    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 3);
    // Azure takes OpenAI's field for the output limit and no parallel_tool_calls.
    assert_eq!(
        sent[2]["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_az", "content": "18\u{b0}C"})
    );
    assert_eq!(sent[2].get("parallel_tool_calls"), None);
}

#[tokio::test]
async fn responses_use_the_v1_path_and_an_entra_token_from_a_command() {
    let server = MockServer::start().await;
    let events = vec![
        json!({"type": "response.output_text.delta", "sequence_number": 1, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Hello."}),
        json!({"type": "response.completed", "sequence_number": 2, "response": {"id": "resp_az", "status": "completed", "usage": {"input_tokens": 5, "output_tokens": 2}}}),
    ];
    Mock::given(method("POST"))
        .and(path("/openai/v1/responses"))
        .and(header("authorization", "Bearer eyJ0eXAi.entra.token"))
        .respond_with(sse_response(named_sse(&events)))
        .mount(&server)
        .await;
    let mut config = ProviderConfig::new(
        ProviderKind::AzureOpenAi,
        "azure",
        format!("{}/openai", server.uri()),
    )
    .with_api(WireApi::Responses);
    config.azure_auth = AzureAuth::Entra;
    config.key_command = Some("printf '%s\\n' eyJ0eXAi.entra.token".into());
    let (provider, _) = provider_from(config);
    let answer = provider
        .complete(&ChatRequest::new("prod-gpt4o", vec![Message::user("hi")]))
        .await
        .unwrap();
    assert_eq!(answer.message.text, "Hello.");
    assert_eq!(bodies(&server).await[0]["model"], json!("prod-gpt4o"));
}

#[tokio::test]
async fn a_refused_key_is_an_auth_error_naming_its_variable() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(json_response(
            401,
            json!({"error": {"code": "401", "message": "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}),
        ))
        .mount(&server)
        .await;
    let config = ProviderConfig::new(ProviderKind::AzureOpenAi, "azure", server.uri())
        .with_api_key(ApiKey::from_env("AZURE_OPENAI_API_KEY", OPENAI_KEY));
    let (provider, clock) = provider_from(config);
    let error = provider
        .stream(&ChatRequest::new("prod-gpt4o", vec![Message::user("hi")]))
        .await
        .err()
        .unwrap();
    assert_eq!(
        error,
        coyote_llm::LlmError::Auth {
            provider: "azure".into(),
            status: 401,
            detail: "Access denied due to invalid subscription key or wrong API endpoint. Make \
                     sure to provide a valid key for an active subscription and use a correct \
                     regional API endpoint for your resource."
                .into(),
            advice: "check the key in $AZURE_OPENAI_API_KEY and its permissions".into(),
        }
    );
    assert_eq!(clock.sleeps(), vec![]);
}
