//! `tools/call`'s helpers: the rounds of protocol 2026-07-28's `input_required` results (see
//! `crate::mrtr`), error -32042 (a page the user must open first: asked like a URL
//! elicitation, then the call is sent once more), and the tool's `outputSchema` its
//! structured content is checked against.

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, InputRequest, ServerRequest,
    ServerResult,
};
use serde_json::{Map, Value, json};

use super::ServerHandle;
use crate::error::McpError;
use crate::mrtr::{self, MAX_INPUT_ROUNDS};

/// JSON-RPC error code of `URLElicitationRequiredError`: the user must open a page first.
pub const URL_ELICITATION_REQUIRED: i32 = -32042;

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
        let mut pages_opened = false;
        for _ in 0..=MAX_INPUT_ROUNDS {
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
            let result = match self.request("tools/call", request).await {
                Ok(ServerResult::InputRequiredResult(needed)) => needed,
                Ok(result) => return Ok(result),
                Err(McpError::Rpc { code, data, .. }) if code == URL_ELICITATION_REQUIRED => {
                    let pages = data.map(|d| *d).unwrap_or_default();
                    if pages_opened {
                        return Err(self.input_not_given(
                            "it still asks for the page(s) it needed opened after the user \
                             opened them; try again once the page says it is done",
                        ));
                    }
                    self.open_required_pages(pages).await?;
                    pages_opened = true;
                    continue;
                }
                Err(e) => return Err(e),
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

    /// Error -32042 (`URLElicitationRequiredError`): the server needs the user to open the
    /// page(s) in `data.elicitations` before the call can succeed. Each is asked like a URL
    /// elicitation the server sent as a request (shown with its site, opened only on consent
    /// and only when https or loopback http); `Ok` when every one was accepted, so the call
    /// is sent once more.
    async fn open_required_pages(&self, data: Value) -> Result<(), McpError> {
        let pages = data["elicitations"].as_array().cloned().unwrap_or_default();
        let Some(inputs) = self.inner.inputs.as_deref().filter(|_| !pages.is_empty()) else {
            return Err(self.input_not_given(
                "it needs a page opened first (error -32042) but named none coyote can show",
            ));
        };
        for page in pages {
            let id = page["elicitationId"].as_str().unwrap_or("page").to_owned();
            let request: InputRequest =
                serde_json::from_value(json!({"method": "elicitation/create", "params": page}))
                    .map_err(|e| {
                        self.input_not_given(&format!(
                            "it asked to open a page coyote cannot read ({e})"
                        ))
                    })?;
            let InputRequest::Elicitation(request) = request else {
                return Err(self.input_not_given("it asked for something that is not a page"));
            };
            let url = page["url"].as_str().unwrap_or("?");
            let answer = inputs
                .respond(
                    id,
                    ServerRequest::ElicitRequest(request),
                    self.inner.peer.clone(),
                )
                .await
                .map_err(|e| self.input_not_given(&e.message))?;
            if answer["action"] != "accept" {
                return Err(self.input_not_given(&format!(
                    "it needs the user to open {url} first, and the user did not (answered \
                     {})",
                    answer["action"].as_str().unwrap_or("nothing")
                )));
            }
        }
        Ok(())
    }

    fn input_not_given(&self, reason: &str) -> McpError {
        McpError::InputNotGiven {
            server: self.inner.name.clone(),
            method: "tools/call".to_owned(),
            reason: reason.to_owned(),
        }
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
