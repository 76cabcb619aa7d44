//! What one meta-function or direct-tool call returns to the model ([`DispatchOutcome`]): the
//! body, and for a tool's result the header line naming the tool and the plain text of an
//! all-text result (small models answer from text, and keep re-calling on JSON).
//!
//! Invariants: the bounded result is never changed here — only framed (a header line) or, when
//! every item is a text block, shown as that text with its truncation note.

use serde_json::Value;

use super::MetaFunction;

/// The result of one meta-function call, ready for the model.
#[derive(Debug, Clone, PartialEq)]
pub struct DispatchOutcome {
    /// The meta-function that ran.
    pub function: MetaFunction,
    /// What it returns to the model.
    pub body: DispatchBody,
    /// The tool reported `isError` (invoke only); the body is still the tool's output.
    pub is_error: bool,
    /// The tool an invoke (meta or direct) ran; its result text opens with a header naming it.
    pub tool: Option<String>,
}

/// What the model receives.
#[derive(Debug, Clone, PartialEq)]
pub enum DispatchBody {
    /// A JSON value, sent as compact JSON.
    Json(Value),
    /// Prompt results: one labelled text block.
    Text(String),
}

impl DispatchOutcome {
    /// The text handed to the model: compact JSON (context is the scarce resource), or the
    /// flattened prompt text.
    ///
    /// A tool's result opens with one header line saying plainly that it is the tool's output
    /// and that the model should answer from it (small models otherwise keep
    /// searching); the bounded result (and any `coyote-result://` handle) follows unchanged.
    pub fn to_model_text(&self) -> String {
        let body = match &self.body {
            // A tool's plain text answer goes to the model as that text: small models answer
            // from text but keep re-calling when they get the MCP JSON around it.
            DispatchBody::Json(v) if self.tool.is_some() => {
                plain_text_result(v).unwrap_or_else(|| serde_json::to_string(v).unwrap_or_default())
            }
            DispatchBody::Json(v) => serde_json::to_string(v).unwrap_or_default(),
            DispatchBody::Text(t) => t.clone(),
        };
        match &self.tool {
            Some(tool) => format!(
                "{}\n{body}",
                result_header(tool, &self.function.server, self.is_error)
            ),
            None => body,
        }
    }
}

/// The texts of a bounded tool result (`{content, is_error}`) whose items are all text blocks
/// — bare `{type: text, text}`, or cut at the budget (`truncated`, its `note` and `handle`:
/// then the text and the note on its own line) — joined by newlines; `None` keeps the JSON
/// form (annotations, other kinds, structured content, omitted items).
fn plain_text_result(result: &Value) -> Option<String> {
    const CUT_KEYS: [&str; 7] = [
        "type",
        "text",
        "truncated",
        "total_bytes",
        "next_offset",
        "note",
        "handle",
    ];
    let object = result.as_object()?;
    if object.keys().any(|k| k != "content" && k != "is_error") {
        return None;
    }
    let items = object.get("content")?.as_array()?;
    if items.is_empty() {
        return None;
    }
    let mut texts = Vec::with_capacity(items.len());
    for item in items {
        let item = item.as_object()?;
        if item.get("type")?.as_str()? != "text" {
            return None;
        }
        let text = item.get("text")?.as_str()?;
        if item.len() == 2 {
            texts.push(text.to_owned());
        } else if item.get("truncated") == Some(&Value::Bool(true))
            && item.contains_key("handle")
            && item.keys().all(|k| CUT_KEYS.contains(&k.as_str()))
        {
            texts.push(format!("{text}\n{}", item.get("note")?.as_str()?));
        } else {
            return None;
        }
    }
    Some(texts.join("\n"))
}

/// The first line of a tool's result as the model reads it.
pub fn result_header(tool: &str, server: &str, is_error: bool) -> String {
    if is_error {
        format!(
            "Error result of tool `{tool}` on MCP server `{server}`: fix the arguments or tell \
             the user; do not repeat the same call."
        )
    } else {
        format!(
            "Result of tool `{tool}` on MCP server `{server}`: answer the user from it unless \
             you need another tool."
        )
    }
}
