//! `completion/complete` on a Ready server, as an `impl ServerHandle` block built on
//! [`ServerHandle::request`]: the typed prefix, the arguments already given as `context`
//! (so a dependent argument gets values that fit the earlier ones), and the server's `total`
//! and `hasMore` when it sends them. Callers bound the wait themselves where a person types
//! (2 s in the REPL); a failure is theirs to keep silent.

use std::collections::{BTreeMap, HashMap};

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext,
    Reference, ServerResult,
};
use serde::Serialize;
use serde_json::Value;

use crate::error::McpError;
use crate::handle::{CompletionRef, ServerHandle};

/// Candidate values for one argument, as the server answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Completion {
    /// The values, in the server's order (at most 100 by the spec).
    pub values: Vec<String>,
    /// How many values exist in all, when the server says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist than were sent, when the server says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

const METHOD: &str = "completion/complete";

impl ServerHandle {
    /// `completion/complete`: candidate values for one argument, without context.
    pub async fn complete(
        &self,
        target: CompletionRef,
        arg_name: &str,
        value: &str,
    ) -> Result<Vec<String>, McpError> {
        Ok(self
            .complete_with(target, arg_name, value, &BTreeMap::new())
            .await?
            .values)
    }

    /// `completion/complete` with the arguments already given as `context` (left out when
    /// empty).
    pub async fn complete_with(
        &self,
        target: CompletionRef,
        arg_name: &str,
        value: &str,
        context: &BTreeMap<String, String>,
    ) -> Result<Completion, McpError> {
        let reference = match target {
            CompletionRef::Prompt(name) => Reference::for_prompt(name),
            CompletionRef::ResourceTemplate(uri) => Reference::for_resource(uri),
        };
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(arg_name, value));
        if !context.is_empty() {
            let arguments: HashMap<String, String> = context
                .iter()
                .filter(|(k, _)| k.as_str() != arg_name)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            params = params.with_context(CompletionContext::with_arguments(arguments));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        match self.request(METHOD, request).await? {
            ServerResult::CompleteResult(r) => Ok(Completion {
                values: r.completion.values,
                total: r.completion.total.map(u64::from),
                has_more: r.completion.has_more,
            }),
            other => {
                let raw = match other {
                    ServerResult::CustomResult(raw) => raw.0,
                    other => serde_json::to_value(&other).unwrap_or(Value::Null),
                };
                self.untyped(&raw)
            }
        }
    }

    /// A result rmcp could not type, read per field.
    fn untyped(&self, raw: &Value) -> Result<Completion, McpError> {
        let values = raw
            .pointer("/completion/values")
            .and_then(Value::as_array)
            .ok_or_else(|| McpError::Protocol {
                server: self.name().to_owned(),
                method: METHOD.to_owned(),
                message: "the result has no completion.values array".to_owned(),
            })?;
        Ok(Completion {
            values: values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            total: raw.pointer("/completion/total").and_then(Value::as_u64),
            has_more: raw.pointer("/completion/hasMore").and_then(Value::as_bool),
        })
    }
}
