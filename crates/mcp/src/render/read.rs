//! Rendering of `resources/read` contents and of result handles: the
//! `{uri, mime_type, text, truncated, total_bytes, next_offset}` page, spill objects for
//! binary blobs, structured errors for off-spec entries, and the response ceiling.

use serde::Serialize;
use serde_json::{Value, json};

use super::blob::{DecodedBlob, decode_blob};
use super::pattern::LineFilter;
use super::text::page_text;
use super::{
    DEFAULT_MAX_BYTES, MAX_BYTES_CLAMP, RenderContext, RenderError, SpillObject, omitted_marker,
    serialized_len,
};
use crate::content::ResourceContent;

/// How to cut text: optional line filter, then a page.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    filter: Option<LineFilter>,
    offset: usize,
    max_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            filter: None,
            offset: 0,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl ReadOptions {
    /// Filters lines by `pattern` (rg -n -C2 output) before paging.
    pub fn with_pattern(mut self, pattern: &str) -> Result<Self, RenderError> {
        let filter = LineFilter::new(pattern).map_err(|source| RenderError::InvalidPattern {
            pattern: pattern.to_string(),
            source,
        })?;
        self.filter = Some(filter);
        Ok(self)
    }

    /// Starts the page at byte `offset` (rounded forward to a character boundary).
    pub fn with_offset(mut self, offset: u64) -> Self {
        self.offset = usize::try_from(offset).unwrap_or(usize::MAX);
        self
    }

    /// Page size, clamped to 1..=[`MAX_BYTES_CLAMP`].
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = usize::try_from(max_bytes)
            .unwrap_or(usize::MAX)
            .clamp(1, MAX_BYTES_CLAMP);
        self
    }

    /// Pages of at most `budget` bytes (a result budget lower than the asked page size).
    pub fn within(mut self, budget: usize) -> Self {
        self.max_bytes = self.max_bytes.min(budget.max(1));
        self
    }

    /// Byte offset the page starts at.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Largest page, in bytes.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The line filter's pattern, if one is set.
    pub fn pattern(&self) -> Option<&str> {
        self.filter.as_ref().map(LineFilter::pattern)
    }
}

/// One page of text as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderedText {
    /// The resource URI (or result handle) the text came from.
    pub uri: String,
    /// The MIME type the server declared, if any.
    pub mime_type: Option<String>,
    /// This page of the text.
    pub text: String,
    /// More text follows this page.
    pub truncated: bool,
    /// Size in bytes of the whole text (after the filter, if any).
    pub total_bytes: usize,
    /// Offset to pass for the next page; `None` on the last page.
    pub next_offset: Option<usize>,
    /// The filter applied; offsets and sizes then refer to the filtered output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// True when a blob turned out to be UTF-8 text (the sniff).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sniffed: bool,
}

/// Filters (if asked) and pages `text`.
pub fn render_text(
    uri: &str,
    mime_type: Option<&str>,
    text: &str,
    options: &ReadOptions,
) -> RenderedText {
    let filtered;
    let source = match &options.filter {
        Some(filter) => {
            filtered = filter.filter(text);
            filtered.as_str()
        }
        None => text,
    };
    let page = page_text(source, options.offset, options.max_bytes);
    RenderedText {
        uri: uri.to_string(),
        mime_type: mime_type.map(str::to_string),
        text: page.text.to_string(),
        truncated: page.truncated(),
        total_bytes: page.total_bytes,
        next_offset: page.next_offset,
        pattern: options.pattern().map(str::to_string),
        sniffed: false,
    }
}

/// Renders one content entry; never fails — problems become `{uri, error}` items.
fn render_content(
    content: ResourceContent,
    options: &ReadOptions,
    ctx: &RenderContext<'_>,
) -> Value {
    match content {
        ResourceContent::Text {
            uri,
            mime_type,
            text,
        } => to_value(render_text(&uri, mime_type.as_deref(), &text, options)),
        ResourceContent::Blob {
            uri,
            mime_type,
            blob_base64,
        } => {
            let decoded = decode_blob(&blob_base64, mime_type.as_deref(), ctx.server, ctx.spill);
            drop(blob_base64);
            match decoded {
                Ok(DecodedBlob::Text(text)) => {
                    let mut rendered = render_text(&uri, mime_type.as_deref(), &text, options);
                    rendered.sniffed = true;
                    to_value(rendered)
                }
                Ok(DecodedBlob::Spilled(file)) => {
                    to_value(SpillObject::new(&file, Some(uri), mime_type))
                }
                Err(e) => json!({ "uri": uri, "error": e.to_string() }),
            }
        }
        ResourceContent::Invalid { uri, reason } => json!({
            "uri": uri,
            "error": format!("the server sent an invalid resource content entry: {reason}"),
        }),
    }
}

fn to_value<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| json!({ "error": e.to_string() }))
}

/// Renders all contents of one read: a single object for one entry, else an array whose total
/// size stays within the response ceiling ([`RenderContext::response_ceiling`]: the budget,
/// at most [`super::RESPONSE_CEILING_BYTES`]; the first item always shows; later items that
/// do not fit are replaced by one `{omitted, note}` marker).
pub fn render_resource_contents(
    contents: Vec<ResourceContent>,
    options: &ReadOptions,
    ctx: &RenderContext<'_>,
) -> Value {
    let count = contents.len();
    let items = contents
        .into_iter()
        .map(|content| render_content(content, options, ctx));
    assemble(count, items, ctx)
}

/// [`render_resource_contents`] for contents kept by reference (the page cache holds text
/// only; anything else it cannot hold renders as an error item).
pub fn render_text_contents(
    contents: &[ResourceContent],
    options: &ReadOptions,
    ctx: &RenderContext<'_>,
) -> Value {
    let items = contents.iter().map(|content| match content {
        ResourceContent::Text {
            uri,
            mime_type,
            text,
        } => to_value(render_text(uri, mime_type.as_deref(), text, options)),
        ResourceContent::Blob { uri, .. } | ResourceContent::Invalid { uri: Some(uri), .. } => {
            json!({ "uri": uri, "error": "not text (a cached read holds text only)" })
        }
        ResourceContent::Invalid { uri: None, .. } => {
            json!({ "error": "not text (a cached read holds text only)" })
        }
    });
    assemble(contents.len(), items, ctx)
}

/// The rendered items of one read: a single object for one entry, else an array within the
/// response ceiling.
fn assemble(count: usize, rendered: impl Iterator<Item = Value>, ctx: &RenderContext<'_>) -> Value {
    let mut items = Vec::with_capacity(count);
    let mut used = 0usize;
    let mut omitted = 0usize;
    for (i, item) in rendered.enumerate() {
        let size = serialized_len(&item);
        if i > 0 && used + size > ctx.response_ceiling() {
            omitted = count - i;
            break;
        }
        used += size;
        items.push(item);
    }
    if omitted > 0 {
        items.push(omitted_marker(omitted, ctx.response_ceiling(), Vec::new()));
    }
    if items.len() == 1 && count == 1 {
        return items.pop().unwrap_or(Value::Null);
    }
    Value::Array(items)
}
