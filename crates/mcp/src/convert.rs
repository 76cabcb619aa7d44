//! rmcp types → our types (style rule 4: protocol types stop at the host boundary): catalog
//! entries, results, and the handshake result ([`peer`]).
//!
//! Two paths per result kind:
//! - **typed**: rmcp parsed the result; fields are *moved* into ours (a blob's base64 `String`
//!   is never copied and never becomes a `serde_json::Value`).
//! - **raw**: rmcp's all-or-nothing parse failed on some item and handed us the JSON
//!   (`CustomResult`). Each item is converted on its own: an off-spec item becomes
//!   `ContentItem::Invalid` / `ResourceContent::Invalid` with a reason and its valid neighbours
//!   survive. Where our model allows it, the raw path is lenient (a missing `mimeType`
//!   is `None`, not an error).
//!
//! rmcp's typed parse reads a resource entry carrying both `text` and `blob` as text and drops
//! the blob; the stdio transport therefore hands a `resources/read` result with such an entry
//! to the raw path on both of its parses (`connect/typed.rs`), which reports the entry as
//! invalid. HTTP answers are parsed by rmcp itself, so there that entry still reads as text.

mod peer;

pub(crate) use peer::server_info;

use rmcp::model::{
    CallToolResult, ContentBlock, GetPromptResult, Prompt, PromptMessage as RmcpPromptMessage,
    Resource, ResourceContents, ResourceTemplate, Role, ServerResult, Tool,
};
use serde_json::{Map, Value};

use crate::catalog::{
    PromptArgumentInfo, PromptInfo, ResourceInfo, ResourceTemplateInfo, ToolInfo,
};
use crate::content::{
    ContentItem, PromptMessage, PromptMessageRole, PromptResult, ResourceContent, ToolCallOutcome,
};

fn to_value<T: serde::Serialize>(v: &T) -> Option<Value> {
    serde_json::to_value(v).ok()
}

// ---- catalog entries --------------------------------------------------------------------

pub(crate) fn tool_info(tool: Tool) -> ToolInfo {
    let input_schema = std::sync::Arc::unwrap_or_clone(tool.input_schema);
    ToolInfo {
        name: tool.name.into_owned(),
        title: tool.title,
        description: tool.description.map(|d| d.into_owned()),
        input_schema: Value::Object(input_schema),
        output_schema: tool
            .output_schema
            .map(|s| Value::Object(std::sync::Arc::unwrap_or_clone(s))),
        annotations: tool.annotations.as_ref().and_then(to_value),
    }
}

pub(crate) fn resource_info(resource: Resource) -> ResourceInfo {
    ResourceInfo {
        annotations: resource.annotations.as_ref().and_then(to_value),
        uri: resource.uri,
        name: resource.name,
        title: resource.title,
        description: resource.description,
        mime_type: resource.mime_type,
        size: resource.size,
    }
}

pub(crate) fn template_info(template: ResourceTemplate) -> ResourceTemplateInfo {
    ResourceTemplateInfo {
        annotations: template.annotations.as_ref().and_then(to_value),
        uri_template: template.uri_template,
        name: template.name,
        title: template.title,
        description: template.description,
        mime_type: template.mime_type,
    }
}

pub(crate) fn prompt_info(prompt: Prompt) -> PromptInfo {
    PromptInfo {
        name: prompt.name,
        title: prompt.title,
        description: prompt.description,
        arguments: prompt
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|a| PromptArgumentInfo {
                name: a.name,
                title: a.title,
                description: a.description,
                required: a.required.unwrap_or(false),
            })
            .collect(),
    }
}

// ---- typed results ----------------------------------------------------------------------

pub(crate) fn content_item(block: ContentBlock, index: usize) -> ContentItem {
    match block {
        ContentBlock::Text(t) => ContentItem::Text {
            annotations: t.annotations.as_ref().and_then(to_value),
            text: t.text,
        },
        ContentBlock::Image(i) => ContentItem::Image {
            data_base64: i.data,
            mime_type: Some(i.mime_type),
        },
        ContentBlock::Audio(a) => ContentItem::Audio {
            data_base64: a.data,
            mime_type: Some(a.mime_type),
        },
        ContentBlock::Resource(r) => ContentItem::Resource {
            resource: resource_content(r.resource),
        },
        ContentBlock::ResourceLink(l) => ContentItem::ResourceLink {
            uri: l.uri,
            name: Some(l.name),
            title: l.title,
            description: l.description,
            mime_type: l.mime_type,
            size: l.size,
        },
        other => ContentItem::Invalid {
            index,
            reason: format!(
                "unsupported content block {:?}",
                to_value(&other).and_then(|v| v.get("type").cloned())
            ),
        },
    }
}

pub(crate) fn resource_content(contents: ResourceContents) -> ResourceContent {
    match contents {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => ResourceContent::Text {
            uri,
            mime_type,
            text,
        },
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => ResourceContent::Blob {
            uri,
            mime_type,
            blob_base64: blob,
        },
        other => ResourceContent::Invalid {
            uri: None,
            reason: format!("unsupported resource contents {:?}", to_value(&other)),
        },
    }
}

pub(crate) fn tool_outcome(result: CallToolResult) -> ToolCallOutcome {
    ToolCallOutcome {
        content: result
            .content
            .into_iter()
            .enumerate()
            .map(|(i, b)| content_item(b, i))
            .collect(),
        structured_content: result.structured_content,
        is_error: result.is_error.unwrap_or(false),
        schema_warning: None,
        meta: result.meta.and_then(|m| serde_json::to_value(m).ok()),
        task: None,
    }
}

fn role(role: Role) -> PromptMessageRole {
    match role {
        Role::User => PromptMessageRole::User,
        Role::Assistant => PromptMessageRole::Assistant,
        #[expect(unreachable_patterns)]
        other => PromptMessageRole::Other(
            to_value(&other)
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
        ),
    }
}

pub(crate) fn prompt_result(result: GetPromptResult) -> PromptResult {
    PromptResult {
        description: result.description,
        messages: result
            .messages
            .into_iter()
            .enumerate()
            .map(
                |(
                    i,
                    RmcpPromptMessage {
                        role: r, content, ..
                    },
                )| PromptMessage {
                    role: role(r),
                    content: content_item(content, i),
                },
            )
            .collect(),
    }
}

// ---- dispatch on whatever rmcp classified the reply as ------------------------------------

/// Any reply to `tools/call`. A reply rmcp classified as another shape is re-read raw.
pub(crate) fn tool_outcome_from(result: ServerResult) -> ToolCallOutcome {
    match result {
        ServerResult::CallToolResult(r) => tool_outcome(r),
        ServerResult::CustomResult(raw) => tool_outcome_raw(raw.0),
        other => tool_outcome_raw(to_value(&other).unwrap_or(Value::Null)),
    }
}

/// Any reply to `resources/read`.
pub(crate) fn resource_contents_from(result: ServerResult) -> Vec<ResourceContent> {
    match result {
        ServerResult::ReadResourceResult(r) => {
            r.contents.into_iter().map(resource_content).collect()
        }
        ServerResult::CustomResult(raw) => resource_contents_raw(raw.0),
        other => resource_contents_raw(to_value(&other).unwrap_or(Value::Null)),
    }
}

/// Any reply to `prompts/get`.
pub(crate) fn prompt_result_from(result: ServerResult) -> PromptResult {
    match result {
        ServerResult::GetPromptResult(r) => prompt_result(r),
        ServerResult::CustomResult(raw) => prompt_result_raw(raw.0),
        other => prompt_result_raw(to_value(&other).unwrap_or(Value::Null)),
    }
}

// ---- raw JSON, item by item ---------------------------------------------------------------

fn take_string(obj: &mut Map<String, Value>, key: &str) -> Option<String> {
    match obj.remove(key) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

pub(crate) fn tool_outcome_raw(raw: Value) -> ToolCallOutcome {
    let Value::Object(mut obj) = raw else {
        return ToolCallOutcome {
            content: vec![ContentItem::Invalid {
                index: 0,
                reason: format!("result is not an object: {raw}"),
            }],
            structured_content: None,
            is_error: false,
            schema_warning: None,
            meta: None,
            task: None,
        };
    };
    let content = match obj.remove("content") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| content_item_raw(v, i))
            .collect(),
        Some(other) => vec![ContentItem::Invalid {
            index: 0,
            reason: format!("\"content\" is not an array: {}", short(&other)),
        }],
    };
    ToolCallOutcome {
        content,
        structured_content: obj.remove("structuredContent").filter(|v| !v.is_null()),
        is_error: matches!(obj.get("isError"), Some(Value::Bool(true))),
        schema_warning: None,
        meta: obj.remove("_meta").filter(Value::is_object),
        task: None,
    }
}

pub(crate) fn content_item_raw(raw: Value, index: usize) -> ContentItem {
    let Value::Object(mut obj) = raw else {
        return ContentItem::Invalid {
            index,
            reason: format!("content block is not an object: {}", short(&raw)),
        };
    };
    let invalid = |reason: String| ContentItem::Invalid { index, reason };
    let kind = take_string(&mut obj, "type");
    match kind.as_deref() {
        Some("text") => match take_string(&mut obj, "text") {
            Some(text) => ContentItem::Text {
                text,
                annotations: obj.remove("annotations"),
            },
            None => invalid("text block without a string \"text\"".to_owned()),
        },
        Some(k @ ("image" | "audio")) => match take_string(&mut obj, "data") {
            Some(data_base64) => {
                let mime_type = take_string(&mut obj, "mimeType");
                if k == "image" {
                    ContentItem::Image {
                        data_base64,
                        mime_type,
                    }
                } else {
                    ContentItem::Audio {
                        data_base64,
                        mime_type,
                    }
                }
            }
            None => invalid(format!("{k} block without a string \"data\"")),
        },
        Some("resource_link") => match take_string(&mut obj, "uri") {
            Some(uri) => ContentItem::ResourceLink {
                uri,
                name: take_string(&mut obj, "name"),
                title: take_string(&mut obj, "title"),
                description: take_string(&mut obj, "description"),
                mime_type: take_string(&mut obj, "mimeType"),
                size: obj.get("size").and_then(Value::as_u64),
            },
            None => invalid("resource_link without a string \"uri\"".to_owned()),
        },
        Some("resource") => match obj.remove("resource") {
            Some(resource) => ContentItem::Resource {
                resource: resource_content_raw(resource),
            },
            None => invalid("resource block without \"resource\"".to_owned()),
        },
        Some(other) => invalid(format!("unknown content type {other:?}")),
        None => invalid("content block without a string \"type\"".to_owned()),
    }
}

pub(crate) fn resource_content_raw(raw: Value) -> ResourceContent {
    let Value::Object(mut obj) = raw else {
        return ResourceContent::Invalid {
            uri: None,
            reason: format!("resource contents is not an object: {}", short(&raw)),
        };
    };
    let uri = take_string(&mut obj, "uri");
    let mime_type = take_string(&mut obj, "mimeType");
    let text = obj.remove("text");
    let blob = obj.remove("blob");
    match (text, blob, uri) {
        (Some(_), Some(_), uri) => ResourceContent::Invalid {
            uri,
            reason: "resource contents has both \"text\" and \"blob\" (exactly one is allowed)"
                .to_owned(),
        },
        (None, None, uri) => ResourceContent::Invalid {
            uri,
            reason: "resource contents has neither \"text\" nor \"blob\"".to_owned(),
        },
        (Some(Value::String(text)), None, Some(uri)) => ResourceContent::Text {
            uri,
            mime_type,
            text,
        },
        (None, Some(Value::String(blob_base64)), Some(uri)) => ResourceContent::Blob {
            uri,
            mime_type,
            blob_base64,
        },
        (_, _, None) => ResourceContent::Invalid {
            uri: None,
            reason: "resource contents without a string \"uri\"".to_owned(),
        },
        (_, _, uri) => ResourceContent::Invalid {
            uri,
            reason: "resource contents \"text\"/\"blob\" is not a string".to_owned(),
        },
    }
}

pub(crate) fn resource_contents_raw(raw: Value) -> Vec<ResourceContent> {
    match raw {
        Value::Object(mut obj) => match obj.remove("contents") {
            Some(Value::Array(items)) => items.into_iter().map(resource_content_raw).collect(),
            other => vec![ResourceContent::Invalid {
                uri: None,
                reason: format!(
                    "\"contents\" is not an array: {}",
                    other.as_ref().map_or("missing".to_owned(), short)
                ),
            }],
        },
        other => vec![ResourceContent::Invalid {
            uri: None,
            reason: format!("result is not an object: {}", short(&other)),
        }],
    }
}

pub(crate) fn prompt_result_raw(raw: Value) -> PromptResult {
    let Value::Object(mut obj) = raw else {
        return PromptResult {
            description: None,
            messages: vec![PromptMessage {
                role: PromptMessageRole::Other("unknown".to_owned()),
                content: ContentItem::Invalid {
                    index: 0,
                    reason: format!("result is not an object: {}", short(&raw)),
                },
            }],
        };
    };
    let description = take_string(&mut obj, "description");
    let messages = match obj.remove("messages") {
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, m)| prompt_message_raw(m, i))
            .collect(),
        _ => vec![PromptMessage {
            role: PromptMessageRole::Other("unknown".to_owned()),
            content: ContentItem::Invalid {
                index: 0,
                reason: "\"messages\" is missing or not an array".to_owned(),
            },
        }],
    };
    PromptResult {
        description,
        messages,
    }
}

fn prompt_message_raw(raw: Value, index: usize) -> PromptMessage {
    let Value::Object(mut obj) = raw else {
        return PromptMessage {
            role: PromptMessageRole::Other("unknown".to_owned()),
            content: ContentItem::Invalid {
                index,
                reason: format!("message is not an object: {}", short(&raw)),
            },
        };
    };
    let role = match take_string(&mut obj, "role").as_deref() {
        Some("user") => PromptMessageRole::User,
        Some("assistant") => PromptMessageRole::Assistant,
        Some(other) => PromptMessageRole::Other(other.to_owned()),
        None => PromptMessageRole::Other("unknown".to_owned()),
    };
    let content = match obj.remove("content") {
        Some(content) => content_item_raw(content, index),
        None => ContentItem::Invalid {
            index,
            reason: "message without \"content\"".to_owned(),
        },
    };
    PromptMessage { role, content }
}

/// A short rendering of a JSON value for reasons (never a whole blob).
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() <= 80 {
        return s;
    }
    let mut end = 80;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
