//! Google Gemini's native API (`type: gemini`): `POST {api_base}/models/{model}:
//! streamGenerateContent?alt=sse` (SSE) or `:generateContent` (whole), key in
//! `x-goog-api-key`; the model list is `GET {api_base}/models`. `gemini_stream` reads answers,
//! `gemini_schema` converts tool schemas.
//!
//! Mapping (why): system text goes to `systemInstruction`; the assistant is role `model`;
//! consecutive same-role turns are merged (tool results must arrive together, one
//! `functionResponse` per call, in one user turn); results are objects (`{"result": …}`, or
//! `{"error": …}` for a failed call) because Gemini requires an object; `thoughtSignature`s
//! from the answer are kept as replay items and sent back on the parts they came with, which
//! Gemini requires to continue a turn after a function call; thoughts are asked for
//! (`includeThoughts`) except from models that cannot think ([`NO_THINKING_PREFIXES`]).
//! Tool schemas outside Gemini's subset are converted; what was dropped is reported once per
//! tool as a [`StreamEvent::Warning`].
//! Wire reference: <https://ai.google.dev/api/generate-content>.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use coyote_protocol::{ProviderConfig, ProviderKind};
use futures::StreamExt;
use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::error::LlmError;
use crate::event::StreamEvent;
use crate::framing::Framing;
use crate::gemini_schema::convert;
use crate::gemini_stream::{GEMINI_WIRE, GeminiParser, SYNTHETIC_ID_PREFIX, parse_whole};
use crate::http::{HttpCore, encode_path_segment};
use crate::provider::Provider;
use crate::retry::{RetryClock, RetryPolicy};
use crate::stream::{EventStream, ready_event_stream};
use crate::types::{ChatRequest, Message, StreamMode, ToolChoice, ToolOutcome};

/// Model-name prefixes of Gemini models that refuse `thinkingConfig`.
pub const NO_THINKING_PREFIXES: [&str; 3] = ["gemini-1.", "gemini-2.0-", "gemma-"];

/// A client for the Gemini API.
#[derive(Debug)]
pub struct Gemini {
    core: HttpCore,
    base: String,
    /// Tools whose schema problems were already reported.
    reported: Mutex<BTreeSet<String>>,
}

impl Gemini {
    pub(crate) fn new(
        config: &ProviderConfig,
        retry: RetryPolicy,
        clock: Arc<dyn RetryClock>,
    ) -> Result<Self, LlmError> {
        Ok(Gemini {
            core: HttpCore::new(config, retry, clock)?,
            base: config.api_base.trim_end_matches('/').to_string(),
            reported: Mutex::new(BTreeSet::new()),
        })
    }

    async fn headers(&self, accept: &'static str) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        if let Some(key) = self.core.key().await? {
            headers.insert(
                HeaderName::from_static("x-goog-api-key"),
                self.core.secret_header(key.expose_secret().to_string())?,
            );
        }
        Ok(headers)
    }

    /// The request body and the warnings not reported before.
    fn body(&self, request: &ChatRequest) -> (Value, Vec<String>) {
        let (system, contents) = contents(&request.messages);
        let mut body = serde_json::Map::new();
        if !system.is_empty() {
            body.insert(
                "systemInstruction".into(),
                json!({"parts": [{"text": system.join("\n\n")}]}),
            );
        }
        body.insert("contents".into(), Value::Array(contents));
        let mut warnings = Vec::new();
        if !request.tools.is_empty() {
            let mut declarations = Vec::new();
            for tool in &request.tools {
                let converted = convert(&tool.parameters);
                if !converted.dropped.is_empty() && self.first_report(&tool.name) {
                    warnings.push(format!(
                        "Gemini cannot take the whole input schema of tool `{}`; sent without: {}",
                        tool.name,
                        converted.dropped.join("; ")
                    ));
                }
                declarations.push(json!({
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": converted.schema,
                }));
            }
            body.insert(
                "tools".into(),
                json!([{"functionDeclarations": declarations}]),
            );
            let mode = match request.tool_choice {
                ToolChoice::Auto => "AUTO",
                ToolChoice::Required => "ANY",
                ToolChoice::None => "NONE",
            };
            body.insert(
                "toolConfig".into(),
                json!({"functionCallingConfig": {"mode": mode}}),
            );
        }
        let mut generation = serde_json::Map::new();
        if let Some(temperature) = request.temperature {
            generation.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = request.max_tokens {
            generation.insert("maxOutputTokens".into(), json!(max_tokens));
        }
        if !NO_THINKING_PREFIXES
            .iter()
            .any(|p| request.model.starts_with(p))
        {
            generation.insert("thinkingConfig".into(), json!({"includeThoughts": true}));
        }
        body.insert("generationConfig".into(), Value::Object(generation));
        (Value::Object(body), warnings)
    }

    fn first_report(&self, tool: &str) -> bool {
        match self.reported.lock() {
            Ok(mut reported) => reported.insert(tool.to_string()),
            Err(_) => false,
        }
    }

    fn model_url(&self, model: &str, method: &str) -> String {
        // `models/x` and `x` both name a model.
        let model = model.strip_prefix("models/").unwrap_or(model);
        format!(
            "{}/models/{}:{method}",
            self.base,
            encode_path_segment(model)
        )
    }

    async fn send(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        let (body, warnings) = self.body(request);
        let body = self.core.encode_turn(&request.messages, &body)?;
        let provider = &self.core.provider;
        let warnings =
            futures::stream::iter(warnings.into_iter().map(|w| Ok(StreamEvent::Warning(w))));
        match request.stream {
            StreamMode::Streaming => {
                let url = format!(
                    "{}?alt=sse",
                    self.model_url(&request.model, "streamGenerateContent")
                );
                let headers = self.headers("text/event-stream").await?;
                let parser = GeminiParser::new(provider);
                let events = (self.core)
                    .post_framed((&url, headers), body, Framing::sse(), parser)
                    .await?;
                Ok(warnings.chain(events).boxed())
            }
            StreamMode::Whole => {
                let url = self.model_url(&request.model, "generateContent");
                let headers = self.headers("application/json").await?;
                let bytes = self.core.post_whole(&url, headers, body).await?;
                let events = ready_event_stream(parse_whole(provider, &bytes)?);
                Ok(warnings.chain(events).boxed())
            }
        }
    }
}

impl Provider for Gemini {
    fn name(&self) -> &str {
        &self.core.provider
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Gemini
    }

    fn stream<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(self.send(request))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, LlmError>> {
        Box::pin(async move {
            let url = format!("{}/models?pageSize=1000", self.base);
            let headers = self.headers("application/json").await?;
            let list = self.core.get_json(&url, headers, "Gemini").await?;
            // Only models that can chat; names without the `models/` prefix, as `-m` takes them.
            Ok(list["models"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| {
                    m["supportedGenerationMethods"]
                        .as_array()
                        .is_none_or(|methods| methods.iter().any(|x| x == "generateContent"))
                })
                .filter_map(|m| m["name"].as_str())
                .map(|name| name.strip_prefix("models/").unwrap_or(name).to_string())
                .collect())
        })
    }
}

/// System text and the `contents` turns: same-role messages merged into one turn.
fn contents(messages: &[Message]) -> (Vec<&str>, Vec<Value>) {
    let mut system = Vec::new();
    let mut contents: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut names: HashMap<&str, &str> = HashMap::new();
    for message in messages {
        let (role, parts) = match message {
            Message::System { text } => {
                system.push(text.as_str());
                continue;
            }
            Message::User { text, images } => {
                let mut parts = vec![json!({"text": text})];
                parts.extend(images.iter().map(|image| {
                    json!({"inlineData": {"mimeType": image.media_type, "data": image.data_base64}})
                }));
                ("user", parts)
            }
            Message::Assistant(assistant) => {
                let signatures: HashMap<String, Value> = assistant
                    .replay_for(GEMINI_WIRE)
                    .filter_map(|item| {
                        let key = item["call_id"].as_str().unwrap_or("").to_string();
                        Some((key, item.get("thoughtSignature")?.clone()))
                    })
                    .collect();
                let mut parts = Vec::new();
                if !assistant.text.is_empty() {
                    let mut part = json!({"text": assistant.text});
                    if let Some(signature) = signatures.get("") {
                        part["thoughtSignature"] = signature.clone();
                    }
                    parts.push(part);
                }
                for call in &assistant.tool_calls {
                    names.insert(&call.id, &call.name);
                    let args = call
                        .parse_arguments()
                        .map(Value::Object)
                        .unwrap_or_else(|_| json!({}));
                    let mut function = json!({"name": call.name, "args": args});
                    if !call.id.starts_with(SYNTHETIC_ID_PREFIX) {
                        function["id"] = json!(call.id);
                    }
                    let mut part = json!({"functionCall": function});
                    if let Some(signature) = signatures.get(&call.id) {
                        part["thoughtSignature"] = signature.clone();
                    }
                    parts.push(part);
                }
                ("model", parts)
            }
            Message::Tool(result) => {
                let key = match result.outcome {
                    ToolOutcome::Success => "result",
                    ToolOutcome::Error => "error",
                };
                let name = names.get(result.call_id.as_str()).copied().unwrap_or("");
                let mut response = json!({"name": name, "response": {key: result.content}});
                if !result.call_id.starts_with(SYNTHETIC_ID_PREFIX) {
                    response["id"] = json!(result.call_id);
                }
                ("user", vec![json!({"functionResponse": response})])
            }
        };
        match contents.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(parts),
            _ => contents.push((role, parts)),
        }
    }
    let contents = contents
        .into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect();
    (system, contents)
}
