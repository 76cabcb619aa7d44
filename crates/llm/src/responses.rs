//! The OpenAI Responses API (`POST {api_base}/responses`, `api: responses` in config.yaml), on
//! OpenAI and on Azure OpenAI (URLs and headers from `openai_route`). This module builds the
//! request; `responses_stream` reads the answer.
//!
//! Mapping (why): the conversation is sent whole as `input` items each time (`store: false`:
//! nothing is kept on the server, so a conversation survives a model switch or a compaction);
//! tool calls and results are `function_call` / `function_call_output` items paired by
//! `call_id`; the reasoning items of an answer come back with `encrypted_content`
//! (`include: ["reasoning.encrypted_content"]`), are kept with the assistant message as replay
//! items, and are sent again before its calls, which reasoning models require to continue a
//! turn after a tool result. [`ToolChoice::None`] leaves the declarations out, as chat
//! completions does.

use std::sync::Arc;

use coyote_protocol::{ProviderConfig, ProviderKind};
use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::error::LlmError;
use crate::http::HttpCore;
use crate::openai::{history_arguments, object_schema};
use crate::openai_route::OpenAiRoute;
use crate::openai_stream::parse_model_list;
use crate::provider::Provider;
use crate::responses_stream::{RESPONSES_WIRE, ResponsesStreamParser, parse_response};
use crate::retry::{RetryClock, RetryPolicy};
use crate::stream::EventStream;
use crate::types::{ChatRequest, Message, StreamMode, ToolChoice};

/// A client for the Responses API.
#[derive(Debug)]
pub struct OpenAiResponses {
    core: HttpCore,
    route: OpenAiRoute,
    kind: ProviderKind,
}

impl OpenAiResponses {
    pub(crate) fn new(
        config: &ProviderConfig,
        retry: RetryPolicy,
        clock: Arc<dyn RetryClock>,
    ) -> Result<Self, LlmError> {
        Ok(OpenAiResponses {
            core: HttpCore::new(config, retry, clock)?,
            route: OpenAiRoute::new(config),
            kind: config.kind,
        })
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let mut body = serde_json::Map::new();
        body.insert("model".into(), json!(request.model));
        body.insert("input".into(), Value::Array(input_items(&request.messages)));
        if !request.tools.is_empty() && request.tool_choice != ToolChoice::None {
            let tools = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "type": "function",
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": object_schema(&tool.parameters),
                        "strict": false,
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            if request.tool_choice == ToolChoice::Required {
                body.insert("tool_choice".into(), json!("required"));
            }
        }
        if let Some(temperature) = request.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = request.max_tokens {
            body.insert("max_output_tokens".into(), json!(max_tokens));
        }
        body.insert("store".into(), json!(false));
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        body.insert(
            "stream".into(),
            json!(request.stream == StreamMode::Streaming),
        );
        Value::Object(body)
    }

    async fn send(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        let body = self
            .core
            .encode_turn(&request.messages, &self.body(request))?;
        let url = self.route.responses_url();
        let parser = ResponsesStreamParser::new(&self.core.provider);
        self.route
            .exchange(
                &self.core,
                (&url, body),
                request.stream,
                parser,
                parse_response,
            )
            .await
    }
}

impl Provider for OpenAiResponses {
    fn name(&self) -> &str {
        &self.core.provider
    }

    fn kind(&self) -> ProviderKind {
        self.kind
    }

    fn stream<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(self.send(request))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, LlmError>> {
        Box::pin(async move {
            let headers = self.route.headers(&self.core, "application/json").await?;
            let bytes = self.core.get(&self.route.models_url(), headers).await?;
            parse_model_list(&self.core.provider, &bytes)
        })
    }
}

/// The conversation as Responses `input` items.
fn input_items(messages: &[Message]) -> Vec<Value> {
    let mut items = Vec::new();
    for message in messages {
        match message {
            Message::System { text } => items.push(json!({"role": "system", "content": text})),
            Message::User { text, images } if images.is_empty() => {
                items.push(json!({"role": "user", "content": text}));
            }
            Message::User { text, images } => {
                let mut parts = vec![json!({"type": "input_text", "text": text})];
                parts.extend(images.iter().map(|image| {
                    let url = format!("data:{};base64,{}", image.media_type, image.data_base64);
                    json!({"type": "input_image", "image_url": url})
                }));
                items.push(json!({"role": "user", "content": parts}));
            }
            Message::Assistant(assistant) => {
                items.extend(assistant.replay_for(RESPONSES_WIRE).cloned());
                if !assistant.text.is_empty() {
                    items.push(json!({"role": "assistant", "content": assistant.text}));
                }
                items.extend(assistant.tool_calls.iter().map(|call| {
                    json!({
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": history_arguments(call),
                    })
                }));
            }
            Message::Tool(result) => items.push(json!({
                "type": "function_call_output",
                "call_id": result.call_id,
                "output": result.content,
            })),
        }
    }
    items
}
