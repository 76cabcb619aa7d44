//! Amazon Bedrock's Converse API (`type: bedrock`): `POST {api_base}/model/{id}/converse-stream`
//! (AWS event stream) or `/converse` (whole JSON), signed with SigV4 (`sigv4`) for service
//! `bedrock` in the configured region; the model list is the control plane's
//! `GET /foundation-models`. `bedrock_stream` reads answers.
//!
//! Mapping (why): system text goes to `system`; tool calls are `toolUse` blocks with their
//! input as an object, results `toolResult` blocks (`status: error` for a failed call) in one
//! user turn — consecutive same-role messages are merged, as Converse wants alternating roles;
//! images are `image` blocks with base64 `bytes`. Converse needs `toolConfig` whenever the
//! history holds tool blocks and has no "none" tool choice, so [`ToolChoice::None`] keeps the
//! declarations with the default choice.
//! Wire reference: <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html>.

use std::sync::Arc;

use coyote_protocol::{AwsAuth, ProviderConfig, ProviderKind, bedrock_runtime_base};
use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::bedrock_stream::{BedrockParser, parse_converse};
use crate::error::LlmError;
use crate::framing::Framing;
use crate::http::{HttpCore, encode_path_segment};
use crate::openai::object_schema;
use crate::provider::Provider;
use crate::retry::{RetryClock, RetryPolicy};
use crate::sigv4::{Scope, SignRequest, sign};
use crate::stream::{EventStream, ready_event_stream};
use crate::types::{ChatRequest, Message, StreamMode, ToolChoice, ToolOutcome};

/// A client for Bedrock Converse.
#[derive(Debug)]
pub struct Bedrock {
    core: HttpCore,
    base: String,
    models_url: String,
    aws: AwsAuth,
}

impl Bedrock {
    pub(crate) fn new(
        config: &ProviderConfig,
        retry: RetryPolicy,
        clock: Arc<dyn RetryClock>,
    ) -> Result<Self, LlmError> {
        let Some(aws) = config.aws.clone() else {
            return Err(LlmError::config(
                &config.name,
                "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a \
                 profile in ~/.aws/credentials",
            ));
        };
        let base = config.api_base.trim_end_matches('/').to_string();
        let models_url = if base == bedrock_runtime_base(&aws.region) {
            format!(
                "https://bedrock.{}.amazonaws.com/foundation-models",
                aws.region
            )
        } else {
            format!("{base}/foundation-models")
        };
        Ok(Bedrock {
            core: HttpCore::new(config, retry, clock)?,
            base,
            models_url,
            aws,
        })
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let mut system = Vec::new();
        let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
        for message in &request.messages {
            let (role, blocks) = match message {
                Message::System { text } => {
                    system.push(json!({"text": text}));
                    continue;
                }
                Message::User { text, images } => {
                    let mut blocks = vec![json!({"text": text})];
                    blocks.extend(images.iter().map(|image| {
                        let format = image.media_type.strip_prefix("image/").unwrap_or("png");
                        json!({"image": {"format": format, "source": {"bytes": image.data_base64}}})
                    }));
                    ("user", blocks)
                }
                Message::Assistant(assistant) => {
                    let mut blocks = Vec::new();
                    if !assistant.text.is_empty() {
                        blocks.push(json!({"text": assistant.text}));
                    }
                    blocks.extend(assistant.tool_calls.iter().map(|call| {
                        let input = call
                            .parse_arguments()
                            .map(Value::Object)
                            .unwrap_or_else(|_| json!({}));
                        json!({"toolUse": {"toolUseId": call.id, "name": call.name, "input": input}})
                    }));
                    ("assistant", blocks)
                }
                Message::Tool(result) => {
                    let status = match result.outcome {
                        ToolOutcome::Success => "success",
                        ToolOutcome::Error => "error",
                    };
                    let block = json!({"toolResult": {
                        "toolUseId": result.call_id,
                        "content": [{"text": result.content}],
                        "status": status,
                    }});
                    ("user", vec![block])
                }
            };
            match messages.last_mut() {
                Some((last, existing)) if *last == role => existing.extend(blocks),
                _ => messages.push((role, blocks)),
            }
        }
        let mut body = serde_json::Map::new();
        let messages = messages
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect();
        body.insert("messages".into(), Value::Array(messages));
        if !system.is_empty() {
            body.insert("system".into(), Value::Array(system));
        }
        let mut inference = serde_json::Map::new();
        if let Some(max_tokens) = request.max_tokens {
            inference.insert("maxTokens".into(), json!(max_tokens));
        }
        if let Some(temperature) = request.temperature {
            inference.insert("temperature".into(), json!(temperature));
        }
        if !inference.is_empty() {
            body.insert("inferenceConfig".into(), Value::Object(inference));
        }
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|tool| {
                    json!({"toolSpec": {
                        "name": tool.name,
                        "description": tool.description,
                        "inputSchema": {"json": object_schema(&tool.parameters)},
                    }})
                })
                .collect();
            let mut config = json!({"tools": tools});
            if request.tool_choice == ToolChoice::Required {
                config["toolChoice"] = json!({"any": {}});
            }
            body.insert("toolConfig".into(), config);
        }
        Value::Object(body)
    }

    /// Signed headers for a request to `url` with `payload`.
    fn signed_headers(
        &self,
        method: &str,
        url: &str,
        payload: &[u8],
        accept: &'static str,
    ) -> Result<HeaderMap, LlmError> {
        let parsed = url::Url::parse(url).map_err(|e| {
            LlmError::config(
                &self.core.provider,
                format!("bad Bedrock URL {url:?} ({e})"),
            )
        })?;
        let content_type = [("content-type", "application/json")];
        let signed = sign(
            &Scope {
                credentials: &self.aws.credentials,
                region: &self.aws.region,
                service: "bedrock",
                time: self.core.now(),
            },
            &SignRequest {
                method,
                url: &parsed,
                headers: if method == "POST" { &content_type } else { &[] },
                payload,
            },
        );
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        for (name, value) in signed {
            let value = if name == "x-amz-date" {
                HeaderValue::from_str(&value).map_err(|_| {
                    LlmError::config(&self.core.provider, "the signing date is not a header")
                })?
            } else {
                self.core.secret_header(value)?
            };
            headers.insert(HeaderName::from_static(name), value);
        }
        Ok(headers)
    }

    async fn send(&self, request: &ChatRequest) -> Result<EventStream, LlmError> {
        let body = self
            .core
            .encode_turn(&request.messages, &self.body(request))?;
        let provider = &self.core.provider;
        let model = encode_path_segment(&request.model);
        match request.stream {
            StreamMode::Streaming => {
                let url = format!("{}/model/{model}/converse-stream", self.base);
                let headers =
                    self.signed_headers("POST", &url, &body, "application/vnd.amazon.eventstream")?;
                let parser = BedrockParser::new(provider);
                (self.core)
                    .post_framed((&url, headers), body, Framing::aws(), parser)
                    .await
            }
            StreamMode::Whole => {
                let url = format!("{}/model/{model}/converse", self.base);
                let headers = self.signed_headers("POST", &url, &body, "application/json")?;
                let bytes = self.core.post_whole(&url, headers, body).await?;
                Ok(ready_event_stream(parse_converse(provider, &bytes)?))
            }
        }
    }
}

impl Provider for Bedrock {
    fn name(&self) -> &str {
        &self.core.provider
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Bedrock
    }

    fn stream<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(self.send(request))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<String>, LlmError>> {
        Box::pin(async move {
            let headers = self.signed_headers("GET", &self.models_url, b"", "application/json")?;
            let list = self
                .core
                .get_json(&self.models_url, headers, "Bedrock")
                .await?;
            Ok(list["modelSummaries"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m["modelId"].as_str())
                .map(str::to_string)
                .collect())
        })
    }
}
