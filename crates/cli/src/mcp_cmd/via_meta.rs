//! The `coyote mcp` commands that run through the meta-function dispatcher — `search`,
//! `retrieve`, `describe`, `read`, `prompt` and `meta` — so the shell sees exactly what a model would get
//! from `mcp_search_/describe_/read_/prompt_<server>`. Human output: text to stdout (it pipes),
//! notes about paging to stderr; `--json` prints the rendered object.

use coyote_config::ConfigPaths;
use coyote_mcp::meta::{DispatchBody, DispatchError, DispatchOutcome, MetaDispatcher};
use coyote_mcp::{FunctionTarget, McpError, McpRuntime, MetaFunction, MetaKind, SpillStore};
use serde_json::{Map, Value, json};

use crate::args::{KindArg, OutputArgs};
use crate::exit::{CliError, CliResult};
use crate::output::{Table, print, print_json, print_table};

/// A dispatcher spilling into `<cache>/mcp-resources`.
pub fn dispatcher(runtime: &McpRuntime, paths: &ConfigPaths) -> MetaDispatcher {
    MetaDispatcher::new(runtime.clone(), SpillStore::new(paths.mcp_resources_dir()))
}

async fn run(
    d: &MetaDispatcher,
    kind: MetaKind,
    server: &str,
    args: Value,
) -> CliResult<DispatchOutcome> {
    // The user names the server and the kind: nothing to resolve against a declaration set.
    let function = MetaFunction::new(kind, server);
    d.dispatch_target(&function.name(), FunctionTarget::Meta(function), args)
        .await
        .map_err(dispatch_error)
}

fn dispatch_error(e: DispatchError) -> CliError {
    if let DispatchError::Unavailable { server, state } = e {
        // The user's wording (the model's says what to ask the user).
        return crate::mcp_cmd::mcp_failure(McpError::ServerNotReady { server, state });
    }
    if e.is_usage() {
        CliError::usage(e.to_string())
    } else {
        CliError::failure(e.to_string())
    }
}

/// A direct tool name the exposure does not declare gets the user's explanation: why it is
/// not callable (the server's effective exposure) and what to run instead.
async fn not_declared_hint(e: DispatchError, name: &str, d: &MetaDispatcher) -> CliError {
    let DispatchError::NotDeclared { callable, .. } = &e else {
        return dispatch_error(e);
    };
    let Some((server, tool)) = name.split_once("__") else {
        return dispatch_error(e);
    };
    if !callable
        .iter()
        .any(|c| *c == format!("mcp_invoke_{server}"))
    {
        return dispatch_error(e);
    }
    let report = d.exposure_report(server).await;
    CliError::usage(format!(
        "{e}\n  {name} is not declared: MCP server '{server}' is exposed as {} (its tools are \
         not all declared one by one). Run it as the model would: coyote mcp meta \
         mcp_invoke_{server} '{{\"tool\": \"{tool}\", \"arguments\": {{…}}}}', or call it \
         with coyote mcp call {server} {tool} …, or set \"expose\": \"direct\" for the \
         server in mcp.json",
        report.label()
    ))
}

fn json_body(outcome: &DispatchOutcome) -> Value {
    match &outcome.body {
        DispatchBody::Json(v) => v.clone(),
        DispatchBody::Text(t) => Value::String(t.clone()),
    }
}

/// `coyote mcp retrieve SERVER TEXT`: what `retrieve` would declare for a user message.
pub async fn retrieve(d: &MetaDispatcher, server: &str, text: &str, out: OutputArgs) -> CliResult {
    let context = coyote_mcp::meta::RetrieveContext::user(text);
    let Some(chosen) = d.retrieve_preview(server, &context).await else {
        return Err(CliError::failure(format!(
            "cannot list the tools of MCP server '{server}' now; check `coyote mcp servers`"
        )));
    };
    if out.json {
        return print_json(&serde_json::to_value(&chosen).unwrap_or_default());
    }
    let mut t = Table::new(vec!["function", "why", "score", "tokens"]);
    for r in &chosen {
        let score = match r.why {
            coyote_mcp::meta::Why::Rank { score, .. } => format!("{score:.3}"),
            coyote_mcp::meta::Why::Mention | coyote_mcp::meta::Why::UsedEarlier => String::new(),
        };
        t.row(vec![
            r.function.clone(),
            r.why.label(),
            score,
            r.tokens.to_string(),
        ]);
    }
    if chosen.is_empty() {
        crate::capture::stderr_line(&format!(
            "no tool matches well enough to be declared (relevance floor); \
             mcp_search_{server} and mcp_invoke_{server} reach every tool"
        ));
        return Ok(());
    }
    print_table(&t, out.wide)?;
    let total: usize = chosen.iter().map(|r| r.tokens).sum();
    let tools = if chosen.len() == 1 { "tool" } else { "tools" };
    crate::capture::stderr_line(&format!(
        "{} {tools}, ~{total} tokens; mcp_search_{server} and mcp_invoke_{server} reach the rest",
        chosen.len()
    ));
    Ok(())
}

pub async fn search(
    d: &MetaDispatcher,
    server: &str,
    query: &str,
    top_k: usize,
    out: OutputArgs,
) -> CliResult {
    let outcome = run(
        d,
        MetaKind::Search,
        server,
        json!({ "query": query, "top_k": top_k }),
    )
    .await?;
    let body = json_body(&outcome);
    if out.json {
        return print_json(&body);
    }
    let mut t = Table::new(vec!["kind", "id", "description"]);
    for hit in body["results"].as_array().into_iter().flatten() {
        let s = |k: &str| hit[k].as_str().unwrap_or_default().to_owned();
        t.row(vec![s("kind"), s("id"), s("description")]);
    }
    print_table(&t, out.wide)?;
    for w in body["warnings"].as_array().into_iter().flatten() {
        crate::term::warning_line(w.as_str().unwrap_or_default());
    }
    Ok(())
}

pub async fn describe(
    d: &MetaDispatcher,
    server: &str,
    id: &str,
    kind: KindArg,
    out: OutputArgs,
) -> CliResult {
    let kind = match kind {
        KindArg::Tool => "tool",
        KindArg::Resource => "resource",
        KindArg::ResourceTemplate => "resource_template",
        KindArg::Prompt => "prompt",
    };
    let outcome = run(
        d,
        MetaKind::Describe,
        server,
        json!({ "tool": id, "kind": kind }),
    )
    .await?;
    // A description is structured either way; JSON is the readable form. Without `--json`
    // it is text for a person: sanitized on a terminal (JSON leaves C1 and bidi controls).
    let body = json_body(&outcome);
    if out.json {
        return print_json(&body);
    }
    let mut text = serde_json::to_string_pretty(&body)
        .map_err(|e| CliError::failure(format!("cannot encode the description: {e}")))?;
    text.push('\n');
    print(&text)
}

/// `coyote mcp complete`: the first `ARG=PREFIX` is completed, the rest are context. One value
/// per line (sanitized on a terminal); `--json` prints the completion object.
pub async fn complete(
    d: &MetaDispatcher,
    server: &str,
    prompt: Option<String>,
    template: Option<String>,
    args: &[String],
    out: OutputArgs,
) -> CliResult {
    let (kind, name) = match (prompt, template) {
        (Some(p), _) => ("prompt", p),
        (None, Some(t)) => ("resource_template", t),
        (None, None) => return Err(CliError::usage("give --prompt NAME or --template URI")),
    };
    let mut pairs = Vec::new();
    for a in args {
        let (k, v) = a.split_once('=').ok_or_else(|| {
            CliError::usage(format!(
                "{a:?} is not ARG=PREFIX; write e.g. department=Eng"
            ))
        })?;
        pairs.push((k.to_owned(), v.to_owned()));
    }
    let Some(((argument, value), context)) = pairs.split_first() else {
        return Err(CliError::usage(
            "give the argument to complete as ARG=PREFIX",
        ));
    };
    let context: Map<String, Value> = context.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    let call = json!({
        "kind": kind,
        "name": name,
        "complete": { "argument": argument, "value": value, "context": context },
    });
    let outcome = run(d, MetaKind::Describe, server, call).await?;
    let body = json_body(&outcome);
    let completion = body["completion"].clone();
    if out.json {
        return print_json(&json!({
            "server": server,
            "kind": kind,
            "name": name,
            "argument": argument,
            "value": value,
            "values": completion["values"],
            "total": completion["total"],
            "has_more": completion["has_more"],
        }));
    }
    let mut text = String::new();
    for v in completion["values"].as_array().into_iter().flatten() {
        text.push_str(v.as_str().unwrap_or_default());
        text.push('\n');
    }
    print(&text)?;
    if completion["has_more"] == json!(true) {
        crate::term::note_line("note: the server has more values; type a longer prefix");
    }
    Ok(())
}

pub struct ReadArgs {
    pub uri: String,
    pub template_args: Vec<String>,
    pub pattern: Option<String>,
    pub offset: Option<u64>,
    pub max_bytes: Option<u64>,
}

pub async fn read(d: &MetaDispatcher, server: &str, a: ReadArgs, out: OutputArgs) -> CliResult {
    let vars = coyote_mcp::prompt::parse_kv_list(a.template_args.iter().map(String::as_str))
        .map_err(|e| CliError::usage(format!("--arg: {e}; write --arg key=value")))?;
    let mut args = Map::new();
    args.insert("uri".into(), json!(a.uri));
    if !vars.is_empty() {
        args.insert("arguments".into(), json!(vars));
    }
    if let Some(p) = a.pattern {
        args.insert("pattern".into(), json!(p));
    }
    if let Some(o) = a.offset {
        args.insert("offset".into(), json!(o));
    }
    if let Some(m) = a.max_bytes {
        args.insert("max_bytes".into(), json!(m));
    }
    let outcome = run(d, MetaKind::Read, server, Value::Object(args)).await?;
    let body = json_body(&outcome);
    let items = match &body {
        Value::Array(items) => items.clone(),
        other => vec![other.clone()],
    };
    if out.json {
        print_json(&body)?;
        // A refused entry (a blob over the limit, an off-spec entry) fails the command in
        // JSON as in text, so scripts and `batch --json` see exit 1.
        return if items.iter().any(|item| item["error"].is_string()) {
            Err(CliError::silent())
        } else {
            Ok(())
        };
    }
    let mut failed = false;
    for item in &items {
        if let Some(text) = item["text"].as_str() {
            print(text)?;
            // On a terminal the prompt must not follow the text on its last line; piped output
            // keeps the exact bytes.
            if !text.ends_with('\n') && crate::term::caps().ttys.stdout {
                print("\n")?;
            }
            if item["truncated"] == json!(true) {
                crate::term::note_line(&format!(
                    "note: showing part of {} ({} bytes in all); next page: --offset {}",
                    item["uri"].as_str().unwrap_or("the resource"),
                    item["total_bytes"],
                    item["next_offset"]
                ));
            }
        } else if item["spilled"] == json!(true) {
            print(&format!("{}\n", item["path"].as_str().unwrap_or_default()))?;
            crate::term::note_line(&format!(
                "binary content ({}, {} bytes, sha256 {}) saved to the path above",
                item["mime_type"].as_str().unwrap_or("unknown type"),
                item["size_bytes"],
                item["sha256"].as_str().unwrap_or_default()
            ));
        } else if let Some(err) = item["error"].as_str() {
            crate::term::error_line(err);
            failed = true;
        } else if let Some(note) = item["note"].as_str() {
            crate::term::note_line(&format!("note: {note}"));
        }
    }
    if failed {
        Err(CliError::silent())
    } else {
        Ok(())
    }
}

pub async fn prompt(
    d: &MetaDispatcher,
    server: &str,
    name: &str,
    args: Vec<String>,
    out: OutputArgs,
) -> CliResult {
    let parsed = coyote_mcp::prompt::parse_kv_list(args.iter().map(String::as_str))
        .map_err(|e| CliError::usage(format!("{e}; write arguments as key=value")))?;
    let outcome = run(
        d,
        MetaKind::Prompt,
        server,
        json!({ "prompt": name, "arguments": parsed }),
    )
    .await?;
    let text = outcome.to_model_text();
    if out.json {
        return print_json(&json!({ "server": server, "prompt": name, "text": text }));
    }
    print(&text)?;
    if !text.ends_with('\n') {
        print("\n")?;
    }
    Ok(())
}

/// `coyote mcp meta NAME 'JSON'`: the exact text the model would receive.
/// With `json`, `{"function_name", "is_error", "text"}` instead.
pub async fn meta(d: &MetaDispatcher, name: &str, json_args: &str, json: bool) -> CliResult {
    let args: Value = serde_json::from_str(json_args)
        .map_err(|e| CliError::usage(format!("the arguments must be a JSON object: {e}")))?;
    let outcome = match d.dispatch(name, args).await {
        Ok(outcome) => outcome,
        Err(e) => return Err(not_declared_hint(e, name, d).await),
    };
    let mut text = outcome.to_model_text();
    if json {
        print_json(&json!({"function_name": name, "is_error": outcome.is_error, "text": text}))?;
    } else {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        print(&text)?;
    }
    if outcome.is_error {
        Err(CliError::silent())
    } else {
        Ok(())
    }
}
