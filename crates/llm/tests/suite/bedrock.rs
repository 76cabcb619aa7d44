//! Amazon Bedrock Converse (`type: bedrock`) against a scripted runtime endpoint speaking the
//! binary AWS event stream: a whole turn (toolUse streamed in input deltas → toolResult →
//! streamed answer) with the request bodies compared whole and every request SigV4-signed, a
//! throttled request retried, a throttling exception mid-stream, a validation error.
//!
//! Wire shapes: <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html>
//! (events `messageStart`, `contentBlockStart`, `contentBlockDelta`, `contentBlockStop`,
//! `messageStop`, `metadata`; exceptions), <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html>
//! (request: `messages`, `system`, `toolConfig`, `toolUse` / `toolResult` blocks), the
//! event-stream encoding of <https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html>,
//! and the common errors (`ThrottlingException`, 429; `ValidationException`, 400) of
//! <https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html>.

use std::time::Duration;

use coyote_llm::{
    ApiKey, AwsAuth, AwsCredentials, ChatRequest, FinishReason, LlmError, Message, ProviderConfig,
    ProviderKind, ToolResult, Usage,
};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::support::{
    RecordingClock, aws_event_stream, aws_message, bodies, collect, full_turn, json_response,
    provider_from,
};

/// The model id has a colon, which the URL encodes once and the signature twice.
const STREAM_PATH: &str = "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream";
const MODEL: &str = "anthropic.claude-3-5-haiku-20241022-v1:0";

fn config(base: &str) -> ProviderConfig {
    let mut config = ProviderConfig::new(ProviderKind::Bedrock, "bedrock", base);
    config.aws = Some(AwsAuth {
        region: "us-east-1".into(),
        credentials: AwsCredentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: ApiKey::new("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            session_token: Some(ApiKey::new("FQoGZXIvYXdzEXAMPLE")),
        },
    });
    config
}

async fn mount_sequence(server: &MockServer, responses: Vec<ResponseTemplate>) {
    for (i, response) in responses.into_iter().enumerate() {
        Mock::given(method("POST"))
            .and(path(STREAM_PATH))
            .and(header("x-amz-security-token", "FQoGZXIvYXdzEXAMPLE"))
            .respond_with(response)
            .up_to_n_times(1)
            .with_priority(u8::try_from(i + 1).unwrap())
            .mount(server)
            .await;
    }
}

fn call_events() -> Vec<(&'static str, Value)> {
    vec![
        ("messageStart", json!({"role": "assistant"})),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"text": "Checking."}}),
        ),
        ("contentBlockStop", json!({"contentBlockIndex": 0})),
        (
            "contentBlockStart",
            json!({"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tooluse_kZJMlvQm", "name": "get_weather"}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"city\": "}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "\"Paris\"}"}}}),
        ),
        ("contentBlockStop", json!({"contentBlockIndex": 1})),
        ("messageStop", json!({"stopReason": "tool_use"})),
        (
            "metadata",
            json!({"usage": {"inputTokens": 380, "outputTokens": 55, "totalTokens": 435}, "metrics": {"latencyMs": 1021}}),
        ),
    ]
}

fn answer_events() -> Vec<(&'static str, Value)> {
    vec![
        ("messageStart", json!({"role": "assistant"})),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"text": "It is 18\u{b0}C."}}),
        ),
        ("contentBlockStop", json!({"contentBlockIndex": 0})),
        ("messageStop", json!({"stopReason": "end_turn"})),
        (
            "metadata",
            json!({"usage": {"inputTokens": 460, "outputTokens": 9, "totalTokens": 469}, "metrics": {"latencyMs": 400}}),
        ),
    ]
}

#[tokio::test]
async fn a_whole_turn_over_the_aws_event_stream_signed_with_sigv4() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![
            aws_event_stream(&call_events()),
            aws_event_stream(&answer_events()),
        ],
    )
    .await;
    let (provider, clock) = provider_from(config(&server.uri()));
    let (first, second, _) = full_turn(provider.as_ref(), MODEL, |call| {
        ToolResult::success(call.id.clone(), "18\u{b0}C")
    })
    .await;
    assert_eq!(first.message.text, "Checking.");
    assert_eq!(
        first.message.tool_calls,
        vec![coyote_llm::ToolCall::new(
            "tooluse_kZJMlvQm",
            "get_weather",
            "{\"city\": \"Paris\"}"
        )]
    );
    assert_eq!(
        (first.finish_reason, first.usage),
        (
            FinishReason::ToolCalls,
            Some(Usage {
                input: 380,
                output: 55
            })
        )
    );
    assert_eq!(second.message.text, "It is 18\u{b0}C.");
    assert_eq!(second.finish_reason, FinishReason::Stop);
    let sent = bodies(&server).await;
    assert_eq!(
        sent[1],
        json!({
            "messages": [
                {"role": "user", "content": [{"text": "Weather in Paris?"}]},
                {"role": "assistant", "content": [
                    {"text": "Checking."},
                    {"toolUse": {"toolUseId": "tooluse_kZJMlvQm", "name": "get_weather", "input": {"city": "Paris"}}}
                ]},
                {"role": "user", "content": [
                    {"toolResult": {"toolUseId": "tooluse_kZJMlvQm", "content": [{"text": "18\u{b0}C"}], "status": "success"}}
                ]}
            ],
            "system": [{"text": "You are terse."}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "description": "Weather for a city",
                "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}}]}
        })
    );
    // Signed at the recording clock's instant, for the region and service, over the headers
    // that identify the request.
    let request = &server.received_requests().await.unwrap()[0];
    let authorization = request
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(
        authorization.starts_with(
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20231114/us-east-1/bedrock/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature="
        ),
        "{authorization}"
    );
    assert_eq!(
        request.headers.get("x-amz-date").unwrap(),
        "20231114T221320Z",
        "the recording clock's {} s",
        RecordingClock::NOW_SECS
    );
    assert_eq!(clock.sleeps(), vec![]);
}

#[tokio::test]
async fn a_throttled_request_is_retried() {
    let server = MockServer::start().await;
    let throttled = json_response(
        429,
        json!({"message": "Too many requests, please wait before trying again."}),
    )
    .insert_header(
        "x-amzn-errortype",
        "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
    );
    mount_sequence(&server, vec![throttled, aws_event_stream(&answer_events())]).await;
    let (provider, clock) = provider_from(config(&server.uri()));
    let answer = provider
        .complete(&ChatRequest::new(MODEL, vec![Message::user("hi")]))
        .await
        .unwrap();
    assert_eq!(answer.message.text, "It is 18\u{b0}C.");
    assert_eq!(clock.sleeps(), vec![Duration::from_secs(1)]);
}

#[tokio::test]
async fn an_exception_message_mid_stream_is_a_typed_error() {
    let server = MockServer::start().await;
    let mut body = Vec::new();
    for (kind, payload) in &answer_events()[..2] {
        body.extend(aws_message(
            &[(":event-type", kind), (":message-type", "event")],
            payload,
        ));
    }
    body.extend(aws_message(
        &[
            (":exception-type", "throttlingException"),
            (":message-type", "exception"),
        ],
        &json!({"message": "Too many tokens, please wait before trying again."}),
    ));
    let response =
        ResponseTemplate::new(200).set_body_raw(body, "application/vnd.amazon.eventstream");
    mount_sequence(&server, vec![response]).await;
    let (provider, clock) = provider_from(config(&server.uri()));
    let items = collect(
        provider.as_ref(),
        &ChatRequest::new(MODEL, vec![Message::user("hi")]),
    )
    .await
    .unwrap();
    assert_eq!(
        items.last(),
        Some(&Err(LlmError::RateLimited {
            provider: "bedrock".into(),
            retry_after: None,
            attempts: 1,
            detail: "Too many tokens, please wait before trying again.".into()
        }))
    );
    assert_eq!(clock.sleeps(), vec![], "never retried once streaming began");
}

#[tokio::test]
async fn a_validation_error_is_an_invalid_request() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![
            json_response(
                400,
                json!({"message": "The provided model identifier is invalid."}),
            )
            .insert_header("x-amzn-errortype", "ValidationException"),
        ],
    )
    .await;
    let (provider, _) = provider_from(config(&server.uri()));
    let error = provider
        .stream(&ChatRequest::new(MODEL, vec![Message::user("hi")]))
        .await
        .err()
        .unwrap();
    assert_eq!(
        error,
        LlmError::InvalidRequest {
            provider: "bedrock".into(),
            status: 400,
            detail: "The provided model identifier is invalid.".into()
        }
    );
}

#[tokio::test]
async fn whole_mode_uses_converse() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse"))
        .respond_with(json_response(
            200,
            json!({"output": {"message": {"role": "assistant", "content": [
                    {"text": "Looking."},
                    {"toolUse": {"toolUseId": "tooluse_2", "name": "get_weather", "input": {"city": "Rome"}}}
                ]}},
                "stopReason": "tool_use",
                "usage": {"inputTokens": 12, "outputTokens": 8, "totalTokens": 20},
                "metrics": {"latencyMs": 300}}),
        ))
        .mount(&server)
        .await;
    let (provider, _) = provider_from(config(&server.uri()));
    let request = ChatRequest::new(MODEL, vec![Message::user("Rome?")])
        .with_stream(coyote_llm::StreamMode::Whole);
    let answer = provider.complete(&request).await.unwrap();
    assert_eq!(answer.message.text, "Looking.");
    assert_eq!(
        answer.message.tool_calls,
        vec![coyote_llm::ToolCall::new(
            "tooluse_2",
            "get_weather",
            "{\"city\":\"Rome\"}"
        )]
    );
    assert_eq!(
        answer.usage,
        Some(Usage {
            input: 12,
            output: 8
        })
    );
}
