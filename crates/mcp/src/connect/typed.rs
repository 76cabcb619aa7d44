//! Typed fast path for responses whose request kind is known: a `tools/call` answer is read
//! straight into `CallToolResult`, a `resources/read` answer into `ReadResourceResult`, instead
//! of through rmcp's generic `ServerJsonRpcMessage` parse, which buffers the whole message into
//! serde's `Content`, checks its shape and then tries the untagged `ServerResult` variants one
//! by one (`CallToolResult` is the 16th), each failed try formatting an error. That parse was
//! about a third of the client's CPU time per `tools/call` (perf, bench_toolcall against
//! coyote-fake-mcp); for a 50 MiB text resource it held two extra copies of the text (the
//! buffered message, then the variant's `String`).
//!
//! Invariants:
//! - The fast path only ever *adds* a shortcut: whenever it cannot tell (unknown id, a line
//!   that is not exactly `{jsonrpc, id, result}`, a result that is not a valid
//!   `CallToolResult`), it returns `None` and the caller parses the line the generic way, so
//!   what callers receive is unchanged (off-spec results still reach the per-item raw path).
//! - An entry is taken out when its response is read through here, and dropped when the
//!   request is cancelled; errors and malformed answers leave theirs behind, so the map is
//!   cleared once it reaches [`MAX_EXPECTED`] (losing an entry only costs the slow path).

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::{
    CallToolResult, ClientJsonRpcMessage, ClientNotification, ClientRequest, CustomResult,
    JsonRpcMessage, JsonRpcVersion2_0, MetaObject, ReadResourceResult, RequestId, ResourceContents,
    ServerJsonRpcMessage, ServerResult,
};
use serde::Deserialize;
use serde_json::value::RawValue;

/// Bound on remembered request kinds (see the module invariants).
const MAX_EXPECTED: usize = 1024;

/// The result type a request's response is read into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResultKind {
    CallTool,
    ReadResource,
}

impl ResultKind {
    fn of(request: &ClientRequest) -> Option<Self> {
        match request {
            ClientRequest::CallToolRequest(_) => Some(ResultKind::CallTool),
            ClientRequest::ReadResourceRequest(_) => Some(ResultKind::ReadResource),
            _ => None,
        }
    }
}

/// Result kinds of the requests in flight on one connection, by id.
#[derive(Debug, Default)]
pub(crate) struct ExpectedResults(Mutex<HashMap<RequestId, ResultKind>>);

impl ExpectedResults {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, ResultKind>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records what an outgoing message means for the answers to come; call it before the
    /// message is written, so its answer can never arrive first.
    pub(crate) fn note_sent(&self, message: &ClientJsonRpcMessage) {
        match message {
            JsonRpcMessage::Request(request) => {
                if let Some(kind) = ResultKind::of(&request.request) {
                    let mut expected = self.lock();
                    if expected.len() >= MAX_EXPECTED {
                        expected.clear();
                    }
                    expected.insert(request.id.clone(), kind);
                }
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.lock().remove(id);
                }
            }
            _ => {}
        }
    }

    /// The typed response `line` carries, when it answers a request of a known kind and
    /// reads as that kind; `None` means "parse it the generic way".
    pub(crate) fn parse(&self, line: &[u8]) -> Option<ServerJsonRpcMessage> {
        if self.lock().is_empty() {
            return None;
        }
        let envelope: Envelope<'_> = serde_json::from_slice(line).ok()?;
        let kind = self.lock().remove(&envelope.id)?;
        let result = match kind {
            ResultKind::CallTool => ServerResult::CallToolResult(
                serde_json::from_str::<CallToolResult>(envelope.result.get()).ok()?,
            ),
            ResultKind::ReadResource => match read_result(envelope.result)? {
                Read::Typed(result) => ServerResult::ReadResourceResult(result),
                Read::Raw(raw) => ServerResult::CustomResult(CustomResult(raw)),
            },
        };
        Some(JsonRpcMessage::response(result, envelope.id))
    }
}

/// The generic parse of a `resources/read` answer made an item carrying both `text` and `blob`
/// into text (rmcp's untagged enum tries text first and ignores `blob`): the raw result then
/// replaces it, so the per-item raw path reports that item. Any other message
/// is returned unchanged.
pub(crate) fn recheck_generic(line: &[u8], message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
    let JsonRpcMessage::Response(response) = &message else {
        return message;
    };
    if !matches!(response.result, ServerResult::ReadResourceResult(_)) {
        return message;
    }
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(line) else {
        return message;
    };
    match read_result(envelope.result) {
        Some(Read::Raw(raw)) => {
            JsonRpcMessage::response(ServerResult::CustomResult(CustomResult(raw)), envelope.id)
        }
        Some(Read::Typed(_)) | None => message,
    }
}

/// A `resources/read` result as the fast path reads it.
enum Read {
    Typed(ReadResourceResult),
    /// An item carries both `text` and `blob`: the whole result as JSON, for the raw path.
    Raw(serde_json::Value),
}

/// A `resources/read` result without serde's buffering: rmcp's `ResourceContents` is an
/// untagged enum, which buffers each item (its whole text) into serde's `Content` and copies
/// it again into the variant. The items are read into [`Item`] and mapped the way the untagged
/// enum would (text first, then blob); every other field goes through rmcp's own
/// `ReadResourceResult` with an empty `contents`, so they mean exactly what rmcp makes of them.
fn read_result(raw: &RawValue) -> Option<Read> {
    let shadow: ReadShadow<'_> = serde_json::from_str(raw.get()).ok()?;
    let items: Vec<Item> = serde_json::from_str(shadow.contents.get()).ok()?;
    if items.iter().any(|i| i.text.is_some() && i.blob.is_some()) {
        return serde_json::from_str(raw.get()).ok().map(Read::Raw);
    }
    let mut rest = shadow.rest;
    rest.insert("contents".to_owned(), serde_json::Value::Array(Vec::new()));
    let mut result: ReadResourceResult =
        serde_json::from_value(serde_json::Value::Object(rest)).ok()?;
    result.contents = items
        .into_iter()
        .map(Item::into_contents)
        .collect::<Option<_>>()?;
    Some(Read::Typed(result))
}

#[derive(Deserialize)]
struct ReadShadow<'a> {
    #[serde(borrow)]
    contents: &'a RawValue,
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

/// One `resources/read` item, either kind.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item {
    uri: String,
    mime_type: Option<String>,
    text: Option<String>,
    blob: Option<String>,
    #[serde(rename = "_meta")]
    meta: Option<MetaObject>,
}

impl Item {
    /// As rmcp's untagged `ResourceContents` reads it: text, or blob; neither is off-spec
    /// (`None`: the generic path and its per-item raw parse take over). Both never get
    /// here ([`read_result`] hands the raw result on).
    fn into_contents(self) -> Option<ResourceContents> {
        let Item {
            uri,
            mime_type,
            text,
            blob,
            meta,
        } = self;
        match (text, blob) {
            (Some(text), _) => Some(ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                meta,
            }),
            (None, Some(blob)) => Some(ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                meta,
            }),
            (None, None) => None,
        }
    }
}

/// Exactly a JSON-RPC success response: any other top-level key (`error`, `method`) or a
/// duplicate fails the parse and sends the line down the generic path.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    #[expect(dead_code)] // validated ("2.0"), not used
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(borrow)]
    result: &'a RawValue,
}

#[cfg(test)]
#[path = "typed_tests.rs"]
mod tests;
