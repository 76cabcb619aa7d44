//! `tools/call`'s helpers: the rounds of protocol 2026-07-28's `input_required` results (see
//! `crate::mrtr`) and the tool's `outputSchema` its structured content is checked against.

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ServerResult};
use serde_json::{Map, Value};

use super::ServerHandle;
use crate::error::McpError;
use crate::mrtr::{self, MAX_INPUT_ROUNDS};

impl ServerHandle {
    /// `tools/call` until a result that is not `input_required` (protocol 2026-07-28): each
    /// round's requests are answered by the connection's handler (see `crate::mrtr`) and the
    /// call is sent again as a new request with the answers and the unchanged `requestState`.
    pub(super) async fn call_tool_rounds(
        &self,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<ServerResult, McpError> {
        let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(args);
        for _ in 0..=MAX_INPUT_ROUNDS {
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
            let result = match self.request("tools/call", request).await? {
                ServerResult::InputRequiredResult(needed) => needed,
                result => return Ok(result),
            };
            let Some(inputs) = self.inner.inputs.as_deref() else {
                break;
            };
            let peer = &self.inner.peer;
            let (responses, state) = mrtr::answer(&self.inner.name, result, |key, request| {
                inputs.respond(key, request, peer.clone())
            })
            .await?;
            params.input_responses = responses;
            params.request_state = state;
        }
        Err(McpError::Protocol {
            server: self.inner.name.clone(),
            method: "tools/call".to_owned(),
            message: format!(
                "the server still asked for input after {MAX_INPUT_ROUNDS} rounds of answers"
            ),
        })
    }

    /// The `outputSchema` of `tool` from the latest tool listing; when the listing has not
    /// named the tool yet, the tools are listed once (a failure means no check).
    pub(super) async fn output_schema(&self, tool: &str) -> Option<Value> {
        let known = self.known_output_schema(tool);
        if let Some(known) = known {
            return known;
        }
        match self.list_tools().await {
            Ok(_) => self.known_output_schema(tool).flatten(),
            Err(e) => {
                tracing::debug!(server = %self.inner.name, "cannot list tools to check output: {e}");
                None
            }
        }
    }

    /// `Some(schema or none)` when the latest listing named `tool`.
    fn known_output_schema(&self, tool: &str) -> Option<Option<Value>> {
        let schemas = self
            .inner
            .output_schemas
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        schemas.get(tool).cloned()
    }
}
