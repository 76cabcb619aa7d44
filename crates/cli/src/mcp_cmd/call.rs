//! `coyote mcp call SERVER TOOL [key=value… | --json-args JSON]`: arguments are coerced by the
//! tool's `inputSchema`; the result's text goes to stdout (or the whole result with `--json`);
//! a result with `isError` exits 1 after printing what the server said. While the call runs,
//! its progress is shown on stderr ([`crate::client::progress`]), except with `--json`.

use coyote_mcp::{ContentItem, ServerHandle, ToolCallOutcome};
use serde_json::{Map, Value};

use crate::args::OutputArgs;
use crate::coerce::coerce_args;
use crate::exit::{CliError, CliResult};
use crate::mcp_cmd::mcp_failure;
use crate::output::{print, print_json};

/// How the user gave the arguments.
pub enum ArgsInput {
    Pairs(Vec<String>),
    Json(String),
}

impl ArgsInput {
    pub fn new(pairs: Vec<String>, json: Option<String>) -> Self {
        match json {
            Some(j) => ArgsInput::Json(j),
            None => ArgsInput::Pairs(pairs),
        }
    }
}

pub async fn call(
    handle: &ServerHandle,
    tool: &str,
    input: ArgsInput,
    out: OutputArgs,
) -> CliResult {
    let args = build_args(handle, tool, input).await?;
    // Progress on stderr while the call runs; `--json` keeps stdout one document and shows none.
    let call = handle.call_tool(tool, args);
    let outcome = if out.json {
        call.await
    } else {
        let progress = crate::ui::progress::StderrProgress::start(tool);
        let outcome = coyote_mcp::progress::observe(progress.observer(), call).await;
        progress.finish();
        outcome
    }
    .map_err(mcp_failure)?;
    report(&outcome, out)
}

/// Prints a tool's result: its text (or the whole result with `--json`) on stdout, a schema
/// warning on stderr; a result with `isError` exits 1.
pub(super) fn report(outcome: &ToolCallOutcome, out: OutputArgs) -> CliResult {
    if let Some(warning) = &outcome.schema_warning {
        warn(warning);
    }
    if out.json {
        print_json(outcome)?;
    } else {
        print(&human(outcome))?;
    }
    if outcome.is_error {
        Err(CliError::silent())
    } else {
        Ok(())
    }
}

/// A warning about the result (sanitized) on stderr; stdout carries the result.
fn warn(warning: &str) {
    crate::term::warning_line(warning);
}

async fn build_args(
    handle: &ServerHandle,
    tool: &str,
    input: ArgsInput,
) -> CliResult<Map<String, Value>> {
    match input {
        ArgsInput::Json(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(CliError::usage(
                "--json-args must be a JSON object, e.g. '{\"a\": 1}'",
            )),
            Err(e) => Err(CliError::usage(format!(
                "--json-args is not valid JSON: {e}"
            ))),
        },
        ArgsInput::Pairs(pairs) => {
            if pairs.is_empty() {
                return Ok(Map::new());
            }
            let parsed = coyote_mcp::prompt::parse_kv_list(pairs.iter().map(String::as_str))
                .map_err(|e| CliError::usage(format!("{e}; write arguments as key=value")))?;
            // The schema types the values; without it (tool unknown) everything stays a string
            // and the server reports what is wrong.
            let schema = match handle.list_tools().await {
                Ok(tools) => tools
                    .into_iter()
                    .find(|t| t.name == tool)
                    .map(|t| t.input_schema),
                Err(e) => {
                    tracing::warn!(
                        "cannot list tools of '{}' to type arguments: {e}",
                        handle.name()
                    );
                    None
                }
            }
            .unwrap_or(Value::Null);
            coerce_args(&schema, parsed.into_iter().collect()).map_err(|e| CliError::usage(e.0))
        }
    }
}

/// Text for people: text blocks verbatim; other blocks as one descriptive line each.
fn human(outcome: &ToolCallOutcome) -> String {
    let mut s = String::new();
    for item in &outcome.content {
        match item {
            ContentItem::Text { text, .. } => s.push_str(text),
            ContentItem::Image {
                mime_type,
                data_base64,
            } => s.push_str(&format!(
                "[image {}, {} bytes base64; use --json or `coyote mcp meta` to save it]",
                mime_type.as_deref().unwrap_or("?"),
                data_base64.len()
            )),
            ContentItem::Audio {
                mime_type,
                data_base64,
            } => s.push_str(&format!(
                "[audio {}, {} bytes base64]",
                mime_type.as_deref().unwrap_or("?"),
                data_base64.len()
            )),
            ContentItem::ResourceLink { uri, name, .. } => s.push_str(&format!(
                "[resource link {uri}{}]",
                name.as_deref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default()
            )),
            ContentItem::Resource { resource } => match resource {
                coyote_mcp::ResourceContent::Text { text, .. } => s.push_str(text),
                coyote_mcp::ResourceContent::Blob { uri, mime_type, .. } => s.push_str(&format!(
                    "[embedded blob {uri} {}]",
                    mime_type.as_deref().unwrap_or("")
                )),
                coyote_mcp::ResourceContent::Invalid { reason, .. } => {
                    s.push_str(&format!("[invalid resource: {reason}]"))
                }
            },
            ContentItem::Invalid { index, reason } => {
                s.push_str(&format!("[invalid content block #{index}: {reason}]"))
            }
        }
        if !s.ends_with('\n') {
            s.push('\n');
        }
    }
    if outcome.content.is_empty()
        && let Some(sc) = &outcome.structured_content
    {
        s.push_str(&serde_json::to_string_pretty(sc).unwrap_or_default());
        s.push('\n');
    }
    s
}
