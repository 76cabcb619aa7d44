//! The single content policy: everything an MCP server sends back to
//! the model — resource contents, tool results, prompt attachments — passes through here.
//!
//! - Text is paged by `offset`/`max_bytes` on UTF-8 boundaries ([`text`]), optionally after the
//!   `pattern` line filter ([`pattern`]).
//! - Blobs are decoded in a stream with a ceiling, sniffed for UTF-8 (readable text is shown as
//!   text whatever its claimed mime), and otherwise spilled to the [`spill`] store; the model
//!   gets a self-describing object, never base64.
//! - A multi-item response is capped at [`RESPONSE_CEILING_BYTES`]; items beyond it become a
//!   marker naming how many were left out.
//! - Oversized tool-result text keeps a `coyote-result://` handle that `mcp_read_` pages like a
//!   resource ([`tool_result`]).
//!
//! Limits are named constants, quoted in every error and truncation message (OQ2).

pub mod blob;
pub mod budget;
#[doc(hidden)]
pub mod fuzzing;
pub mod pattern;
mod read;
pub mod spill;
pub mod structured;
pub mod text;
pub mod tool_result;

use std::path::PathBuf;

use serde::Serialize;

pub use blob::{DecodedBlob, decode_blob};
pub use budget::{BudgetSource, MAX_RESULT_BYTES, ResultBudgets, bound_text, default_result_bytes};
pub use pattern::{LineFilter, PATTERN_CONTEXT_LINES};
pub use read::{
    ReadOptions, RenderedText, render_resource_contents, render_text, render_text_contents,
};
pub use spill::{SpillStore, SpilledFile, extension_for_mime, sanitise_server};
pub use text::{TextPage, page_text};
pub use tool_result::bound_tool_result;

/// Default page size of `mcp_read_` text.
pub const DEFAULT_MAX_BYTES: usize = 51_200;
/// Largest page a caller may ask for; larger `max_bytes` are clamped to it.
pub const MAX_BYTES_CLAMP: usize = 204_800;
/// Ceiling of one whole rendered response (all items together).
pub const RESPONSE_CEILING_BYTES: usize = 204_800;
/// Tool-result text beyond this is sliced and kept behind a handle.
pub const TOOL_RESULT_TEXT_CEILING_BYTES: usize = 204_800;
/// Largest blob decoded (50 MiB); larger ones are an error (OQ2).
pub const MAX_BLOB_DECODED_BYTES: usize = 50 * 1024 * 1024;
/// The spill tree is trimmed to this size after each write (512 MiB).
pub const SPILL_EVICTION_LIMIT_BYTES: u64 = 512 * 1024 * 1024;
/// Scheme of the handle of an oversized tool result.
pub const RESULT_HANDLE_SCHEME: &str = "coyote-result://";

/// What the content policy needs to know about the call it renders.
#[derive(Debug, Clone, Copy)]
pub struct RenderContext<'a> {
    /// The server whose content is rendered (names spill directories and handles).
    pub server: &'a str,
    /// Where binaries and long results are stored.
    pub spill: &'a SpillStore,
    /// The model-visible function that pages a result handle of `server` (`mcp_read_<server>`,
    /// named by `meta`), quoted in truncation hints; rendering never derives names itself.
    pub read_function: &'a str,
    /// Bytes of this result that may reach the model (its budget, [`budget`]); text beyond
    /// is kept behind a `coyote-result://` handle. At most [`MAX_RESULT_BYTES`].
    pub max_result_bytes: usize,
}

impl RenderContext<'_> {
    /// The ceiling of the whole response: the budget, at most [`RESPONSE_CEILING_BYTES`].
    pub fn response_ceiling(&self) -> usize {
        self.max_result_bytes.min(RESPONSE_CEILING_BYTES)
    }
}

/// A typed render failure. The wording tells the model (or user) what to do next.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// `pattern` is not a valid regular expression.
    #[error(
        "invalid pattern {pattern:?}: {source}. `pattern` is a Rust regular expression (ripgrep \
         syntax): escape special characters such as ( [ . * + ? with a backslash, or drop the \
         pattern to page the whole text"
    )]
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// The regex compiler's error.
        #[source]
        source: regex::Error,
    },
    /// A blob decodes to more than `MAX_BLOB_DECODED_BYTES`.
    #[error(
        "blob too large: it decodes to at least {decoded_bytes} bytes, more than the \
         {MAX_BLOB_DECODED_BYTES}-byte (50 MiB) ceiling MAX_BLOB_DECODED_BYTES; ask the server \
         for a smaller resource"
    )]
    BlobTooLarge {
        /// Decoded size reached when decoding stopped.
        decoded_bytes: u64,
    },
    /// A blob is not valid base64.
    #[error("invalid base64 in blob: {detail}; the server sent malformed data")]
    InvalidBase64 {
        /// Where and why decoding failed.
        detail: String,
    },
    /// A spill file could not be written.
    #[error("cannot write spill file {}: {source}; check the cache directory", path.display())]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A result handle is malformed.
    #[error(
        "{handle:?} is not a result handle: expected {RESULT_HANDLE_SCHEME} followed by 64 \
         lower-case hex digits, exactly as a truncated tool result gave it"
    )]
    BadHandle {
        /// The handle as given.
        handle: String,
    },
    /// A result handle's file was evicted from the spill store.
    #[error(
        "result {handle} of server {server:?} is no longer stored (the spill store keeps at most \
         {SPILL_EVICTION_LIMIT_BYTES} bytes, SPILL_EVICTION_LIMIT_BYTES, evicting the oldest); \
         run the tool again"
    )]
    HandleExpired {
        /// The handle as given.
        handle: String,
        /// The server it belonged to.
        server: String,
    },
}

/// A spilled binary as the model sees it (self-describing, `sniffed` always false).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpillObject {
    /// Always `true`: the bytes are in a file, not in the answer.
    pub spilled: bool,
    /// Where the file is stored, under the spill store.
    pub path: String,
    /// The resource URI the blob came from, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// The MIME type the server declared, if any.
    pub mime_type: Option<String>,
    /// Always `false`: the type is the server's, never guessed from the bytes.
    pub sniffed: bool,
    /// Decoded size in bytes.
    pub size_bytes: u64,
    /// Lower-case hex sha256 of the decoded bytes (also the file's name).
    pub sha256: String,
}

impl SpillObject {
    /// The model's view of a stored file.
    pub fn new(file: &SpilledFile, uri: Option<String>, mime_type: Option<String>) -> Self {
        SpillObject {
            spilled: true,
            path: file.path.display().to_string(),
            uri,
            mime_type,
            sniffed: false,
            size_bytes: file.size_bytes,
            sha256: file.sha256.clone(),
        }
    }
}

/// The bytes `value` serialises to, without building the string.
pub(crate) fn serialized_len<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// The marker that replaces items beyond the response ceiling (`ceiling` bytes: the budget,
/// at most [`RESPONSE_CEILING_BYTES`]).
pub(crate) fn omitted_marker(
    omitted: usize,
    ceiling: usize,
    handles: Vec<String>,
) -> serde_json::Value {
    let mut marker = serde_json::json!({
        "omitted": omitted,
        "note": format!(
            "{omitted} more item(s) left out: the whole response is capped at {ceiling} bytes \
             (RESPONSE_CEILING_BYTES or the result budget). Ask for less per item (smaller \
             max_bytes, or a pattern) to see them."
        ),
    });
    if !handles.is_empty() {
        marker["handles"] = serde_json::json!(handles);
    }
    marker
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
