//! A whole turn through each native provider wire — OpenAI Responses, Azure OpenAI chat,
//! Ollama `/api/chat`, Gemini `streamGenerateContent`, Bedrock `converse-stream` — against a
//! scripted endpoint speaking that wire: the model calls `mcp_invoke_fake` (the in-process fake
//! MCP server's `fixed` tool), the session runs the MCP tool, the tool's output goes back in the
//! provider's result shape, and the streamed answer ends the turn.
//!
//! The shapes are the ones `coyote-llm`'s own suite records with their sources (its
//! `tests/suite/{responses,azure,ollama,gemini,bedrock}.rs`), cut down to one call and one
//! answer.

use coyote_llm::{ApiKey, AwsAuth, AwsCredentials, ProviderConfig, ProviderKind, WireApi};
use coyote_mcp::{McpRuntime, RuntimeOptions, SpillStore};
use coyote_protocol::Timeouts;
use coyote_session::{
    CancellationToken, Conversation, EventLog, ModelSettings, Session, SessionEvent,
    ToolCallStatus, TurnContext,
};
use coyote_test_support::in_process;
use serde_json::{Value, json};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::support::{Asked, SERVER, meta_options, scenario, streamed_text};

#[derive(Debug, Clone, Copy)]
enum Wire {
    Responses,
    AzureChat,
    Ollama,
    Gemini,
    Bedrock,
}

const MODEL: &str = "m1";

fn sse(events: &[Value], named: bool) -> ResponseTemplate {
    let body: String = events
        .iter()
        .map(|e| match (named, e["type"].as_str()) {
            (true, Some(kind)) => format!("event: {kind}\ndata: {e}\n\n"),
            _ => format!("data: {e}\n\n"),
        })
        .collect();
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn aws_events(events: &[(&str, Value)]) -> ResponseTemplate {
    let mut body = Vec::new();
    for (kind, payload) in events {
        let payload = payload.to_string();
        let mut head = Vec::new();
        for (name, value) in [(":event-type", *kind), (":message-type", "event")] {
            head.push(u8::try_from(name.len()).unwrap());
            head.extend_from_slice(name.as_bytes());
            head.push(7);
            head.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
            head.extend_from_slice(value.as_bytes());
        }
        let total = 16 + head.len() + payload.len();
        let mut message = Vec::new();
        message.extend_from_slice(&u32::try_from(total).unwrap().to_be_bytes());
        message.extend_from_slice(&u32::try_from(head.len()).unwrap().to_be_bytes());
        let prelude = crc32(&message);
        message.extend_from_slice(&prelude.to_be_bytes());
        message.extend_from_slice(&head);
        message.extend_from_slice(payload.as_bytes());
        let crc = crc32(&message);
        message.extend_from_slice(&crc.to_be_bytes());
        body.extend(message);
    }
    ResponseTemplate::new(200).set_body_raw(body, "application/vnd.amazon.eventstream")
}

impl Wire {
    fn path(self) -> String {
        match self {
            Wire::Responses => "/v1/responses".into(),
            Wire::AzureChat => format!("/openai/deployments/{MODEL}/chat/completions"),
            Wire::Ollama => "/api/chat".into(),
            Wire::Gemini => format!("/v1beta/models/{MODEL}:streamGenerateContent"),
            Wire::Bedrock => format!("/model/{MODEL}/converse-stream"),
        }
    }

    fn config(self, root: &str) -> ProviderConfig {
        let key = ApiKey::new("sk-test");
        match self {
            Wire::Responses => {
                ProviderConfig::new(ProviderKind::OpenAiCompatible, "p", format!("{root}/v1"))
                    .with_api(WireApi::Responses)
                    .with_api_key(key)
            }
            Wire::AzureChat => {
                ProviderConfig::new(ProviderKind::AzureOpenAi, "p", root).with_api_key(key)
            }
            Wire::Ollama => ProviderConfig::new(ProviderKind::Ollama, "p", root),
            Wire::Gemini => {
                ProviderConfig::new(ProviderKind::Gemini, "p", format!("{root}/v1beta"))
                    .with_api_key(key)
            }
            Wire::Bedrock => {
                let mut config = ProviderConfig::new(ProviderKind::Bedrock, "p", root);
                config.aws = Some(AwsAuth {
                    region: "us-east-1".into(),
                    credentials: AwsCredentials {
                        access_key_id: "AKIDEXAMPLE".into(),
                        secret_access_key: key,
                        session_token: None,
                    },
                });
                config
            }
        }
    }

    /// The model calls `mcp_invoke_fake` with `arguments`.
    fn call(self, arguments: &Value) -> ResponseTemplate {
        let name = "mcp_invoke_fake";
        let text = arguments.to_string();
        match self {
            Wire::Responses => {
                let item = json!({"id": "fc_1", "type": "function_call", "status": "completed", "arguments": text, "call_id": "call_1", "name": name});
                sse(
                    &[
                        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "fc_1", "type": "function_call", "arguments": "", "call_id": "call_1", "name": name}}),
                        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": text}),
                        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
                        json!({"type": "response.completed", "response": {"status": "completed", "usage": {"input_tokens": 10, "output_tokens": 5}}}),
                    ],
                    true,
                )
            }
            Wire::AzureChat => ResponseTemplate::new(200).set_body_raw(
                format!(
                    "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
                    json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}]}, "finish_reason": null}]}),
                    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
                ),
                "text/event-stream",
            ),
            Wire::Ollama => {
                let lines = [
                    json!({"model": MODEL, "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": name, "arguments": arguments}}]}, "done": false}),
                    json!({"model": MODEL, "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 5}),
                ];
                let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
                ResponseTemplate::new(200).set_body_raw(body, "application/x-ndjson")
            }
            Wire::Gemini => sse(
                &[
                    json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": name, "args": arguments}}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5}}),
                ],
                false,
            ),
            Wire::Bedrock => aws_events(&[
                ("messageStart", json!({"role": "assistant"})),
                ("contentBlockStart", json!({"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": name}}})),
                ("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"toolUse": {"input": text}}})),
                ("contentBlockStop", json!({"contentBlockIndex": 0})),
                ("messageStop", json!({"stopReason": "tool_use"})),
                ("metadata", json!({"usage": {"inputTokens": 10, "outputTokens": 5}})),
            ]),
        }
    }

    /// The model answers `text`, in two pieces.
    fn answer(self, text: &str) -> ResponseTemplate {
        let (a, b) = text.split_at(text.len() / 2);
        match self {
            Wire::Responses => sse(
                &[
                    json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": a}),
                    json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": b}),
                    json!({"type": "response.completed", "response": {"status": "completed", "usage": {"input_tokens": 20, "output_tokens": 3}}}),
                ],
                true,
            ),
            Wire::AzureChat => ResponseTemplate::new(200).set_body_raw(
                format!(
                    "data: {}\n\ndata: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
                    json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": a}, "finish_reason": null}]}),
                    json!({"choices": [{"index": 0, "delta": {"content": b}, "finish_reason": null}]}),
                    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                ),
                "text/event-stream",
            ),
            Wire::Ollama => {
                let lines = [
                    json!({"model": MODEL, "message": {"role": "assistant", "content": a}, "done": false}),
                    json!({"model": MODEL, "message": {"role": "assistant", "content": b}, "done": false}),
                    json!({"model": MODEL, "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"}),
                ];
                let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
                ResponseTemplate::new(200).set_body_raw(body, "application/x-ndjson")
            }
            Wire::Gemini => sse(
                &[
                    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": a}]}}]}),
                    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": b}]}, "finishReason": "STOP"}]}),
                ],
                false,
            ),
            Wire::Bedrock => aws_events(&[
                ("messageStart", json!({"role": "assistant"})),
                ("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": a}})),
                ("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"text": b}})),
                ("contentBlockStop", json!({"contentBlockIndex": 0})),
                ("messageStop", json!({"stopReason": "end_turn"})),
                ("metadata", json!({"usage": {"inputTokens": 20, "outputTokens": 3}})),
            ]),
        }
    }
}

#[tokio::test]
async fn each_native_wire_runs_an_mcp_tool_and_streams_the_answer() {
    for wire in [
        Wire::Responses,
        Wire::AzureChat,
        Wire::Ollama,
        Wire::Gemini,
        Wire::Bedrock,
    ] {
        let server = MockServer::start().await;
        for (i, response) in [
            wire.call(&json!({"tool": "fixed", "arguments": {}})),
            wire.answer("The tool said: fixed output."),
        ]
        .into_iter()
        .enumerate()
        {
            Mock::given(wiremock::matchers::method("POST"))
                .and(wiremock::matchers::path(wire.path()))
                .respond_with(response)
                .up_to_n_times(1)
                .with_priority(u8::try_from(i + 1).unwrap())
                .mount(&server)
                .await;
        }
        let provider = coyote_llm::build_provider(wire.config(&server.uri())).unwrap();
        let runtime = McpRuntime::new(RuntimeOptions::default());
        let ((read, write), _handle) = in_process(scenario());
        runtime
            .attach_stream(SERVER, Timeouts::default(), read, write)
            .await
            .unwrap();
        let spill = tempfile::tempdir().unwrap();
        let session = Session::builder(
            provider,
            ModelSettings::named(MODEL),
            runtime.clone(),
            SpillStore::new(spill.path().join("spill")),
        )
        .options(meta_options())
        .build();
        let log = EventLog::new();
        let approver = Asked::refusing();
        let ctx = TurnContext {
            events: &log,
            approver: &approver,
            cancel: CancellationToken::new(),
        };
        let mut conversation = Conversation::new();
        let outcome = session
            .run_turn(&mut conversation, "What does the fixed tool say?", &ctx)
            .await
            .unwrap_or_else(|e| panic!("{wire:?}: {e}"));
        let events = log.events();
        let finished: Vec<(ToolCallStatus, String)> = events
            .iter()
            .filter_map(|e| match e {
                SessionEvent::ToolCallFinished { status, output, .. } => {
                    Some((*status, output.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(finished.len(), 1, "{wire:?}: {events:?}");
        assert_eq!(finished[0].0, ToolCallStatus::Ok, "{wire:?}: {finished:?}");
        assert!(
            finished[0].1.contains("fixed output"),
            "{wire:?}: {finished:?}"
        );
        assert_eq!(
            streamed_text(&events),
            "The tool said: fixed output.",
            "{wire:?}"
        );
        assert_eq!(outcome.rounds, 2, "{wire:?}");
        // The second request carries the MCP tool's output in the wire's result shape.
        let requests = server.received_requests().await.unwrap();
        assert_eq!(requests.len(), 2, "{wire:?}");
        let second = String::from_utf8(requests[1].body.clone()).unwrap();
        assert!(second.contains("fixed output"), "{wire:?}: {second}");
        runtime.shutdown().await;
    }
}
