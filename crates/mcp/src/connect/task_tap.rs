//! The parts of the 2025-11-25 task wire (SEP-1686, "tasks") that rmcp does not model, at the
//! transport's byte level: rmcp drops the server's `capabilities.tasks`, each tool's
//! `execution.taskSupport` and the `task` parameter of a server's sampling/elicitation request
//! on deserialisation, and cannot put `tasks` into the client's capabilities.
//!
//! - The HTTP answers (JSON bodies and SSE events) are tapped into the connection's
//!   `TaskFacts` here (the stdio line transport taps its lines itself).
//! - [`with_task_capability`] adds `capabilities.tasks` to an outgoing `initialize`, claiming
//!   task-augmented sampling/elicitation only when the request already advertises them.
//!
//! Invariant: nothing here ever changes what rmcp receives.

use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use rmcp::transport::streamable_http_client::StreamableHttpPostResponse;
use serde_json::json;
use sse_stream::{Error as SseError, Sse};

use crate::client_handler::Generations;

tokio::task_local! {
    /// The connection whose HTTP POST is being answered: its JSON body is tapped where it is
    /// read ([`tap_current`]), deep in the POST layers, without a parameter through each.
    pub(crate) static TAP: Arc<Generations>;
}

/// Taps a JSON answer read under [`TAP`] (nothing outside it).
pub(crate) fn tap_current(body: &[u8]) {
    let _ = TAP.try_with(|generations| generations.tasks.tap(body));
}

/// A POST's answer with its event stream tapped (a JSON answer was tapped when read).
pub(crate) fn tap_post_answer(
    answer: StreamableHttpPostResponse,
    generations: Arc<Generations>,
) -> StreamableHttpPostResponse {
    match answer {
        StreamableHttpPostResponse::Sse(events, session) => {
            StreamableHttpPostResponse::Sse(tap_events(events, generations), session)
        }
        other => other,
    }
}

/// `events` with each event's data tapped as it passes.
pub(crate) fn tap_events(
    events: BoxStream<'static, Result<Sse, SseError>>,
    generations: Arc<Generations>,
) -> BoxStream<'static, Result<Sse, SseError>> {
    events
        .inspect(move |event| {
            if let Ok(Sse {
                data: Some(data), ..
            }) = event
            {
                generations.tasks.tap(data.as_bytes());
            }
        })
        .boxed()
}

/// The bytes of `message` with `capabilities.tasks` added when it is an `initialize` request;
/// `None` for every other message (serialise it as usual).
pub(crate) fn with_task_capability(message: &ClientJsonRpcMessage) -> Option<Vec<u8>> {
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    if !matches!(request.request, ClientRequest::InitializeRequest(_)) {
        return None;
    }
    let mut value = serde_json::to_value(message).ok()?;
    let caps = value.pointer_mut("/params/capabilities")?.as_object_mut()?;
    let mut requests = serde_json::Map::new();
    if caps.contains_key("sampling") {
        requests.insert("sampling".into(), json!({ "createMessage": {} }));
    }
    if caps.contains_key("elicitation") {
        requests.insert("elicitation".into(), json!({ "create": {} }));
    }
    caps.insert(
        "tasks".into(),
        json!({ "list": {}, "cancel": {}, "requests": requests }),
    );
    serde_json::to_vec(&value).ok()
}

#[cfg(test)]
#[path = "task_tap_tests.rs"]
mod tests;
