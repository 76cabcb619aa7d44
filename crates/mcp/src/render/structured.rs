//! Binary strings inside a tool's structured content: a long base64 string (or a
//! `data:…;base64,` URL) that decodes to bytes that are not text is spilled like an image or
//! blob content block and replaced by a one-line description with its type, size and the
//! file's path (named by its sha256) — so an image a tool returns both as a content block and
//! in `structuredContent` reaches the model once, as a file, and never as tens of kilobytes of
//! base64. Strings that are not base64, decode to text, or are shorter than
//! [`MIN_BINARY_CHARS`] pass unchanged.

use serde_json::{Map, Value};

use super::RenderContext;
use super::blob::{DecodedBlob, decode_blob};

/// The shortest string considered as possible binary data (shorter ones cost the model little
/// and are usually ids or hashes).
pub const MIN_BINARY_CHARS: usize = 1024;

/// Keys whose value names the MIME type of a sibling binary string.
const MIME_KEYS: [&str; 4] = ["mimeType", "mime_type", "contentType", "content_type"];

/// `value` with every binary string spilled and described (see the module docs).
pub fn spill_binary_strings(value: Value, ctx: &RenderContext<'_>) -> Value {
    match value {
        Value::Object(map) => Value::Object(spill_in_object(map, ctx)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| spill_binary_strings(v, ctx))
                .collect(),
        ),
        Value::String(s) => Value::String(describe_if_binary(s, None, ctx)),
        other => other,
    }
}

fn spill_in_object(map: Map<String, Value>, ctx: &RenderContext<'_>) -> Map<String, Value> {
    let mime = MIME_KEYS
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))
        .map(str::to_owned);
    map.into_iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => Value::String(describe_if_binary(s, mime.as_deref(), ctx)),
                other => spill_binary_strings(other, ctx),
            };
            (k, v)
        })
        .collect()
}

/// `s` itself, or the description of the file its binary content was spilled to.
fn describe_if_binary(s: String, mime: Option<&str>, ctx: &RenderContext<'_>) -> String {
    if s.len() < MIN_BINARY_CHARS {
        return s;
    }
    let (data, mime) = match data_url(&s) {
        Some((url_mime, data)) => (data, Some(url_mime).filter(|m| !m.is_empty()).or(mime)),
        None => (s.as_str(), mime),
    };
    if !is_base64(data) {
        return s;
    }
    match decode_blob(data, mime, ctx.server, ctx.spill) {
        Ok(DecodedBlob::Spilled(file)) => format!(
            "[binary content: {}, {} bytes, saved to {} (named by its sha256) — not included \
             here]",
            mime.unwrap_or("unknown type"),
            file.size_bytes,
            file.path.display()
        ),
        Ok(DecodedBlob::Text(_)) | Err(_) => s,
    }
}

/// `data:MIME;base64,DATA` → (MIME, DATA).
fn data_url(s: &str) -> Option<(&str, &str)> {
    let rest = s.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let mime = head.strip_suffix(";base64")?;
    Some((mime, data))
}

/// Only the base64 alphabet (standard or URL-safe) with at most two trailing `=`.
fn is_base64(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    s.len() - body.len() <= 2
        && !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_base64_alphabet_counts() {
        assert!(is_base64("iVBORw0KGgo="));
        assert!(is_base64("ab-_"));
        assert!(!is_base64("hello world"));
        assert!(!is_base64("abc==="));
        assert!(!is_base64(""));
        assert_eq!(
            data_url("data:image/png;base64,AAAA"),
            Some(("image/png", "AAAA"))
        );
        assert_eq!(data_url("data:text/plain,hi"), None);
    }
}
