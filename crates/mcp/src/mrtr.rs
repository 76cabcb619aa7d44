//! Multi-round-trip requests (SEP-2322, protocol 2026-07-28): a server that needs something
//! from the client while answering `tools/call` returns `resultType: "input_required"` with
//! `inputRequests` (elicitation, sampling, roots) and an opaque `requestState`. Each input
//! request is answered by the connection's own client handler — the same elicitation hook
//! (and so the same questions to the person) as a server-initiated request on the older
//! protocol — and the call is sent again, as a new request, with `inputResponses` and the
//! `requestState` exactly as received.
//!
//! Invariants: nothing is approved on the person's behalf (a declined question is sent back
//! as declined, never as accepted); `requestState` is never inspected or changed; at most
//! [`MAX_INPUT_ROUNDS`] rounds answer one call.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::RoleClient;
use rmcp::model::{
    ClientResult, ErrorData, InputRequest, InputRequiredResult, InputResponses, RequestId,
    ServerRequest,
};
use rmcp::service::{Peer, RequestContext, Service};
use serde_json::Value;

use crate::client_handler::Handler;
use crate::error::McpError;

/// Rounds of `input_required` answered for one call before it fails.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// Answers the requests a server embeds in an `input_required` result.
pub(crate) trait InputResponder: Send + Sync {
    /// The client's result for one embedded request, as JSON.
    fn respond(
        &self,
        key: String,
        request: ServerRequest,
        peer: Peer<RoleClient>,
    ) -> BoxFuture<'_, Result<Value, ErrorData>>;
}

impl InputResponder for Handler {
    fn respond(
        &self,
        key: String,
        request: ServerRequest,
        peer: Peer<RoleClient>,
    ) -> BoxFuture<'_, Result<Value, ErrorData>> {
        Box::pin(async move {
            let context = RequestContext::new(RequestId::String(Arc::from(key)), peer);
            let result: ClientResult = self.handle_request(request, context).await?;
            serde_json::to_value(result).map_err(|e| {
                ErrorData::internal_error(format!("cannot encode an answer: {e}"), None)
            })
        })
    }
}

/// The `inputResponses` and `requestState` of the retry after `result`; `respond` answers one
/// embedded request (normally [`InputResponder::respond`]).
pub(crate) async fn answer<F, Fut>(
    server: &str,
    result: InputRequiredResult,
    mut respond: F,
) -> Result<(Option<InputResponses>, Option<String>), McpError>
where
    F: FnMut(String, ServerRequest) -> Fut,
    Fut: Future<Output = Result<Value, ErrorData>>,
{
    let requests = result.input_requests.unwrap_or_default();
    if requests.is_empty() && result.request_state.is_none() {
        return Err(McpError::Protocol {
            server: server.to_owned(),
            method: "tools/call".to_owned(),
            message: "an input_required result without inputRequests or requestState".to_owned(),
        });
    }
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let request = match request {
            InputRequest::Elicitation(r) => ServerRequest::ElicitRequest(r),
            InputRequest::CreateMessage(r) => ServerRequest::CreateMessageRequest(r),
            InputRequest::ListRoots(r) => ServerRequest::ListRootsRequest(r),
            other => {
                return Err(McpError::Protocol {
                    server: server.to_owned(),
                    method: "tools/call".to_owned(),
                    message: format!("an input request of an unknown kind: {other:?}"),
                });
            }
        };
        let value = respond(key.clone(), request)
            .await
            .map_err(|e| McpError::InputNotGiven {
                server: server.to_owned(),
                method: "tools/call".to_owned(),
                reason: e.message.to_string(),
            })?;
        responses.insert(key, value);
    }
    Ok((
        (!responses.is_empty()).then_some(responses),
        result.request_state,
    ))
}

#[cfg(test)]
#[path = "mrtr_tests.rs"]
mod tests;
