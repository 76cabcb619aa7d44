//! What the informational commands show: `.info`, `.list tools|prompts|resources|mcp-servers`
//! and `.mcp status`. Each returns text (the loop prints it), so tests compare whole strings.
//!
//! Invariants:
//! - Listings cover the enabled servers; an idle server is listed from its cached catalog
//!   (with a note), a server that is not Ready or whose listing fails is reported on its own
//!   line and never hides the others (degrade per server).
//! - Everything shown passes through a [`Redactor`]: API keys, mcp.json `env` values, header
//!   values and bearer tokens never appear (a failed server's stderr tail could echo them).

use std::time::Duration;

use coyote_mcp::meta::MetaDispatcher;
use coyote_mcp::{McpError, McpRuntime, ServerHandle, ServerState};
use coyote_protocol::{McpServerSpec, McpTransport};

use crate::output::Table;

/// Bound of one server's listing for a `.list` (the server's call timeout applies as well).
pub const LIST_TIMEOUT: Duration = Duration::from_secs(30);

/// Shortest secret that is redacted (shorter values would blank out ordinary words).
const MIN_SECRET_LEN: usize = 4;

/// Replaces known secret values with `<redacted>`.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Secrets of the MCP specs: stdio `env` values, HTTP header values, bearer tokens (read
    /// from their variables through `env`).
    pub fn from_specs(specs: &[McpServerSpec], env: &dyn Fn(&str) -> Option<String>) -> Self {
        let mut redactor = Redactor::default();
        for spec in specs {
            match &spec.transport {
                McpTransport::Stdio(stdio) => {
                    for value in stdio.env.values() {
                        redactor.add(value);
                    }
                }
                McpTransport::Http(http) | McpTransport::Sse(http) => {
                    for (_, value) in &http.headers {
                        redactor.add(value);
                        // `Authorization: Bearer X`: X alone may be echoed too.
                        if let Some((_, token)) = value.split_once(' ') {
                            redactor.add(token);
                        }
                    }
                    if let Some(token) = http.bearer_token_env.as_deref().and_then(env) {
                        redactor.add(&token);
                    }
                }
            }
        }
        redactor
    }

    pub fn add(&mut self, secret: &str) {
        let secret = secret.trim();
        if secret.len() >= MIN_SECRET_LEN && !self.secrets.iter().any(|s| s == secret) {
            self.secrets.push(secret.to_owned());
            // Longest first, so a secret containing another is replaced whole.
            self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "<redacted>");
            }
        }
        out
    }
}

/// The servers a listing covers, with the handle of each Ready one.
pub(super) fn enabled_servers(
    runtime: &McpRuntime,
    enabled: &dyn Fn(&str) -> bool,
) -> Vec<(String, Result<ServerHandle, McpError>)> {
    runtime
        .server_names()
        .into_iter()
        .filter(|n| enabled(n))
        .map(|n| {
            let handle = runtime.server(&n);
            (n, handle)
        })
        .collect()
}

/// The `.list` targets that go to servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    Tools,
    Prompts,
    Resources,
}

/// `.list tools|prompts|resources`.
pub async fn list(
    runtime: &McpRuntime,
    enabled: &dyn Fn(&str) -> bool,
    what: Listing,
    redactor: &Redactor,
) -> String {
    let servers = enabled_servers(runtime, enabled);
    if servers.is_empty() {
        return "No MCP servers are enabled; configure one with `coyote mcp add`.\n".to_owned();
    }
    let mut table = match what {
        Listing::Tools => Table::new(vec!["server", "tool", "description"]),
        Listing::Prompts => Table::new(vec!["server", "prompt", "description", "arguments"]),
        Listing::Resources => Table::new(vec!["server", "uri", "name", "mime type"]),
    };
    let mut notes = Vec::new();
    let mut any_required = false;
    for (name, handle) in servers {
        let source = match handle {
            Ok(handle) => Source::Live(handle),
            Err(_) => match runtime.cached_catalog(&name) {
                // An idle server lists what it had last time (it starts on first use).
                Some(cached) => {
                    notes.push(format!(
                        "{name}: idle — listed from its cached catalog; it starts on first use"
                    ));
                    Source::Cached(cached)
                }
                None => {
                    let state = runtime.state(&name).unwrap_or(ServerState::Closed);
                    notes.push(format!("{name}: {state}"));
                    continue;
                }
            },
        };
        let caps = source.capabilities();
        let advertised = match what {
            Listing::Tools => caps.tools,
            Listing::Prompts => caps.prompts,
            Listing::Resources => caps.resources,
        };
        if !advertised {
            continue;
        }
        let failed = |e: String| format!("{name}: listing failed: {e}");
        match what {
            Listing::Tools => match source.tools().await {
                Ok(tools) => {
                    for t in tools {
                        table.row(vec![
                            name.clone(),
                            t.name,
                            t.description.unwrap_or_default(),
                        ]);
                    }
                }
                Err(e) => notes.push(failed(e)),
            },
            Listing::Prompts => match source.prompts().await {
                Ok(prompts) => {
                    for p in prompts {
                        let args: Vec<String> = p
                            .arguments
                            .iter()
                            .map(|a| {
                                any_required |= a.required;
                                if a.required {
                                    format!("{}*", a.name)
                                } else {
                                    a.name.clone()
                                }
                            })
                            .collect();
                        table.row(vec![
                            name.clone(),
                            p.name,
                            p.description.unwrap_or_default(),
                            args.join(" "),
                        ]);
                    }
                }
                Err(e) => notes.push(failed(e)),
            },
            Listing::Resources => match source.resources().await {
                Ok(resources) => {
                    for r in resources {
                        table.row(vec![
                            name.clone(),
                            r.uri,
                            r.name,
                            r.mime_type.unwrap_or_default(),
                        ]);
                    }
                }
                Err(e) => notes.push(failed(e)),
            },
        }
    }
    let mut out = table.render();
    if any_required {
        out.push_str("(* = required argument)\n");
    }
    for note in notes {
        out.push_str(&note);
        out.push('\n');
    }
    redactor.redact(&out)
}

/// Where a listing comes from: the live server, or an idle server's cached catalog.
enum Source {
    Live(ServerHandle),
    Cached(std::sync::Arc<coyote_mcp::catalog_cache::CachedCatalog>),
}

impl Source {
    fn capabilities(&self) -> coyote_mcp::ServerCapabilityFlags {
        match self {
            Source::Live(handle) => handle.info().capabilities,
            Source::Cached(cached) => cached.info.capabilities.clone(),
        }
    }

    async fn tools(&self) -> Result<Vec<coyote_mcp::ToolInfo>, String> {
        match self {
            Source::Live(handle) => bounded(handle.list_tools()).await,
            Source::Cached(cached) => Ok(cached.tools.clone()),
        }
    }

    async fn prompts(&self) -> Result<Vec<coyote_mcp::PromptInfo>, String> {
        match self {
            Source::Live(handle) => bounded(handle.list_prompts()).await,
            Source::Cached(cached) => Ok(cached.prompts.clone()),
        }
    }

    async fn resources(&self) -> Result<Vec<coyote_mcp::ResourceInfo>, String> {
        match self {
            Source::Live(handle) => bounded(handle.list_resources()).await,
            Source::Cached(cached) => Ok(cached.resources.clone()),
        }
    }
}

pub(super) async fn bounded<T>(
    future: impl Future<Output = Result<T, McpError>>,
) -> Result<T, String> {
    match tokio::time::timeout(LIST_TIMEOUT, future).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!(
            "no answer within {} s; try again or see `.mcp status`",
            LIST_TIMEOUT.as_secs()
        )),
    }
}

/// `.mcp status` and `.list mcp-servers`: every configured server with its state.
pub fn servers(
    runtime: &McpRuntime,
    enabled: &dyn Fn(&str) -> bool,
    redactor: &Redactor,
) -> String {
    let statuses = runtime.statuses();
    if statuses.is_empty() {
        return "No MCP servers are configured; add one with `coyote mcp add`.\n".to_owned();
    }
    let mut table = Table::new(vec!["server", "transport", "state", "enabled", "offers"]);
    let mut reasons = Vec::new();
    for s in statuses {
        let offers = s
            .info
            .as_ref()
            .map(|i| {
                let c = &i.capabilities;
                [
                    (c.tools, "tools"),
                    (c.resources, "resources"),
                    (c.prompts, "prompts"),
                    (c.completions, "completions"),
                    (c.skills, "skills"),
                    (c.tasks, "tasks"),
                ]
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, n)| *n)
                .collect::<Vec<_>>()
                .join(",")
            })
            .unwrap_or_default();
        let state = match &s.state {
            ServerState::Failed(reason) => {
                reasons.push(format!("{}: failed: {reason}", s.name));
                "failed".to_owned()
            }
            ServerState::NeedsAuth => {
                reasons.push(format!(
                    "{}: needs sign-in: run `.mcp login {}`",
                    s.name, s.name
                ));
                "needs-auth".to_owned()
            }
            other => other.to_string(),
        };
        let on = if enabled(&s.name) { "yes" } else { "no" };
        table.row(vec![s.name, s.transport, state, on.to_owned(), offers]);
    }
    let mut out = table.render();
    for r in reasons {
        out.push_str(&r);
        out.push('\n');
    }
    redactor.redact(&out)
}

/// `.info`'s exposure table: per enabled server, how its tools are declared
/// (`auto→direct`, `meta`, …), how many tools it lists, the estimated tokens of what is
/// declared for it and its result budget. A server whose listing does not answer within [`LIST_TIMEOUT`] shows `?`.
pub async fn exposure(
    dispatcher: &MetaDispatcher,
    enabled: &dyn Fn(&str) -> bool,
    redactor: &Redactor,
) -> String {
    let names: Vec<String> = dispatcher
        .runtime()
        .server_names()
        .into_iter()
        .filter(|n| enabled(n))
        .collect();
    if names.is_empty() {
        return String::new();
    }
    let mut table = Table::new(vec![
        "server",
        "exposure",
        "tools",
        "declared",
        "result budget",
    ]);
    let budgets = dispatcher.budgets();
    for name in names {
        let (bytes, source) = budgets.for_server(&name);
        let mut budget = format!("{bytes} bytes");
        if source == coyote_mcp::render::BudgetSource::Default {
            budget.push_str(" (default)");
        }
        let tools = budgets.tool_limits(&name);
        if !tools.is_empty() {
            let each: Vec<String> = tools.iter().map(|(t, b)| format!("{t} {b}")).collect();
            budget.push_str(&format!("; {}", each.join(", ")));
        }
        let row = match tokio::time::timeout(LIST_TIMEOUT, dispatcher.exposure_report(&name)).await
        {
            Ok(report) => vec![
                name,
                report.label(),
                report.tools.map_or("-".to_owned(), |n| n.to_string()),
                format!("~{} tokens", report.declared_tokens),
                budget,
            ],
            Err(_) => vec![name, "?".into(), "?".into(), "?".into(), budget],
        };
        table.row(row);
    }
    let mut text = format!("\n{}", redactor.redact(&table.render()));
    let retrieved = dispatcher.retrieved();
    if !retrieved.is_empty() {
        let each: Vec<String> = retrieved
            .iter()
            .map(|r| format!("{} ({})", r.function, r.why.label()))
            .collect();
        text.push_str(&format!(
            "\nretrieved in the last request: {}\n",
            redactor.redact(&each.join(", "))
        ));
    }
    text
}

/// What `.info` shows besides the servers.
#[derive(Debug, Clone)]
pub struct InfoFacts {
    pub model: String,
    pub usage_input: u64,
    pub usage_output: u64,
    /// Discarded requests the server reported no counts for, and their estimated prompt tokens.
    pub discarded: (u32, u64),
    pub messages: usize,
    pub always_approved: Vec<(String, String)>,
    pub history_file: String,
    pub log_file: Option<String>,
}

/// `.info`.
pub fn info(facts: &InfoFacts, servers_text: &str, redactor: &Redactor) -> String {
    let approved = if facts.always_approved.is_empty() {
        "none".to_owned()
    } else {
        facts
            .always_approved
            .iter()
            .map(|(s, t)| format!("{t} ({s})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let discarded = match facts.discarded {
        (0, _) => String::new(),
        (1, estimate) => format!(" (+ about {estimate} in 1 discarded attempt)"),
        (n, estimate) => format!(" (+ about {estimate} in {n} discarded attempts)"),
    };
    let out = format!(
        "model            {}\n\
         messages         {}\n\
         tokens           {} in, {} out{discarded}\n\
         always approved  {approved}\n\
         history          {}\n\
         log              {}\n\
         built-in tools   none (the model reaches the world only through MCP servers)\n\
         \n\
         {servers_text}",
        facts.model,
        facts.messages,
        facts.usage_input,
        facts.usage_output,
        facts.history_file,
        facts.log_file.as_deref().unwrap_or("off"),
    );
    redactor.redact(&out)
}

#[cfg(test)]
#[path = "views_tests.rs"]
mod tests;
