//! The five behaviours behind the meta-functions, on a Ready server's handle. Public so the
//! CLI (`coyote mcp read|describe|prompt|search`) runs exactly what the model runs.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::MetaKind;
use super::error::DispatchError;
use super::page_cache::PageCache;
use crate::catalog::{CatalogKind, PromptInfo};
use crate::content::{ContentItem, ResourceContent, TaskInfo};
use crate::handle::{CompletionRef, ServerHandle};
use crate::prompt::{DeclaredArgument, check_required, flatten};
use crate::render::{
    RESULT_HANDLE_SCHEME, ReadOptions, RenderContext, SpillStore, bound_text, bound_tool_result,
    render_resource_contents, render_text, render_text_contents,
};
use crate::search::CatalogIndex;
use crate::uri_template::{UriTemplate, is_template};

/// Completion values shown per template variable in `describe`.
pub const DESCRIBE_COMPLETIONS_MAX: usize = 20;

/// The arguments of `mcp_search_<server>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// What to look for.
    pub query: String,
    /// Already clamped (see [`crate::search::clamp_top_k`]).
    pub top_k: usize,
    /// Only items of this kind.
    pub kind: Option<CatalogKind>,
    /// Results to skip (the previous page's `next_offset`).
    pub offset: usize,
}

/// The arguments of `mcp_describe_<server>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribeRequest {
    /// The item's id (tool name, URI, template or prompt name).
    pub id: String,
    /// The item's kind.
    pub kind: CatalogKind,
    /// Values for one argument of a prompt or template instead of the description.
    pub complete: Option<CompleteArgs>,
}

/// `complete` of `mcp_describe_<server>`: which argument, its typed prefix, the others given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompleteArgs {
    /// The prompt argument or template variable.
    pub argument: String,
    /// What is typed so far (may be empty).
    pub value: String,
    /// The arguments already chosen (sent as the request's `context`).
    pub context: BTreeMap<String, String>,
}

/// The arguments of `mcp_read_<server>`.
#[derive(Debug, Clone)]
pub struct ReadRequest {
    /// A URI, a template (expanded with `arguments`) or a `coyote-result://` handle.
    pub uri: String,
    /// Values of the template's variables.
    pub arguments: BTreeMap<String, String>,
    /// Paging and filtering of the text read.
    pub options: ReadOptions,
}

/// The arguments of `mcp_prompt_<server>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptRequest {
    /// The prompt's name.
    pub name: String,
    /// Its arguments, as strings.
    pub arguments: BTreeMap<String, String>,
}

/// `mcp_search_`: BM25 over the live catalog (or, for an empty query, the catalog in order),
/// optionally of one kind, one page from `offset`; kinds that failed to list become warnings.
/// The answer says whether more results remain (`more`, `next_offset`).
pub async fn search(handle: &ServerHandle, req: SearchRequest) -> Result<Value, DispatchError> {
    let catalog = handle.catalog().await;
    let index = CatalogIndex::new(&catalog.items);
    let ranked: Vec<_> = index
        .rank(&req.query)
        .into_iter()
        .filter(|hit| req.kind.is_none_or(|kind| hit.item.kind == kind))
        .collect();
    let total = ranked.len();
    let end = req.offset.saturating_add(req.top_k).min(total);
    let hits: Vec<Value> = ranked
        .get(req.offset.min(total)..end)
        .unwrap_or_default()
        .iter()
        .map(|hit| serde_json::to_value(hit.view()).unwrap_or(Value::Null))
        .collect();
    let more = end < total;
    let mut out = json!({ "results": hits, "total": total, "more": more });
    if more {
        out["next_offset"] = Value::from(end);
    }
    if hits_empty(&out) {
        let what = req.kind.map_or("item".to_owned(), |k| k.to_string());
        let of_kind = catalog
            .items
            .iter()
            .filter(|item| req.kind.is_none_or(|kind| item.kind == kind))
            .count();
        out["hint"] = Value::from(if req.offset > 0 && req.offset >= total {
            format!(
                "offset {} is past the last of {total} result(s)",
                req.offset
            )
        } else if of_kind == 0 {
            format!(
                "MCP server '{}' has no {what}s ({} item(s) of other kinds); search without `kind`",
                handle.name(),
                catalog.items.len()
            )
        } else {
            format!(
                "nothing matched {:?} among {of_kind} {what}(s); try other words, or an empty \
                 query to list items",
                req.query
            )
        });
    }
    if !catalog.warnings.is_empty() {
        out["warnings"] = json!(catalog.warnings);
    }
    Ok(out)
}

fn hits_empty(out: &Value) -> bool {
    out["results"].as_array().is_none_or(Vec::is_empty)
}

fn not_found(handle: &ServerHandle, kind: CatalogKind, id: &str) -> DispatchError {
    DispatchError::NotFound {
        function: MetaKind::Describe.function_name(handle.name()),
        server: handle.name().to_string(),
        kind,
        id: id.to_string(),
        hint: format!(
            "call {} to find the exact id (and its kind)",
            MetaKind::Search.function_name(handle.name())
        ),
    }
}

/// `mcp_describe_`: the full description of one item of `kind`.
pub async fn describe(handle: &ServerHandle, req: DescribeRequest) -> Result<Value, DispatchError> {
    if let Some(complete) = &req.complete {
        return describe_completion(handle, &req, complete).await;
    }
    let id = req.id.as_str();
    match req.kind {
        CatalogKind::Tool => {
            let tool = handle
                .list_tools()
                .await?
                .into_iter()
                .find(|t| t.name == id);
            let tool = tool.ok_or_else(|| not_found(handle, req.kind, id))?;
            Ok(json!({
                "kind": "tool",
                "name": tool.name,
                "title": tool.title,
                "description": tool.description,
                "inputSchema": tool.input_schema,
                "outputSchema": tool.output_schema,
                "annotations": tool.annotations,
            }))
        }
        CatalogKind::Resource => {
            let resource = handle
                .list_resources()
                .await?
                .into_iter()
                .find(|r| r.uri == id);
            let r = resource.ok_or_else(|| not_found(handle, req.kind, id))?;
            Ok(json!({
                "kind": "resource",
                "uri": r.uri,
                "name": r.name,
                "title": r.title,
                "description": r.description,
                "mime_type": r.mime_type,
                "size": r.size,
                "annotations": r.annotations,
                "read_with": MetaKind::Read.function_name(handle.name()),
            }))
        }
        CatalogKind::ResourceTemplate => describe_template(handle, id).await,
        CatalogKind::Prompt => {
            let prompt = find_prompt(handle, id)
                .await?
                .ok_or_else(|| not_found(handle, req.kind, id))?;
            Ok(json!({
                "kind": "prompt",
                "name": prompt.name,
                "title": prompt.title,
                "description": prompt.description,
                "arguments": prompt.arguments.iter().map(|a| json!({
                    "name": a.name,
                    "title": a.title,
                    "description": a.description,
                    "required": a.required,
                    "type": "string",
                })).collect::<Vec<_>>(),
                "get_with": MetaKind::Prompt.function_name(handle.name()),
            }))
        }
    }
}

async fn describe_template(handle: &ServerHandle, id: &str) -> Result<Value, DispatchError> {
    let templates = handle.list_resource_templates().await?;
    let t = templates
        .into_iter()
        .find(|t| t.uri_template == id || t.name == id)
        .ok_or_else(|| not_found(handle, CatalogKind::ResourceTemplate, id))?;
    let mut out = json!({
        "kind": "resource_template",
        "uri_template": t.uri_template,
        "name": t.name,
        "title": t.title,
        "description": t.description,
        "mime_type": t.mime_type,
        "annotations": t.annotations,
    });
    match UriTemplate::parse(&t.uri_template) {
        Ok(template) => {
            let variables: Vec<String> = template
                .variables()
                .into_iter()
                .map(str::to_string)
                .collect();
            if handle.features().completions {
                let mut completions = Map::new();
                for var in &variables {
                    let target = CompletionRef::ResourceTemplate(t.uri_template.clone());
                    // Completion is a hint: a failure leaves the variable out, it is no error.
                    if let Ok(mut values) = handle.complete(target, var, "").await {
                        values.truncate(DESCRIBE_COMPLETIONS_MAX);
                        completions.insert(var.clone(), json!(values));
                    }
                }
                out["completions"] = Value::Object(completions);
            }
            out["variables"] = json!(variables);
            out["read_with"] = Value::from(format!(
                "{} with uri set to the template and arguments holding every variable",
                MetaKind::Read.function_name(handle.name())
            ));
        }
        Err(e) => out["template_error"] = Value::from(e.to_string()),
    }
    Ok(out)
}

/// `mcp_describe_` with `complete`: the server's values for one argument (through
/// `completion/complete`, with the other arguments as context).
async fn describe_completion(
    handle: &ServerHandle,
    req: &DescribeRequest,
    complete: &CompleteArgs,
) -> Result<Value, DispatchError> {
    if !handle.features().completions {
        return Err(DispatchError::BadArguments {
            function: MetaKind::Describe.function_name(handle.name()),
            problem: format!(
                "server {:?} does not offer argument completion; describe the item without \
                 `complete` to see its arguments",
                handle.name()
            ),
        });
    }
    let (kind, target) = if req.kind == CatalogKind::Prompt {
        ("prompt", CompletionRef::Prompt(req.id.clone()))
    } else {
        let uri = if is_template(&req.id) {
            req.id.clone()
        } else {
            // A template's name: the request names its uriTemplate.
            let templates = handle.list_resource_templates().await?;
            templates
                .into_iter()
                .find(|t| t.name == req.id)
                .map(|t| t.uri_template)
                .ok_or_else(|| not_found(handle, req.kind, &req.id))?
        };
        ("resource_template", CompletionRef::ResourceTemplate(uri))
    };
    let found = handle
        .complete_with(
            target,
            &complete.argument,
            &complete.value,
            &complete.context,
        )
        .await?;
    Ok(json!({
        "kind": kind,
        "name": req.id,
        "completion": {
            "argument": complete.argument,
            "value": complete.value,
            "values": found.values,
            "total": found.total,
            "has_more": found.has_more,
        },
    }))
}

async fn find_prompt(
    handle: &ServerHandle,
    name: &str,
) -> Result<Option<PromptInfo>, DispatchError> {
    Ok(handle
        .list_prompts()
        .await?
        .into_iter()
        .find(|p| p.name == name))
}

/// Where a result goes: the spill store for what does not reach the model, and the result's
/// budget ([`crate::render::budget`]).
#[derive(Debug, Clone, Copy)]
pub struct Output<'a> {
    /// Spilled binaries and the text behind result handles.
    pub spill: &'a SpillStore,
    /// Bytes of the result that may reach the model.
    pub max_result_bytes: usize,
    /// Text resources read recently (the dispatcher's).
    pub(crate) pages: &'a PageCache,
}

/// `mcp_invoke_`: calls the tool and bounds its result (budget); returns
/// `(result, is_error)`.
pub async fn invoke(
    handle: &ServerHandle,
    out: Output<'_>,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<(Value, bool), DispatchError> {
    // A tool that runs as an MCP task is waited for as long as a call may take; past that the
    // model gets the task's id and status, and checks it later with `task`.
    let wait = Some(handle.call_timeout());
    let mut outcome = handle.call_tool_within(tool, arguments, wait).await?;
    if let Some(task) = outcome.task.as_ref().filter(|t| !t.is_terminal()) {
        outcome.content = vec![ContentItem::Text {
            text: still_running(handle, tool, task),
            annotations: None,
        }];
    }
    let is_error = outcome.is_error;
    let value = off_runtime(handle, out, move |ctx| bound_tool_result(outcome, ctx)).await;
    Ok((value, is_error))
}

/// What the model reads of a tool call that outlived its wait: the task goes on, and how to
/// check it.
fn still_running(handle: &ServerHandle, tool: &str, task: &TaskInfo) -> String {
    let status = match &task.status_message {
        Some(m) => format!("{} ({m})", task.status),
        None => task.status.clone(),
    };
    format!(
        "Tool `{tool}` is still running as task `{id}`: {status}. Its result stays with the \
         server; check it later with {describe}({{\"kind\": \"task\", \"name\": \"{id}\"}}).",
        id = task.task_id,
        describe = MetaKind::Describe.function_name(handle.name()),
    )
}

/// `mcp_describe_` with `kind: "task"`: the state of a tool call still running as an MCP
/// task; once it has completed, its result (bounded like `mcp_invoke_`'s).
pub async fn task(
    handle: &ServerHandle,
    out: Output<'_>,
    id: &str,
) -> Result<(Value, bool), DispatchError> {
    let task = handle.get_task(id).await?;
    if task.status != "completed" {
        let mut value = json!({ "task": { "id": task.task_id, "status": task.status } });
        if let Some(message) = task.status_message {
            value["task"]["status_message"] = json!(message);
        }
        return Ok((value, task.status == "failed"));
    }
    let outcome = handle.task_result(id).await?;
    let is_error = outcome.is_error;
    let value = off_runtime(handle, out, move |ctx| bound_tool_result(outcome, ctx)).await;
    Ok((value, is_error))
}

/// `mcp_read_`: a result handle from the spill store, or a (templated) resource from the
/// server (or the page cache, when it read it recently); pages are at most the budget.
pub async fn read(
    handle: &ServerHandle,
    out: Output<'_>,
    req: ReadRequest,
) -> Result<Value, DispatchError> {
    let options = req.options.within(out.max_result_bytes);
    if req.uri.starts_with(RESULT_HANDLE_SCHEME) {
        let text = out.spill.read_result_text(handle.name(), &req.uri)?;
        let rendered = render_text(&req.uri, Some("text/plain"), &text, &options);
        return Ok(serde_json::to_value(rendered).unwrap_or(Value::Null));
    }
    let uri = if is_template(&req.uri) {
        UriTemplate::parse(&req.uri)?.expand(&req.arguments)?
    } else {
        req.uri
    };
    if let Some(cached) = out.pages.get(handle, &uri) {
        return Ok(off_runtime(handle, out, move |ctx| {
            render_text_contents(&cached, &options, ctx)
        })
        .await);
    }
    // The version before the request: an update racing the answer leaves the entry stale.
    let version = handle.resource_version(&uri);
    let contents = handle.read_resource(&uri).await?;
    if contents
        .iter()
        .all(|c| matches!(c, ResourceContent::Text { .. }))
    {
        let contents = Arc::new(contents);
        out.pages.put(handle, &uri, version, &contents);
        return Ok(off_runtime(handle, out, move |ctx| {
            render_text_contents(&contents, &options, ctx)
        })
        .await);
    }
    Ok(off_runtime(handle, out, move |ctx| {
        render_resource_contents(contents, &options, ctx)
    })
    .await)
}

/// `mcp_prompt_`: checks required arguments against the listing (when the listing works),
/// gets the prompt and flattens it into one labelled block, cut at the budget.
pub async fn prompt(
    handle: &ServerHandle,
    out: Output<'_>,
    req: PromptRequest,
) -> Result<String, DispatchError> {
    // A failing listing must not block a prompt the server can still serve.
    if let Ok(Some(info)) = find_prompt(handle, &req.name).await {
        let declared: Vec<DeclaredArgument<'_>> = info
            .arguments
            .iter()
            .map(|a| DeclaredArgument {
                name: &a.name,
                description: a.description.as_deref(),
                required: a.required,
            })
            .collect();
        check_required(&req.name, &req.arguments, &declared)?;
    }
    let result = handle.get_prompt(&req.name, req.arguments).await?;
    Ok(off_runtime(handle, out, move |ctx| {
        bound_text(flatten(&result, ctx), ctx)
    })
    .await)
}

/// Runs `render` (base64 decoding, hashing, spill-file writes: blocking work of up to
/// [`crate::render::MAX_BLOB_DECODED_BYTES`]) on the blocking pool, not on a runtime worker.
pub(super) async fn off_runtime<T, F>(handle: &ServerHandle, out: Output<'_>, render: F) -> T
where
    T: Send + 'static,
    F: FnOnce(&RenderContext<'_>) -> T + Send + 'static,
{
    let server = handle.name().to_string();
    let read_function = MetaKind::Read.function_name(&server);
    let spill = out.spill.clone();
    let max_result_bytes = out.max_result_bytes;
    let task = tokio::task::spawn_blocking(move || {
        render(&RenderContext {
            server: &server,
            spill: &spill,
            read_function: &read_function,
            max_result_bytes,
        })
    });
    match task.await {
        Ok(value) => value,
        // Never cancelled (nothing aborts it): a join error is a panic, re-raised as if inline.
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}
