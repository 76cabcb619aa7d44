//! `coyote mcp watch SERVER URI [--count N] [--call TOOL] [--read] [--json]`: subscribes to a
//! resource (`resources/subscribe`), optionally calls a tool once in the same session (a server
//! such as server-everything sends updates only after its `toggle-subscriber-updates`), prints one line per `notifications/resources/updated` (with
//! `--read`, the resource read again through the content policy), and unsubscribes on the way
//! out: after `--count` updates (exit 0), on Ctrl-C (exit 130). A server without
//! `resources.subscribe`, or one that goes away while watched, exits 1 with the reason.

use coyote_mcp::meta::MetaDispatcher;
use coyote_mcp::subscription::ResourceUpdate;
use coyote_mcp::{MetaFunction, MetaKind, ServerHandle};
use serde_json::{Value, json};

use crate::exit::{CliError, CliResult};
use crate::mcp_cmd::mcp_failure;
use crate::output::print;

/// How long a watch whose server went away waits for updates still on their way.
const LATE_UPDATES: std::time::Duration = std::time::Duration::from_millis(250);

/// What `watch` was asked for.
pub struct WatchArgs {
    pub uri: String,
    pub count: Option<u64>,
    /// A tool called once after subscribing (servers that send updates only then).
    pub call: Option<String>,
    pub read: bool,
    pub json: bool,
}

pub async fn watch(handle: &ServerHandle, d: &MetaDispatcher, a: WatchArgs) -> CliResult {
    let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .map_err(|e| CliError::failure(format!("cannot watch for Ctrl-C: {e}")))?;
    let mut updates = handle.resource_updates();
    handle
        .subscribe_resource(&a.uri)
        .await
        .map_err(mcp_failure)?;
    if !a.json {
        crate::term::note_line(&format!(
            "watching {} on MCP server `{}`{} (Ctrl-C stops)",
            a.uri,
            handle.name(),
            a.count
                .map(|n| format!(" for {n} update(s)"))
                .unwrap_or_default()
        ));
    }
    if let Some(tool) = &a.call {
        call_once(handle, &a.uri, tool).await?;
    }
    let mut seen = 0u64;
    let outcome = loop {
        if a.count.is_some_and(|n| seen >= n) {
            break Ok(());
        }
        tokio::select! {
            update = updates.next() => match update {
                ResourceUpdate::Updated(uri) => {
                    seen += 1;
                    show(d, handle.name(), &uri, &a).await?;
                }
                ResourceUpdate::Skipped(n) => {
                    crate::term::warning_line(&format!("{n} update(s) came too fast and were skipped"));
                }
                ResourceUpdate::Closed => break Err(gone(handle, &a.uri, "the connection closed")),
            },
            state = handle.gone() => {
                // What the server sent just before it went away is still shown.
                for update in updates.late(LATE_UPDATES).await {
                    if a.count.is_some_and(|n| seen >= n) {
                        break;
                    }
                    if let ResourceUpdate::Updated(uri) = update {
                        seen += 1;
                        show(d, handle.name(), &uri, &a).await?;
                    }
                }
                if a.count.is_some_and(|n| seen >= n) {
                    break Ok(());
                }
                break Err(gone(handle, &a.uri, &state.to_string()));
            }
            _ = sigint.recv() => break Err(CliError::interrupted("")),
        }
    };
    // Unsubscribe on every way out but a server that is gone (nothing to tell it then).
    if !matches!(&outcome, Err(e) if e.code() == 1)
        && handle.state() == coyote_mcp::ServerState::Ready
        && let Err(e) = handle.unsubscribe_resource(&a.uri).await
    {
        crate::term::warning_line(&format!("unsubscribing from {} failed: {e}", a.uri));
    }
    outcome
}

/// `--call TOOL`: the tool runs once; a failure (the subscription then undone) exits 1.
async fn call_once(handle: &ServerHandle, uri: &str, tool: &str) -> CliResult {
    let failed = match handle.call_tool(tool, serde_json::Map::new()).await {
        Ok(outcome) if !outcome.is_error => return Ok(()),
        Ok(_) => format!("the tool `{tool}` answered with an error"),
        Err(e) => format!("calling `{tool}` failed: {e}"),
    };
    if let Err(e) = handle.unsubscribe_resource(uri).await {
        crate::term::warning_line(&format!("unsubscribing from {uri} failed: {e}"));
    }
    Err(CliError::failure(failed))
}

fn gone(handle: &ServerHandle, uri: &str, why: &str) -> CliError {
    CliError::failure(format!(
        "MCP server `{}` went away while {uri} was watched: {why}",
        handle.name()
    ))
}

/// One update: a line (`TIME URI`), or a JSON line; with `--read`, the content after it.
async fn show(d: &MetaDispatcher, server: &str, uri: &str, a: &WatchArgs) -> CliResult {
    let time = utc_now();
    let content = if a.read {
        // The user names the server: nothing to resolve against a declaration set.
        let function = MetaFunction::new(MetaKind::Read, server);
        let name = function.name();
        let target = coyote_mcp::FunctionTarget::Meta(function);
        match d
            .dispatch_target(&name, target, json!({ "uri": uri }))
            .await
        {
            Ok(outcome) => Some(outcome.to_model_text()),
            Err(e) => {
                crate::term::warning_line(&format!("reading {uri} failed: {e}"));
                None
            }
        }
    } else {
        None
    };
    let mut text = if a.json {
        let mut event = json!({"type": "updated", "server": server, "uri": uri, "time": time});
        if let Some(content) = &content {
            event["content"] = Value::String(content.clone());
        }
        event.to_string()
    } else {
        format!("{time} {uri}")
    };
    text.push('\n');
    if !a.json
        && let Some(content) = content
    {
        text.push_str(&content);
        if !content.ends_with('\n') {
            text.push('\n');
        }
    }
    print(&text)
}

/// The time now as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn utc_now() -> String {
    coyote_protocol::utc::UtcTime::now().rfc3339()
}
