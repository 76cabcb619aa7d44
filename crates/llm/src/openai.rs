//! OpenAI-compatible chat completions (`POST {api_base}/chat/completions`): OpenAI, Ollama's
//! `/v1`, vLLM, llama.cpp server, LM Studio, the hosted presets, and Azure OpenAI deployments
//! (URLs and headers from `openai_route`). This module builds the request body;
//! `openai_stream` reads the answer.
//!
//! Wire choices (why): `tools` is omitted when empty (several local servers reject `[]`); the
//! server's [`Quirks`] decide the rest: streaming requests ask for
//! `stream_options.include_usage` (the only way to get usage from OpenAI while streaming)
//! unless the server refuses the field; the output limit is `max_completion_tokens` on OpenAI
//! and Azure (their newer models refuse `max_tokens`) and `max_tokens` elsewhere (what
//! compatible servers read); local servers get `parallel_tool_calls: true` with declarations;
//! an assistant message that only called tools carries `content: null`. [`ToolChoice::None`]
//! leaves the declarations out instead of sending `tool_choice: "none"`: llama.cpp's server
//! still renders declared tools into the prompt under "none", and a small model then keeps
//! writing calls as text; with no declarations every compatible server asks for text.

use std::sync::Arc;

use coyote_protocol::{
    MaxTokensField, ParallelToolCalls, ProviderConfig, ProviderKind, Quirks, StreamUsage,
};
use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::error::LlmError;
use crate::http::HttpCore;
use crate::openai_route::OpenAiRoute;
use crate::openai_stream::{OpenAiStreamParser, parse_completion, parse_model_list};
use crate::provider::Provider;
use crate::retry::{RetryClock, RetryPolicy};
use crate::stream::EventStream;
use crate::types::{ChatRequest, Message, StreamMode, ToolChoice};

/// A client for one OpenAI-compatible chat-completions server (or an Azure OpenAI resource).
#[derive(Debug)]
pub struct OpenAiCompatible {
    core: HttpCore,
    route: OpenAiRoute,
    quirks: Quirks,
    kind: ProviderKind,
}

impl OpenAiCompatible {
    pub(crate) fn new(
        config: &ProviderConfig,
        retry: RetryPolicy,
        clock: Arc<dyn RetryClock>,
    ) -> Result<Self, LlmError> {
        Ok(OpenAiCompatible {
            core: HttpCore::new(config, retry, clock)?,
            route: OpenAiRoute::new(config),
            quirks: config.quirks,
            kind: config.kind,
        })
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
            if self.quirks.parallel_tool_calls == ParallelToolCalls::Ask {
                body.insert("parallel_tool_calls".into(), json!(true));
            }
        }
        if let Some(temperature) = request.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = request.max_tokens {
            let field = match self.quirks.max_tokens_field {
                MaxTokensField::MaxTokens => "max_tokens",
                MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            };
            body.insert(field.into(), json!(max_tokens));
        }
        match request.stream {
            StreamMode::Streaming => {
                body.insert("stream".into(), json!(true));
                if self.quirks.stream_usage == StreamUsage::Ask {
                    body.insert("stream_options".into(), json!({"include_usage": true}));
                }
            }
            StreamMode::Whole => {
                body.insert("stream".into(), json!(false));
            }
        }
        Value::Object(body)
    }

    async fn send(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        let body = self
            .core
            .encode_turn(&request.messages, &self.body(request))?;
        let url = self.route.chat_url(&request.model);
        let parser = OpenAiStreamParser::new(&self.core.provider);
        self.route
            .exchange(
                &self.core,
                (&url, body),
                request.stream,
                parser,
                parse_completion,
            )
            .await
    }
}

impl Provider for OpenAiCompatible {
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
                        let arguments = history_arguments(call);
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

/// A call's arguments as sent back in the history: the model's own text when it is a JSON
/// object; anything else (blank, cut off, not an object) becomes `{}`: servers that re-parse the
/// history's arguments (llama.cpp) refuse the whole request otherwise, and the call's result
/// already told the model what was wrong with it.
pub(crate) fn history_arguments(call: &crate::types::ToolCall) -> &str {
    if !call.arguments.trim().is_empty() && call.parse_arguments().is_ok() {
        &call.arguments
    } else {
        "{}"
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
                replay: Vec::new(),
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
