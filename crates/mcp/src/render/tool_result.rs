//! Bounding of `tools/call` results (docs/resources-and-prompts.md). Text up to the result budget
//! ([`RenderContext::max_result_bytes`], at most [`super::TOOL_RESULT_TEXT_CEILING_BYTES`])
//! passes unchanged; longer text is sliced and the full text
//! kept in the spill store behind a `coyote-result://<sha256>` handle that `mcp_read_<server>`
//! pages and filters like a resource. Images, audio and blobs are decoded and spilled (or shown
//! as text when they are UTF-8). Links and embedded resources keep their URI. Structured
//! content passes through under the same budget, its binary strings spilled and described
//! ([`super::structured`]). `is_error` is preserved, and an off-spec
//! block becomes an error item in place without hiding its neighbours.

use serde_json::{Map, Value, json};

use super::blob::{DecodedBlob, decode_blob};
use super::budget::continuation_note;
use super::text::page_text;
use super::{RenderContext, SpillObject, omitted_marker, serialized_len};
use crate::content::{ContentItem, ResourceContent, ToolCallOutcome};

/// Renders `outcome` for the model: `{content: [...], structured_content?, is_error}`.
pub fn bound_tool_result(outcome: ToolCallOutcome, ctx: &RenderContext<'_>) -> Value {
    let ToolCallOutcome {
        content,
        structured_content,
        is_error,
        schema_warning,
        meta: _,
        task,
    } = outcome;
    let count = content.len();
    let mut items = Vec::with_capacity(count);
    let mut used = 0usize;
    let mut rest = content.into_iter().enumerate();
    let mut overflow = None;
    for (i, item) in rest.by_ref() {
        let rendered = render_item(item, ctx);
        let size = serialized_len(&rendered);
        if i > 0 && used + size > ctx.response_ceiling() {
            overflow = Some((i, rendered));
            break;
        }
        used += size;
        items.push(rendered);
    }
    if let Some((first_omitted, first)) = overflow {
        // Text that does not fit is still kept, so nothing the tool said is lost.
        let mut handles: Vec<String> = first
            .get("handle")
            .and_then(Value::as_str)
            .map(str::to_string)
            .into_iter()
            .collect();
        if handles.is_empty()
            && let Some(text) = first.get("text").and_then(Value::as_str)
            && let Ok(handle) = ctx.spill.put_result_text(ctx.server, text)
        {
            handles.push(handle);
        }
        for (_, item) in rest {
            if let Some(handle) = keep_text(&item, ctx) {
                handles.push(handle);
            }
        }
        items.push(omitted_marker(
            count - first_omitted,
            ctx.response_ceiling(),
            handles,
        ));
    }
    let mut result = Map::new();
    result.insert("content".into(), Value::Array(items));
    if let Some(structured) = structured_content {
        let structured = super::structured::spill_binary_strings(structured, ctx);
        let (key, value) = bound_structured(structured, ctx);
        result.insert(key.into(), value);
    }
    result.insert("is_error".into(), Value::Bool(is_error));
    if let Some(warning) = schema_warning {
        result.insert("warning".into(), Value::String(warning));
    }
    // A task still running: its id and status, so the model can check it later.
    if let Some(task) = task.filter(|t| !t.is_terminal()) {
        result.insert(
            "task".into(),
            serde_json::json!({ "id": task.task_id, "status": task.status }),
        );
    }
    Value::Object(result)
}

fn keep_text(item: &ContentItem, ctx: &RenderContext<'_>) -> Option<String> {
    let text = match item {
        ContentItem::Text { text, .. } => text,
        ContentItem::Resource {
            resource: ResourceContent::Text { text, .. },
        } => text,
        _ => return None,
    };
    ctx.spill.put_result_text(ctx.server, text).ok()
}

fn render_item(item: ContentItem, ctx: &RenderContext<'_>) -> Value {
    match item {
        ContentItem::Text { text, annotations } => {
            let mut v = bounded_text(json!({ "type": "text" }), &text, ctx);
            if let Some(annotations) = annotations {
                v["annotations"] = annotations;
            }
            v
        }
        ContentItem::Image {
            data_base64,
            mime_type,
        } => binary("image", &data_base64, mime_type, None, ctx),
        ContentItem::Audio {
            data_base64,
            mime_type,
        } => binary("audio", &data_base64, mime_type, None, ctx),
        ContentItem::ResourceLink {
            uri,
            name,
            title,
            description,
            mime_type,
            size,
        } => {
            let mut v = json!({ "type": "resource_link", "uri": uri });
            let fields = [
                ("name", name.map(Value::from)),
                ("title", title.map(Value::from)),
            ];
            let more = [
                ("description", description.map(Value::from)),
                ("mime_type", mime_type.map(Value::from)),
                ("size", size.map(Value::from)),
            ];
            for (key, value) in fields.into_iter().chain(more) {
                if let Some(value) = value {
                    v[key] = value;
                }
            }
            v["hint"] = Value::from(format!("read it with {}", ctx.read_function));
            v
        }
        ContentItem::Resource { resource } => match resource {
            ResourceContent::Text {
                uri,
                mime_type,
                text,
            } => bounded_text(
                json!({ "type": "resource", "uri": uri, "mime_type": mime_type }),
                &text,
                ctx,
            ),
            ResourceContent::Blob {
                uri,
                mime_type,
                blob_base64,
            } => binary("resource", &blob_base64, mime_type, Some(uri), ctx),
            ResourceContent::Invalid { uri, reason } => json!({
                "type": "resource",
                "uri": uri,
                "error": format!("the server sent an invalid embedded resource: {reason}"),
            }),
        },
        ContentItem::Invalid { index, reason } => json!({
            "type": "invalid",
            "index": index,
            "error": format!("content block {index} is off-spec and was skipped: {reason}"),
        }),
    }
}

/// `base` plus `text`, sliced with a handle when longer than the budget.
fn bounded_text(mut base: Value, text: &str, ctx: &RenderContext<'_>) -> Value {
    if text.len() <= ctx.max_result_bytes {
        base["text"] = Value::from(text);
        return base;
    }
    let page = page_text(text, 0, ctx.max_result_bytes);
    let next = page.next_offset.unwrap_or(page.total_bytes);
    let shown = page.text.len();
    base["text"] = Value::from(page.text);
    base["truncated"] = Value::Bool(true);
    base["total_bytes"] = Value::from(page.total_bytes);
    base["next_offset"] = Value::from(next);
    match ctx.spill.put_result_text(ctx.server, text) {
        Ok(handle) => {
            base["note"] = Value::from(continuation_note(
                shown,
                page.total_bytes,
                next,
                &handle,
                ctx.read_function,
            ));
            base["handle"] = Value::from(handle);
        }
        Err(e) => {
            base["note"] = Value::from(format!(
                "[coyote: truncated at {shown} of {} bytes (the result budget); the rest could \
                 not be kept ({e}). Re-run the tool with narrower arguments.]",
                page.total_bytes
            ));
        }
    }
    base
}

fn binary(
    kind: &str,
    data: &str,
    mime_type: Option<String>,
    uri: Option<String>,
    ctx: &RenderContext<'_>,
) -> Value {
    match decode_blob(data, mime_type.as_deref(), ctx.server, ctx.spill) {
        Ok(DecodedBlob::Text(text)) => {
            let mut base = json!({ "type": kind, "mime_type": mime_type, "sniffed": true });
            if let Some(uri) = uri {
                base["uri"] = Value::from(uri);
            }
            bounded_text(base, &text, ctx)
        }
        Ok(DecodedBlob::Spilled(file)) => {
            let mut v = serde_json::to_value(SpillObject::new(&file, uri, mime_type))
                .unwrap_or(Value::Null);
            v["type"] = Value::from(kind);
            v
        }
        Err(e) => {
            json!({ "type": kind, "uri": uri, "mime_type": mime_type, "error": e.to_string() })
        }
    }
}

/// Structured content within the ceiling passes unchanged; beyond it, it is kept behind a
/// handle as JSON text.
fn bound_structured(structured: Value, ctx: &RenderContext<'_>) -> (&'static str, Value) {
    let size = serialized_len(&structured);
    if size <= ctx.max_result_bytes {
        return ("structured_content", structured);
    }
    let text = serde_json::to_string(&structured).unwrap_or_default();
    drop(structured);
    let kept = ctx.spill.put_result_text(ctx.server, &text);
    let note = match &kept {
        Ok(handle) => format!(
            "Structured content of {size} bytes exceeds the result budget of {} bytes. Its JSON \
             is kept: call {} with uri \"{handle}\" to page it, or with a pattern to search it.",
            ctx.max_result_bytes, ctx.read_function
        ),
        Err(e) => format!(
            "Structured content of {size} bytes exceeds the result budget of {} bytes and could \
             not be kept ({e}).",
            ctx.max_result_bytes
        ),
    };
    let mut v = json!({ "truncated": true, "total_bytes": size, "note": note });
    if let Ok(handle) = kept {
        v["handle"] = Value::from(handle);
    }
    ("structured_content_truncated", v)
}
