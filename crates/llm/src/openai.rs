//! OpenAI-compatible chat completions (`POST {api_base}/chat/completions`): OpenAI, Ollama's
//! `/v1`, vLLM, llama.cpp server, LM Studio, OpenRouter, Groq. This module builds the request
//! body; `openai_stream` reads the answer.
//!
//! Wire choices (why): `tools` is omitted when empty (several local servers reject `[]`);
//! streaming requests ask for `stream_options.include_usage` (the only way to get usage from
//! OpenAI while streaming); the output limit is `max_completion_tokens` on api.openai.com (its
//! newer models refuse `max_tokens`) and `max_tokens` elsewhere (what compatible servers read),
//! where declarations also come with `parallel_tool_calls: true` (see [`Dialect`]);
//! an assistant message that only called tools carries `content: null`. [`ToolChoice::None`]
//! leaves the declarations out instead of sending `tool_choice: "none"`: llama.cpp's server
//! still renders declared tools into the prompt under "none", and a small model then keeps
//! writing calls as text; with no declarations every compatible server asks for text.

use std::sync::Arc;

use bytes::Bytes;
use coyote_protocol::{ProviderConfig, ProviderKind};
use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue};
use serde_json::{Value, json};

use crate::error::LlmError;
use crate::http::HttpCore;
use crate::openai_stream::{OpenAiStreamParser, parse_completion, parse_model_list};
use crate::provider::Provider;
use crate::retry::{RetryClock, RetryPolicy};
use crate::stream::{EventStream, ready_event_stream, sse_event_stream};
use crate::types::{ChatRequest, Message, StreamMode, ToolChoice};
use crate::validate::validate_conversation;

/// Which kind of server this is, for the few fields they disagree on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// api.openai.com: `max_completion_tokens`; parallel tool calls are its default (and its
    /// reasoning models refuse the `parallel_tool_calls` field).
    OpenAi,
    /// Everything else: `max_tokens`; `parallel_tool_calls: true` is sent with declarations,
    /// because llama.cpp's server otherwise accepts one call per message and answers a second
    /// with HTTP 500.
    Compatible,
}

/// A client for one OpenAI-compatible server.
#[derive(Debug)]
pub struct OpenAiCompatible {
    core: HttpCore,
    chat_url: String,
    models_url: String,
    dialect: Dialect,
}

impl OpenAiCompatible {
    pub(crate) fn new(
        config: &ProviderConfig,
        retry: RetryPolicy,
        clock: Arc<dyn RetryClock>,
    ) -> Result<Self, LlmError> {
        let core = HttpCore::new(config, retry, clock)?;
        let base = config.api_base.trim_end_matches('/');
        let is_openai = url::Url::parse(base)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .as_deref()
            == Some("api.openai.com");
        Ok(OpenAiCompatible {
            core,
            chat_url: format!("{base}/chat/completions"),
            models_url: format!("{base}/models"),
            dialect: if is_openai {
                Dialect::OpenAi
            } else {
                Dialect::Compatible
            },
        })
    }

    fn headers(&self, accept: &'static str) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        if let Some(key) = self.core.key() {
            headers.insert(
                AUTHORIZATION,
                self.core
                    .secret_header(format!("Bearer {}", key.expose_secret()))?,
            );
        }
        Ok(headers)
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let mut body = serde_json::Map::new();
        body.insert("model".into(), json!(request.model));
        body.insert(
            "messages".into(),
            Value::Array(request.messages.iter().map(wire_message).collect()),
        );
        if !request.tools.is_empty() && request.tool_choice != ToolChoice::None {
            let tools = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": tool.name,
                            "description": tool.description,
                            "parameters": object_schema(&tool.parameters),
                        }
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            if request.tool_choice == ToolChoice::Required {
                body.insert("tool_choice".into(), json!("required"));
            }
            if self.dialect == Dialect::Compatible {
                body.insert("parallel_tool_calls".into(), json!(true));
            }
        }
        if let Some(temperature) = request.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = request.max_tokens {
            let field = match self.dialect {
                Dialect::Compatible => "max_tokens",
                Dialect::OpenAi => "max_completion_tokens",
            };
            body.insert(field.into(), json!(max_tokens));
        }
        match request.stream {
            StreamMode::Streaming => {
                body.insert("stream".into(), json!(true));
                body.insert("stream_options".into(), json!({"include_usage": true}));
            }
            StreamMode::Whole => {
                body.insert("stream".into(), json!(false));
            }
        }
        Value::Object(body)
    }

    async fn send(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        validate_conversation(&request.messages)?;
        let body = Bytes::from(serde_json::to_vec(&self.body(request)).map_err(|e| {
            LlmError::protocol(
                &self.core.provider,
                format!("cannot encode the request: {e}"),
            )
        })?);
        let provider = &self.core.provider;
        match request.stream {
            StreamMode::Streaming => {
                let response = self
                    .core
                    .post_json(&self.chat_url, self.headers("text/event-stream")?, body)
                    .await?;
                Ok(sse_event_stream(
                    provider,
                    response.bytes_stream(),
                    OpenAiStreamParser::new(provider),
                    self.core.idle_timeout,
                ))
            }
            StreamMode::Whole => {
                let response = self
                    .core
                    .post_json(&self.chat_url, self.headers("application/json")?, body)
                    .await?;
                let bytes = self
                    .core
                    .read_body(response, crate::http::MAX_RESPONSE_BYTES)
                    .await?;
                Ok(ready_event_stream(parse_completion(provider, &bytes)?))
            }
        }
    }
}

impl Provider for OpenAiCompatible {
    fn name(&self) -> &str {
        &self.core.provider
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenAiCompatible
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
                .get(&self.models_url, self.headers("application/json")?)
                .await?;
            parse_model_list(&self.core.provider, &bytes)
        })
    }
}

fn wire_message(message: &Message) -> Value {
    match message {
        Message::System { text } => json!({"role": "system", "content": text}),
        Message::User { text, images } if images.is_empty() => {
            json!({"role": "user", "content": text})
        }
        Message::User { text, images } => {
            let mut parts = vec![json!({"type": "text", "text": text})];
            parts.extend(images.iter().map(|image| {
                let url = format!("data:{};base64,{}", image.media_type, image.data_base64);
                json!({"type": "image_url", "image_url": {"url": url}})
            }));
            json!({"role": "user", "content": parts})
        }
        Message::Assistant(assistant) => {
            let mut wire = serde_json::Map::new();
            wire.insert("role".into(), json!("assistant"));
            let content = if assistant.text.is_empty() && !assistant.tool_calls.is_empty() {
                Value::Null
            } else {
                json!(assistant.text)
            };
            wire.insert("content".into(), content);
            if !assistant.tool_calls.is_empty() {
                let calls = assistant
                    .tool_calls
                    .iter()
                    .map(|call| {
                        // Echo the model's own text when it is a JSON object; anything else
                        // (blank, cut off, not an object) becomes `{}`: servers that re-parse
                        // the history's arguments (llama.cpp) refuse the whole request
                        // otherwise, and the call's result already told the model what was
                        // wrong with it.
                        let arguments = if !call.arguments.trim().is_empty()
                            && call.parse_arguments().is_ok()
                        {
                            &call.arguments
                        } else {
                            "{}"
                        };
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": arguments},
                        })
                    })
                    .collect();
                wire.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(wire)
        }
        Message::Tool(result) => json!({
            "role": "tool",
            "tool_call_id": result.call_id,
            "content": result.content,
        }),
    }
}

/// Providers require an object schema; MCP tools always have one, but a missing or malformed
/// schema must not make the whole request fail.
pub(crate) fn object_schema(parameters: &Value) -> Value {
    match parameters {
        Value::Object(map) if !map.is_empty() => parameters.clone(),
        _ => json!({"type": "object", "properties": {}}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::TokioClock;

    fn body_for(base: &str) -> Value {
        body_with(base, |r| r)
    }

    fn body_with(base: &str, edit: impl FnOnce(ChatRequest) -> ChatRequest) -> Value {
        let config = ProviderConfig::new(ProviderKind::OpenAiCompatible, "t", base);
        let provider =
            OpenAiCompatible::new(&config, RetryPolicy::none(), Arc::new(TokioClock)).unwrap();
        let request = ChatRequest::new("m", vec![Message::user("hi")])
            .with_max_tokens(64)
            .with_stream(StreamMode::Whole);
        provider.body(&edit(request))
    }

    #[test]
    fn history_arguments_that_are_not_a_json_object_are_sent_as_an_empty_object() {
        let calls = ["{\"tool\": \"cut off", "[1]", " ", "{\"a\": 1}"];
        let messages = vec![
            Message::user("hi"),
            Message::assistant(crate::AssistantMessage {
                text: String::new(),
                tool_calls: calls
                    .iter()
                    .enumerate()
                    .map(|(i, a)| crate::ToolCall::new(format!("c{i}"), "f", *a))
                    .collect(),
            }),
        ];
        let mut messages = messages;
        for i in 0..calls.len() {
            messages.push(Message::tool_result(crate::ToolResult::error(
                format!("c{i}"),
                "bad arguments",
            )));
        }
        let body = body_with("http://127.0.0.1:8080/v1", |r| ChatRequest {
            messages,
            ..r
        });
        let sent: Vec<&Value> = body["messages"][1]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| &c["function"]["arguments"])
            .collect();
        assert_eq!(
            sent,
            vec![
                &json!("{}"),
                &json!("{}"),
                &json!("{}"),
                &json!("{\"a\": 1}")
            ]
        );
    }

    #[test]
    fn parallel_tool_calls_are_asked_for_with_declarations_except_on_openai() {
        let tools = || {
            vec![coyote_protocol::FunctionDeclaration {
                name: "f".into(),
                description: "d".into(),
                parameters: json!({"type": "object", "properties": {}}),
            }]
        };
        let field = |base: &str, choice: ToolChoice| {
            body_with(base, |r| r.with_tools(tools()).with_tool_choice(choice))
                .get("parallel_tool_calls")
                .cloned()
        };
        let local = "http://127.0.0.1:8080/v1";
        assert_eq!(field(local, ToolChoice::Auto), Some(json!(true)));
        assert_eq!(field(local, ToolChoice::Required), Some(json!(true)));
        assert_eq!(field(local, ToolChoice::None), None);
        assert_eq!(body_for(local).get("parallel_tool_calls"), None);
        assert_eq!(field("https://api.openai.com/v1", ToolChoice::Auto), None);
    }

    #[test]
    fn output_limit_field_depends_on_the_server() {
        let openai = body_for("https://api.openai.com/v1");
        assert_eq!(
            (
                openai.get("max_completion_tokens"),
                openai.get("max_tokens")
            ),
            (Some(&json!(64)), None)
        );
        let local = body_for("http://127.0.0.1:8080/v1");
        assert_eq!(
            (local.get("max_tokens"), local.get("max_completion_tokens")),
            (Some(&json!(64)), None)
        );
    }

    #[test]
    fn a_bad_api_base_is_a_config_error() {
        let config = ProviderConfig::new(ProviderKind::OpenAiCompatible, "t", "localhost:8080");
        let error =
            OpenAiCompatible::new(&config, RetryPolicy::none(), Arc::new(TokioClock)).unwrap_err();
        assert!(matches!(error, LlmError::Config { .. }), "{error:?}");
    }
}
