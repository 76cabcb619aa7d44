//! `coyote mcp add` / `coyote mcp remove`: edit the user's mcp.json atomically, keeping the
//! other entries and their key order (the config crate does the file work).

use coyote_config::{
    AddOutcome, ConfigPaths, IfExists, ServerEntry, add_server, parse_env_assignment, parse_header,
    remove_server,
};

use serde_json::json;

use crate::exit::{CliError, CliResult};
use crate::output::print_json;

pub struct AddArgs {
    pub name: String,
    pub env: Vec<String>,
    pub url: Option<String>,
    /// `--transport http|sse`.
    pub transport: Option<String>,
    pub headers: Vec<String>,
    pub client_id: Option<String>,
    pub scopes: Vec<String>,
    pub force: bool,
    pub command: Vec<String>,
}

/// Adds (or with `--force` replaces) the entry; `json` prints `{"action", "name", "file"}`.
pub fn add(paths: &ConfigPaths, a: AddArgs, json: bool) -> CliResult {
    let usage = |e: coyote_config::ConfigError| CliError::usage(e.to_string());
    let entry = match (&a.url, a.command.split_first()) {
        (Some(url), None) => {
            if !a.env.is_empty() {
                return Err(CliError::usage(
                    "-e/--env applies to stdio servers; an HTTP server takes --header",
                ));
            }
            let mut http = match a.transport.as_deref() {
                Some("sse") => ServerEntry::sse(url.clone()),
                _ => ServerEntry::http(url.clone()),
            };
            for h in &a.headers {
                let (k, v) = parse_header(h).map_err(usage)?;
                http = http.header(k, v);
            }
            if let Some(id) = &a.client_id {
                http = http.client_id(id.clone());
            }
            for scope in &a.scopes {
                http = http.scope(scope.clone());
            }
            ServerEntry::Http(http)
        }
        (None, Some((cmd, args))) => {
            if a.client_id.is_some() || !a.scopes.is_empty() || !a.headers.is_empty() {
                return Err(CliError::usage(
                    "--client-id, --scope and --header apply to HTTP servers: give --url URL \
                     instead of a command",
                ));
            }
            let mut stdio = ServerEntry::stdio(cmd.clone()).args(args.iter().cloned());
            for e in &a.env {
                let (k, v) = parse_env_assignment(e).map_err(usage)?;
                stdio = stdio.env(k, v);
            }
            ServerEntry::Stdio(stdio)
        }
        (Some(_), Some(_)) => {
            return Err(CliError::usage(
                "give either --url or a command after --, not both",
            ));
        }
        (None, None) => {
            return Err(CliError::usage(
                "nothing to add: give a command after -- (`coyote mcp add NAME -- CMD ARGS…`) or --url URL",
            ));
        }
    };
    let path = paths.mcp_json();
    let if_exists = if a.force {
        IfExists::Replace
    } else {
        IfExists::Refuse
    };
    let outcome = add_server(&path, &a.name, &entry, if_exists).map_err(usage)?;
    let verb = match outcome {
        AddOutcome::Added => "added",
        AddOutcome::Replaced => "replaced",
    };
    if json {
        return print_json(&json!({"action": verb, "name": a.name, "file": path}));
    }
    crate::term::note_line(&format!(
        "{verb} MCP server '{}' in {}",
        a.name,
        path.display()
    ));
    Ok(())
}

/// Removes the entry; `json` prints `{"action": "removed", "name", "file"}`.
pub fn remove(paths: &ConfigPaths, name: &str, json: bool) -> CliResult {
    let path = paths.mcp_json();
    remove_server(&path, name).map_err(|e| CliError::usage(e.to_string()))?;
    if json {
        return print_json(&json!({"action": "removed", "name": name, "file": path}));
    }
    crate::term::note_line(&format!(
        "removed MCP server '{name}' from {}",
        path.display()
    ));
    Ok(())
}
