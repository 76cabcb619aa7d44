//! Entry points for the `cargo fuzz` targets in `fuzz/` (not API): raw JSON results parsed the
//! way the host parses them when rmcp cannot type them (R1), so the fuzzer drives the same
//! defensive conversion and then the content policy.

use serde_json::Value;

use crate::content::{PromptResult, ResourceContent, ToolCallOutcome};

/// A `tools/call` result from raw JSON, item by item.
pub fn tool_outcome_from_json(raw: Value) -> ToolCallOutcome {
    crate::convert::tool_outcome_raw(raw)
}

/// `resources/read` contents from raw JSON (`{"contents": [...]}`), item by item.
pub fn resource_contents_from_json(raw: Value) -> Vec<ResourceContent> {
    crate::convert::resource_contents_raw(raw)
}

/// A `prompts/get` result from raw JSON, message by message.
pub fn prompt_result_from_json(raw: Value) -> PromptResult {
    crate::convert::prompt_result_raw(raw)
}
