//! `coyote mcp servers|tools|resources|templates|prompts` (and the helpers `skills.rs` shares): listings as tables (people) or JSON
//! (`--json`, scripts). Listing all servers degrades per server: a failed server is reported on
//! stderr and the command exits 1 after printing what the others returned.

use std::future::Future;

use coyote_config::McpConfig;
use coyote_mcp::meta::{ExposureReport, MetaDispatcher};
use coyote_mcp::{McpError, McpRuntime, ServerHandle, ServerState};
use serde::Serialize;
use serde_json::{Value, json};

use crate::args::OutputArgs;
use crate::exit::{CliError, CliResult};
use crate::output::{Table, print_json, print_table, print_wrapped};

/// Rows of one kind from every targeted server, plus the failures.
pub(super) struct Gathered<T> {
    pub(super) rows: Vec<(String, T)>,
    failed: Vec<String>,
}

impl<T> Gathered<T> {
    /// Exit 1 when any server failed (its error was already printed).
    fn finish(&self) -> CliResult {
        if self.failed.is_empty() {
            Ok(())
        } else {
            Err(CliError::silent())
        }
    }
}

pub(super) async fn gather<T, F, Fut>(
    runtime: &McpRuntime,
    only: Option<&str>,
    list: F,
) -> Gathered<T>
where
    F: Fn(ServerHandle) -> Fut,
    Fut: Future<Output = Option<Result<Vec<T>, McpError>>>,
{
    let names = match only {
        Some(name) => vec![name.to_owned()],
        None => runtime.server_names(),
    };
    let mut out = Gathered {
        rows: Vec::new(),
        failed: Vec::new(),
    };
    for name in names {
        let result = match runtime.server(&name) {
            Ok(handle) => list(handle).await,
            Err(e) => Some(Err(e)),
        };
        match result {
            // The kind is not advertised by this server: nothing to list.
            None => {
                if only.is_some() {
                    crate::term::note_line(&format!(
                        "note: MCP server '{name}' does not advertise this capability"
                    ));
                }
            }
            Some(Ok(items)) => out
                .rows
                .extend(items.into_iter().map(|i| (name.clone(), i))),
            Some(Err(e)) => {
                crate::term::error_line(&e.to_string());
                out.failed.push(name);
            }
        }
    }
    out
}

#[derive(Serialize)]
struct WithServer<'a, T: Serialize> {
    server: &'a str,
    #[serde(flatten)]
    item: &'a T,
}

fn json_rows<T: Serialize>(rows: &[(String, T)]) -> Vec<Value> {
    rows.iter()
        .map(|(server, item)| {
            serde_json::to_value(WithServer { server, item }).unwrap_or(Value::Null)
        })
        .collect()
}

fn opt(s: &Option<String>) -> String {
    s.clone().unwrap_or_default()
}

/// The `exposure` object of a server row: configured and effective exposure, the `label`
/// shown in the table (`auto→direct`) and the declaration token estimates.
fn exposure_json(report: &ExposureReport) -> Value {
    let mut v = serde_json::to_value(report).unwrap_or(Value::Null);
    v["label"] = Value::from(report.label());
    v
}

/// The rows of entries that were never started: `config-error` and `disabled`.
fn unstarted_rows(config: &McpConfig) -> Vec<Value> {
    let row = |name: &str, source: &std::path::Path, state: &str, reason: Option<String>| {
        json!({"name": name, "source": source, "state": state, "transport": null, "reason": reason,
        "protocol_version": null, "server_name": null, "server_version": null,
        "capabilities": [], "counts": null, "exposure": null, "max_result_bytes": null,
        "max_result_bytes_source": null, "tool_limits": null})
    };
    let mut rows = Vec::new();
    for broken in &config.broken {
        let reason: Vec<String> = broken.problems.iter().map(ToString::to_string).collect();
        rows.push(row(
            &broken.name,
            &broken.source,
            "config-error",
            Some(reason.join("; ")),
        ));
    }
    for disabled in &config.disabled {
        rows.push(row(&disabled.name, &disabled.source, "disabled", None));
    }
    rows
}

/// `dispatcher` carries the configured exposures.
pub async fn servers(
    runtime: &McpRuntime,
    config: &McpConfig,
    dispatcher: &MetaDispatcher,
    out: OutputArgs,
    with_declarations: bool,
) -> CliResult {
    let mut rows = Vec::new();
    let budgets = dispatcher.budgets();
    for status in runtime.statuses() {
        let report = dispatcher.exposure_report(&status.name).await;
        let exposure = exposure_json(&report);
        let (max_result_bytes, budget_source) = budgets.for_server(&status.name);
        let counts = match runtime.server(&status.name) {
            Ok(handle) => Some(counts(&handle).await),
            Err(_) => None,
        };
        let (state, reason) = match &status.state {
            ServerState::Failed(reason) => ("failed", Some(reason.clone())),
            ServerState::NeedsAuth => (
                "needs-auth",
                Some(format!(
                    "needs sign-in: run `coyote mcp login {}`",
                    status.name
                )),
            ),
            other => (state_label(other), None),
        };
        let info = status.info.as_ref();
        let source = config
            .servers
            .iter()
            .find(|s| s.name == status.name)
            .map(|s| s.source.clone());
        rows.push(json!({
            "name": status.name,
            "source": source,
            "transport": status.transport,
            "state": state,
            "reason": reason,
            "protocol_version": info.and_then(|i| i.protocol_version.clone()),
            "server_name": info.and_then(|i| i.server_name.clone()),
            "server_version": info.and_then(|i| i.server_version.clone()),
            "capabilities": info.map(|i| capability_list(&i.capabilities)).unwrap_or_default(),
            "counts": counts,
            "exposure": exposure,
            "max_result_bytes": max_result_bytes,
            "max_result_bytes_source": budget_source,
            "tool_limits": budgets.tool_limits(&status.name),
        }));
        if with_declarations && let Some(row) = rows.last_mut() {
            row["declarations"] = serde_json::to_value(&report.declarations).unwrap_or_default();
        }
    }
    rows.extend(unstarted_rows(config));
    if out.json {
        return print_json(&rows);
    }
    if rows.is_empty() {
        crate::term::note_line(&format!(
            "no MCP servers configured in {}; add one with `coyote mcp add NAME -- CMD ARGS…`",
            config.user_file.display()
        ));
        return Ok(());
    }
    let (table, failures) = servers_table(&rows);
    print_table(&table, out.wide)?;
    for f in failures {
        print_wrapped(&format!("\n{f}\n"))?;
    }
    Ok(())
}

/// The `mcp servers` table of `rows`, and a `name: reason` line per server that failed.
fn servers_table(rows: &[Value]) -> (Table, Vec<String>) {
    let mut table = Table::new(vec![
        "name",
        "transport",
        "state",
        "protocol",
        "capabilities",
        "tools",
        "resources",
        "templates",
        "prompts",
        "exposure",
        "declared",
        "budget",
        "source",
    ])
    .flexible("capabilities")
    // Left out, in this order, where the terminal is too narrow (`--wide` shows them).
    .optional(&[
        "source",
        "budget",
        "declared",
        "templates",
        "protocol",
        "transport",
        "exposure",
        "prompts",
        "resources",
    ]);
    let mut failures = Vec::new();
    for r in rows {
        let s = |k: &str| r[k].as_str().unwrap_or("-").to_owned();
        let c = |k: &str| {
            r["counts"][k]
                .as_u64()
                .map_or("-".to_owned(), |n| n.to_string())
        };
        let caps: Vec<&str> = r["capabilities"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        table.row(vec![
            s("name"),
            s("transport"),
            s("state"),
            s("protocol_version"),
            if caps.is_empty() {
                "-".into()
            } else {
                caps.join(",")
            },
            c("tools"),
            c("resources"),
            c("templates"),
            c("prompts"),
            r["exposure"]["label"].as_str().unwrap_or("-").to_owned(),
            r["exposure"]["declared_tokens"]
                .as_u64()
                .map_or("-".to_owned(), |n| format!("~{n} tok")),
            budget_cell(r),
            r["source"]
                .as_str()
                .map_or("-".to_owned(), |p| short_path(std::path::Path::new(p))),
        ]);
        if let Some(reason) = r["reason"].as_str() {
            failures.push(format!("{}: {reason}", s("name")));
        }
    }
    (table, failures)
}

/// `20000 B`, `51200 B (default)`, plus `+N tool limits` when tools have their own.
fn budget_cell(row: &Value) -> String {
    let Some(bytes) = row["max_result_bytes"].as_u64() else {
        return "-".to_owned();
    };
    let mut cell = format!("{bytes} B");
    if row["max_result_bytes_source"] == "default" {
        cell.push_str(" (default)");
    }
    let tools = row["tool_limits"].as_object().map_or(0, |t| t.len());
    if tools > 0 {
        cell.push_str(&format!(" +{tools} tool limit(s)"));
    }
    cell
}

/// A config file's path for a table: relative to the current directory when under it, else
/// with `~` for the home directory.
fn short_path(path: &std::path::Path) -> String {
    if let Ok(cwd) = std::env::current_dir()
        && let Ok(rel) = path.strip_prefix(&cwd)
    {
        return rel.display().to_string();
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty())
        && let Ok(rel) = path.strip_prefix(&home)
    {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

fn state_label(state: &ServerState) -> &'static str {
    match state {
        ServerState::Idle => "idle (cached)",
        ServerState::Starting => "starting",
        ServerState::Ready => "ready",
        ServerState::Failed(_) => "failed",
        ServerState::NeedsAuth => "needs-auth",
        ServerState::Closed => "closed",
    }
}

fn capability_list(c: &coyote_mcp::ServerCapabilityFlags) -> Vec<&'static str> {
    let mut v = Vec::new();
    for (on, name) in [
        (c.tools, "tools"),
        (c.resources, "resources"),
        (c.prompts, "prompts"),
        (c.completions, "completions"),
        (c.logging, "logging"),
        (c.skills, "skills"),
        (c.tasks, "tasks"),
    ] {
        if on {
            v.push(name);
        }
    }
    v
}

/// Item counts per kind; `null` where the kind is not advertised, `"error"` where listing failed.
async fn counts(handle: &ServerHandle) -> Value {
    let caps = handle.info().capabilities;
    let n = |r: Result<usize, McpError>| match r {
        Ok(n) => json!(n),
        Err(e) => {
            tracing::warn!(server = handle.name(), "listing failed: {e}");
            json!("error")
        }
    };
    json!({
        "tools": if caps.tools { n(handle.list_tools().await.map(|v| v.len())) } else { Value::Null },
        "resources": if caps.resources { n(handle.list_resources().await.map(|v| v.len())) } else { Value::Null },
        "templates": if caps.resources { n(handle.list_resource_templates().await.map(|v| v.len())) } else { Value::Null },
        "prompts": if caps.prompts { n(handle.list_prompts().await.map(|v| v.len())) } else { Value::Null },
    })
}

/// Prints the gathered rows (JSON or a table with `headers`, one `row` per item) and exits 1
/// when a server failed.
pub(super) fn emit<T: Serialize>(
    g: &Gathered<T>,
    out: OutputArgs,
    headers: Vec<&'static str>,
    row: impl Fn(&str, &T) -> Vec<String>,
) -> CliResult {
    if out.json {
        print_json(&json_rows(&g.rows))?;
    } else {
        let mut t = Table::new(headers);
        for (server, item) in &g.rows {
            t.row(row(server, item));
        }
        print_table(&t, out.wide)?;
    }
    g.finish()
}

pub async fn tools(runtime: &McpRuntime, only: Option<&str>, out: OutputArgs) -> CliResult {
    let g = gather(runtime, only, |h| async move {
        if h.info().capabilities.tools {
            Some(h.list_tools().await)
        } else {
            None
        }
    })
    .await;
    emit(&g, out, vec!["server", "tool", "description"], |s, t| {
        vec![s.to_owned(), t.name.clone(), opt(&t.description)]
    })
}

pub async fn resources(runtime: &McpRuntime, only: Option<&str>, out: OutputArgs) -> CliResult {
    let g = gather(runtime, only, |h| async move {
        if h.info().capabilities.resources {
            Some(h.list_resources().await)
        } else {
            None
        }
    })
    .await;
    emit(
        &g,
        out,
        vec!["server", "uri", "name", "mime", "description"],
        |s, r| {
            vec![
                s.to_owned(),
                r.uri.clone(),
                r.name.clone(),
                opt(&r.mime_type),
                opt(&r.description),
            ]
        },
    )
}

pub async fn templates(runtime: &McpRuntime, only: Option<&str>, out: OutputArgs) -> CliResult {
    let g = gather(runtime, only, |h| async move {
        if h.info().capabilities.resources {
            Some(h.list_resource_templates().await)
        } else {
            None
        }
    })
    .await;
    emit(
        &g,
        out,
        vec!["server", "template", "name", "description"],
        |s, r| {
            vec![
                s.to_owned(),
                r.uri_template.clone(),
                r.name.clone(),
                opt(&r.description),
            ]
        },
    )
}

pub async fn prompts(runtime: &McpRuntime, only: Option<&str>, out: OutputArgs) -> CliResult {
    let g = gather(runtime, only, |h| async move {
        if h.info().capabilities.prompts {
            Some(h.list_prompts().await)
        } else {
            None
        }
    })
    .await;
    emit(
        &g,
        out,
        vec!["server", "prompt", "arguments", "description"],
        |s, p| {
            let args: Vec<String> = p
                .arguments
                .iter()
                .map(|a| {
                    if a.required {
                        format!("{}*", a.name)
                    } else {
                        a.name.clone()
                    }
                })
                .collect();
            vec![
                s.to_owned(),
                p.name.clone(),
                args.join(" "),
                opt(&p.description),
            ]
        },
    )?;
    if !out.json
        && g.rows
            .iter()
            .any(|(_, p)| p.arguments.iter().any(|a| a.required))
    {
        print_wrapped("(* = required argument)\n")?;
    }
    Ok(())
}
