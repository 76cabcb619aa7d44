//! Ollama's native chat API (`POST {api_base}/api/chat`, `type: ollama`), beside its
//! OpenAI-compatible `/v1` (which `openai-compatible` reaches): request building, the JSON-lines
//! answer, and the model list (`GET /api/tags`).
//!
//! Mapping (why): images go in the message's `images` (base64, no media type); tool calls are
//! sent back with their arguments as objects (Ollama's shape; unparseable ones become `{}`);
//! tool results are `tool` messages naming the function (`tool_name`), since Ollama has no call
//! ids of its own; `temperature` and the output limit (`num_predict`) go in `options`.
//! Calls arrive whole, one JSON line each; a line `{"error": …}` is an error mid-answer; the
//! answer ends at the line with `done: true`.
//! Wire reference: <https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion>.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use coyote_protocol::{ProviderConfig, ProviderKind};
use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue};
use serde_json::{Value, json};

use crate::error::LlmError;
use crate::error_body::{ErrorInfo, in_band_error};
use crate::event::StreamEvent;
use crate::framing::Framing;
use crate::http::HttpCore;
use crate::openai::object_schema;
use crate::openai_stream::finish_reason;
use crate::provider::Provider;
use crate::retry::{RetryClock, RetryPolicy};
use crate::sse::SseEvent;
use crate::stream::{EventStream, Flow, WireParser, ready_event_stream};
use crate::types::{ChatRequest, Message, StreamMode, ToolChoice, Usage};

/// A client for Ollama's native API.
#[derive(Debug)]
pub struct Ollama {
    core: HttpCore,
    root: String,
}

impl Ollama {
    pub(crate) fn new(
        config: &ProviderConfig,
        retry: RetryPolicy,
        clock: Arc<dyn RetryClock>,
    ) -> Result<Self, LlmError> {
        let base = config.api_base.trim_end_matches('/');
        // Accept the host root (documented) and a base that ends in /api or /v1.
        let root = base
            .strip_suffix("/api")
            .or_else(|| base.strip_suffix("/v1"))
            .unwrap_or(base);
        Ok(Ollama {
            core: HttpCore::new(config, retry, clock)?,
            root: root.to_string(),
        })
    }

    async fn headers(&self, accept: &'static str) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        // A key is only needed behind an authenticating proxy (or ollama.com).
        if let Some(key) = self.core.key().await? {
            headers.insert(
                AUTHORIZATION,
                self.core
                    .secret_header(format!("Bearer {}", key.expose_secret()))?,
            );
        }
        Ok(headers)
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let mut names: HashMap<&str, &str> = HashMap::new();
        let mut messages = Vec::new();
        for message in &request.messages {
            messages.push(match message {
                Message::System { text } => json!({"role": "system", "content": text}),
                Message::User { text, images } => {
                    let mut wire = json!({"role": "user", "content": text});
                    if !images.is_empty() {
                        wire["images"] = images.iter().map(|i| json!(i.data_base64)).collect();
                    }
                    wire
                }
                Message::Assistant(assistant) => {
                    let mut wire = json!({"role": "assistant", "content": assistant.text});
                    if !assistant.tool_calls.is_empty() {
                        let calls: Vec<Value> = assistant
                            .tool_calls
                            .iter()
                            .map(|call| {
                                names.insert(&call.id, &call.name);
                                let arguments = call
                                    .parse_arguments()
                                    .map(Value::Object)
                                    .unwrap_or_else(|_| json!({}));
                                json!({"function": {"name": call.name, "arguments": arguments}})
                            })
                            .collect();
                        wire["tool_calls"] = Value::Array(calls);
                    }
                    wire
                }
                Message::Tool(result) => json!({
                    "role": "tool",
                    "content": result.content,
                    "tool_name": names.get(result.call_id.as_str()).copied().unwrap_or_default(),
                }),
            });
        }
        let mut body = serde_json::Map::new();
        body.insert("model".into(), json!(request.model));
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() && request.tool_choice != ToolChoice::None {
            let tools = request
                .tools
                .iter()
                .map(|tool| {
                    json!({"type": "function", "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": object_schema(&tool.parameters),
                    }})
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        let mut options = serde_json::Map::new();
        if let Some(temperature) = request.temperature {
            options.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = request.max_tokens {
            options.insert("num_predict".into(), json!(max_tokens));
        }
        if !options.is_empty() {
            body.insert("options".into(), Value::Object(options));
        }
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
        let provider = &self.core.provider;
        let url = format!("{}/api/chat", self.root);
        let headers = self.headers("application/x-ndjson").await?;
        match request.stream {
            StreamMode::Streaming => {
                let parser = OllamaParser::new(provider);
                (self.core)
                    .post_framed((&url, headers), body, Framing::lines(), parser)
                    .await
            }
            StreamMode::Whole => {
                let bytes = self.core.post_whole(&url, headers, body).await?;
                let mut parser = OllamaParser::new(provider);
                let mut out = VecDeque::new();
                let data = String::from_utf8_lossy(&bytes).into_owned();
                if parser.on_event(SseEvent { event: None, data }, &mut out)? == Flow::Continue {
                    parser.on_eof(&mut out)?;
                }
                Ok(ready_event_stream(out.into()))
            }
        }
    }
}

impl Provider for Ollama {
    fn name(&self) -> &str {
        &self.core.provider
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Ollama
    }

    fn stream<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(self.send(request))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, LlmError>> {
        Box::pin(async move {
            let url = format!("{}/api/tags", self.root);
            let headers = self.headers("application/json").await?;
            let list = self.core.get_json(&url, headers, "Ollama").await?;
            Ok(list["models"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m["name"].as_str().or(m["model"].as_str()))
                .map(str::to_string)
                .collect())
        })
    }
}

/// Stream state of one Ollama answer.
#[derive(Debug)]
struct OllamaParser {
    provider: String,
    calls: usize,
}

impl OllamaParser {
    fn new(provider: &str) -> Self {
        OllamaParser {
            provider: provider.to_string(),
            calls: 0,
        }
    }
}

impl WireParser for OllamaParser {
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, LlmError> {
        let line: Value = serde_json::from_str(&event.data).map_err(|e| {
            LlmError::protocol(
                &self.provider,
                format!("a streamed line is not valid JSON ({e})"),
            )
        })?;
        if let Some(error) = line.get("error") {
            return Err(in_band_error(
                &self.provider,
                &ErrorInfo::from_value(error, error.to_string()),
            ));
        }
        let message = &line["message"];
        if let Some(text) = message["thinking"].as_str().filter(|t| !t.is_empty()) {
            out.push_back(StreamEvent::ReasoningDelta(text.to_string()));
        }
        if let Some(text) = message["content"].as_str().filter(|t| !t.is_empty()) {
            out.push_back(StreamEvent::TextDelta(text.to_string()));
        }
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            let index = self.calls;
            self.calls += 1;
            let function = &call["function"];
            let name = function["name"].as_str().unwrap_or_default().to_string();
            if name.is_empty() {
                return Err(LlmError::protocol(
                    &self.provider,
                    format!("tool call #{index} arrived without a name"),
                ));
            }
            let id = call["id"]
                .as_str()
                .filter(|id| !id.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| format!("call_ollama_{index}"));
            let arguments = match &function["arguments"] {
                Value::String(text) => text.clone(),
                Value::Null => "{}".to_string(),
                other => other.to_string(),
            };
            out.extend(StreamEvent::whole_call(index, id, name, arguments));
        }
        if line["done"].as_bool() != Some(true) {
            return Ok(Flow::Continue);
        }
        if line.get("prompt_eval_count").is_some() || line.get("eval_count").is_some() {
            out.push_back(StreamEvent::Usage(Usage {
                input: line["prompt_eval_count"].as_u64().unwrap_or(0),
                output: line["eval_count"].as_u64().unwrap_or(0),
            }));
        }
        let finish_reason = match line["done_reason"].as_str() {
            _ if self.calls > 0 => crate::types::FinishReason::ToolCalls,
            Some(reason) => finish_reason(reason),
            None => crate::types::FinishReason::Stop,
        };
        out.push_back(StreamEvent::Done { finish_reason });
        Ok(Flow::Done)
    }

    fn on_eof(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        Err(LlmError::protocol(
            &self.provider,
            "the stream ended before the model finished (no line with \"done\": true)",
        ))
    }
}
