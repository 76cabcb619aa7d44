//! Entry points for the `cargo fuzz` targets in `fuzz/` (not API): raw JSON results parsed the
//! way the host parses them when rmcp cannot type them, so the fuzzer drives the same
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

/// The streaming base64 decoder fed `text` cut at `cuts` (positions, clamped and sorted), then
/// finished: the decoded bytes, or `None` when it rejects the text.
pub fn decode_base64_in_slices(text: &[u8], cuts: &[usize]) -> Option<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (text.len() + 1)).collect();
    cuts.sort_unstable();
    let mut stream = super::blob::Base64Stream::default();
    let mut out = Vec::new();
    let mut from = 0;
    for cut in cuts.into_iter().chain([text.len()]) {
        stream.push(&text[from..cut], &mut out).ok()?;
        from = cut;
    }
    stream.finish(&mut out).ok()?;
    Some(out)
}
