//! Answers of the fake server for resources (`resources/read`: explicit, generated,
//! templates, streamed blobs, raw contents) and prompts (`prompts/get` with argument
//! substitution and the required-argument check).

use std::collections::BTreeMap;

use rmcp::model::{GetPromptRequestParams, GetPromptResult, ReadResourceResult};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

use crate::catalog;
use crate::content::{generated_blob_base64_chunks, png_base64};
use crate::events::Event;
use crate::scenario::{PromptContent, PromptRole, ResourceBody};
use crate::server::{FakeServer, from_json, io_error, raw_unavailable};

impl FakeServer {
    pub(crate) async fn read(
        &self,
        uri: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        if let Some(index) = uri
            .strip_prefix("fake://gen/")
            .and_then(|i| i.parse::<usize>().ok())
            && index < self.shared.scenario.generated.resources
        {
            return from_json(
                json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": format!("generated resource {index}")}]}),
            );
        }
        if let Some(spec) = self.shared.scenario.resources.iter().find(|r| r.uri == uri) {
            let mime = spec.mime_type.clone();
            let item = match &spec.body {
                ResourceBody::Text { text } => json!({"uri": uri, "mimeType": mime, "text": text}),
                ResourceBody::BigText { bytes } => {
                    json!({"uri": uri, "mimeType": mime, "text": crate::big_text(*bytes)})
                }
                ResourceBody::Png => {
                    json!({"uri": uri, "mimeType": "image/png", "blob": png_base64()})
                }
                ResourceBody::Base64Text { text } => {
                    use base64::Engine as _;
                    json!({"uri": uri, "mimeType": mime, "blob": base64::engine::general_purpose::STANDARD.encode(text)})
                }
                ResourceBody::Blob { base64 } => {
                    json!({"uri": uri, "mimeType": mime, "blob": base64})
                }
                ResourceBody::GeneratedBlob { bytes } => {
                    return self.read_generated_blob(uri, *bytes, ctx).await;
                }
                ResourceBody::RawContents { contents } => {
                    let raw = self.raw.as_ref().ok_or_else(raw_unavailable)?;
                    raw.respond_json(&ctx.id, &json!({"contents": contents}))
                        .await
                        .map_err(io_error)?;
                    return from_json(json!({"contents": []}));
                }
            };
            return from_json(json!({"contents": [item]}));
        }
        if let Some(text) = self
            .shared
            .scenario
            .skills
            .iter()
            .find_map(|s| s.served(uri))
        {
            return from_json(
                json!({"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}),
            );
        }
        for template in &self.shared.catalog.template_specs {
            if let Some(vars) = catalog::match_template(&template.uri_template, uri) {
                let text = catalog::substitute(&template.text, &vars);
                return from_json(
                    json!({"contents": [{"uri": uri, "mimeType": template.mime_type, "text": text}]}),
                );
            }
        }
        Err(ErrorData::resource_not_found(
            format!("no resource {uri} on this fake server"),
            None,
        ))
    }

    async fn read_generated_blob(
        &self,
        uri: &str,
        bytes: u64,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let Some(raw) = &self.raw else {
            let b64: Vec<u8> = generated_blob_base64_chunks(bytes).flatten().collect();
            let blob = String::from_utf8(b64).unwrap_or_default();
            return from_json(
                json!({"contents": [{"uri": uri, "mimeType": "application/octet-stream", "blob": blob}]}),
            );
        };
        let head = format!(
            r#"{{"contents":[{{"uri":{},"mimeType":"application/octet-stream","blob":""#,
            serde_json::to_string(uri)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        );
        raw.respond_streamed(
            &ctx.id,
            &head,
            generated_blob_base64_chunks(bytes),
            r#""}]}"#,
        )
        .await
        .map_err(io_error)?;
        from_json(json!({"contents": []}))
    }

    pub(crate) fn prompt(
        &self,
        request: GetPromptRequestParams,
    ) -> Result<GetPromptResult, ErrorData> {
        let args: BTreeMap<String, String> = request
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect();
        self.record(Event::GetPrompt {
            name: request.name.clone(),
            arguments: args.clone(),
        });
        let spec = self
            .shared
            .catalog
            .prompt_specs
            .get(&request.name)
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("no prompt {} on this fake server", request.name),
                    None,
                )
            })?;
        let missing: Vec<&str> = spec
            .arguments
            .iter()
            .filter(|a| a.required && !args.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(ErrorData::invalid_params(
                format!("missing required arguments: {}", missing.join(", ")),
                None,
            ));
        }
        let messages: Vec<Value> = if spec.messages.is_empty() {
            vec![
                json!({"role": "user", "content": {"type": "text", "text": format!("prompt {} {}", spec.name, json!(args))}}),
            ]
        } else {
            spec.messages
                .iter()
                .map(|m| {
                    let role = match m.role {
                        PromptRole::User => "user",
                        PromptRole::Assistant => "assistant",
                    };
                    let content = match &m.content {
                        PromptContent::Text { text } => json!({"type": "text", "text": catalog::substitute(text, &args)}),
                        PromptContent::Image => json!({"type": "image", "data": png_base64(), "mimeType": "image/png"}),
                        PromptContent::Resource { uri, mime_type, text } => json!({
                            "type": "resource",
                            "resource": {"uri": uri, "mimeType": mime_type, "text": catalog::substitute(text, &args)}
                        }),
                    };
                    json!({"role": role, "content": content})
                })
                .collect()
        };
        from_json(json!({"description": spec.description, "messages": messages}))
    }
}
