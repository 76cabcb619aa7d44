//! Anthropic Messages API (`POST {api_base}/v1/messages`): request building and the provider.
//! `anthropic_stream` reads the answer.
//!
//! Mapping (why): all system text goes to the `system` parameter (the API has no system role);
//! tool results become `tool_result` blocks of a user message, and consecutive same-role
//! messages are merged into one, because the API wants one user turn carrying every result of
//! the preceding assistant turn; raw tool-call arguments are parsed back into the `input`
//! object the API requires (unparseable ones become `{}`, logged — the tool already got an
//! error result for them); `max_tokens` is mandatory, so a default is sent when unset.

use std::sync::Arc;

use coyote_protocol::{ProviderConfig, ProviderKind};
use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::anthropic_stream::{AnthropicStreamParser, parse_message};
use crate::error::LlmError;
use crate::framing::Framing;
use crate::http::HttpCore;
use crate::openai::object_schema;
use crate::openai_stream::parse_model_list;
use crate::provider::Provider;
use crate::retry::{RetryClock, RetryPolicy};
use crate::stream::{EventStream, ready_event_stream};
use crate::types::{ChatRequest, Message, StreamMode, ToolCall, ToolChoice, ToolOutcome};

/// The API version we speak.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Output limit sent to Anthropic when neither the request nor the model config sets one
/// (the API requires the field; 4096 is accepted by every Claude model).
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: u32 = 4096;

/// A client for the Anthropic Messages API.
#[derive(Debug)]
pub struct Anthropic {
    core: HttpCore,
    messages_url: String,
    models_url: String,
}

impl Anthropic {
    pub(crate) fn new(
        config: &ProviderConfig,
        retry: RetryPolicy,
        clock: Arc<dyn RetryClock>,
    ) -> Result<Self, LlmError> {
        let core = HttpCore::new(config, retry, clock)?;
        let base = config.api_base.trim_end_matches('/');
        // Accept both the host root (documented) and a base that already ends in /v1.
        let root = base.strip_suffix("/v1").unwrap_or(base);
        Ok(Anthropic {
            core,
            messages_url: format!("{root}/v1/messages"),
            models_url: format!("{root}/v1/models"),
        })
    }

    async fn headers(&self, accept: &'static str) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        if let Some(key) = self.core.key().await? {
            headers.insert(
                HeaderName::from_static("x-api-key"),
                self.core.secret_header(key.expose_secret().to_string())?,
            );
        }
        Ok(headers)
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let mut system = Vec::new();
        let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
        for message in &request.messages {
            let (role, blocks) = match message {
                Message::System { text } => {
                    system.push(text.as_str());
                    continue;
                }
                Message::User { text, images } => {
                    let mut blocks = vec![json!({"type": "text", "text": text})];
                    blocks.extend(images.iter().map(|image| {
                        json!({"type": "image", "source": {"type": "base64",
                            "media_type": image.media_type, "data": image.data_base64}})
                    }));
                    ("user", blocks)
                }
                Message::Assistant(assistant) => {
                    let mut blocks = Vec::new();
                    if !assistant.text.is_empty() {
                        blocks.push(json!({"type": "text", "text": assistant.text}));
                    }
                    blocks.extend(assistant.tool_calls.iter().map(|call| self.tool_use(call)));
                    ("assistant", blocks)
                }
                Message::Tool(result) => {
                    let mut block = json!({
                        "type": "tool_result",
                        "tool_use_id": result.call_id,
                        "content": result.content,
                    });
                    if result.outcome == ToolOutcome::Error {
                        block["is_error"] = json!(true);
                    }
                    ("user", vec![block])
                }
            };
            match messages.last_mut() {
                Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
                _ => messages.push((role, blocks)),
            }
        }

        let mut body = serde_json::Map::new();
        body.insert("model".into(), json!(request.model));
        body.insert(
            "max_tokens".into(),
            json!(request.max_tokens.unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS)),
        );
        if !system.is_empty() {
            body.insert("system".into(), json!(system.join("\n\n")));
        }
        let messages = messages
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect();
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() {
            let tools = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "name": tool.name,
                        "description": tool.description,
                        "input_schema": object_schema(&tool.parameters),
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            // Anthropic needs the declarations whenever the history holds tool_use blocks, so
            // "answer in text" is its own tool_choice here.
            match request.tool_choice {
                ToolChoice::Auto => {}
                ToolChoice::Required => {
                    body.insert("tool_choice".into(), json!({"type": "any"}));
                }
                ToolChoice::None => {
                    body.insert("tool_choice".into(), json!({"type": "none"}));
                }
            }
        }
        if let Some(temperature) = request.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        body.insert(
            "stream".into(),
            json!(request.stream == StreamMode::Streaming),
        );
        Value::Object(body)
    }

    fn tool_use(&self, call: &ToolCall) -> Value {
        let input = match call.parse_arguments() {
            Ok(map) => Value::Object(map),
            Err(error) => {
                tracing::warn!(provider = %self.core.provider, %error, "sending `{{}}` as the input of an unparseable tool call");
                json!({})
            }
        };
        json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input})
    }

    async fn send(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        let body = self
            .core
            .encode_turn(&request.messages, &self.body(request))?;
        let provider = &self.core.provider;
        let url = &self.messages_url;
        match request.stream {
            StreamMode::Streaming => {
                let headers = self.headers("text/event-stream").await?;
                let parser = AnthropicStreamParser::new(provider);
                (self.core)
                    .post_framed((url, headers), body, Framing::sse(), parser)
                    .await
            }
            StreamMode::Whole => {
                let headers = self.headers("application/json").await?;
                let bytes = self.core.post_whole(url, headers, body).await?;
                Ok(ready_event_stream(parse_message(provider, &bytes)?))
            }
        }
    }
}

impl Provider for Anthropic {
    fn name(&self) -> &str {
        &self.core.provider
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    fn stream<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(self.send(request))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, LlmError>> {
        Box::pin(async move {
            let bytes = self
                .core
                .get(&self.models_url, self.headers("application/json").await?)
                .await?;
            parse_model_list(&self.core.provider, &bytes)
        })
    }
}
