//! The tool surface: the handlers by verb, what a handler returns, and the one dispatcher
//! from a registered [`ToolName`] to its handler. The roster (names, registration per mode,
//! definitions) is in [`roster`].
//!
//! Invariants:
//! - handlers see only a [`CallCtx`] (never the server): `server` imports this module,
//!   never the other way round;
//! - a handler's answer is a [`ToolOutput`] rendered in one place, or a [`ToolError`]
//!   rendered as `Error: …` text by the server (never `isError`);
//! - `_actions` in an [`envelope`] name only tools the call's mode registers.

mod application;
mod args;
mod batch;
mod credentials;
mod database;
mod deploy;
mod deployment;
mod diagnose;
mod docs;
mod projects;
pub mod reads;
mod resolve;
pub mod roster;
mod scheduled;
mod servers;
mod service;
mod storage;
mod system;
mod writes;

use serde_json::{Value, json};

pub use args::{Args, validate};
pub use deploy::{summary as deploy_summary, waited as deploy_waited};
pub use roster::{ToolName, ToolSet, catalog, definitions, input_schema};

use crate::backend::ApiError;
use crate::call_ctx::CallCtx;

/// What a handler produced; rendering into text happens in one place (`render`).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutput {
    /// `JSON.stringify(v, null, 2)`.
    Json(Value),
    /// Compact JSON (`get_mcp_version`).
    Compact(Value),
    /// A plain string result, JSON-encoded as the reference does for the log tools.
    StringResult(String),
    /// Literal text (guards `Error: …`, refusals `Aborted: …`).
    Text(String),
}

impl ToolOutput {
    /// The text the client receives.
    pub fn render(&self) -> String {
        match self {
            ToolOutput::Json(v) => crate::json::pretty(v),
            ToolOutput::Compact(v) => crate::json::compact(v),
            ToolOutput::StringResult(s) => crate::json::string_literal(s),
            ToolOutput::Text(t) => t.clone(),
        }
    }

    /// A fixed guard text (`Error: uuid required`).
    pub fn guard(text: &str) -> Self {
        ToolOutput::Text(text.to_string())
    }
}

/// A handler failure, rendered as `Error: <message>` (never `isError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// Coolify answered with an error.
    #[error("{0}")]
    Api(#[from] ApiError),
    /// Any other failure, as the message the client sees.
    #[error("{0}")]
    Message(String),
}

/// What a tool handler returns.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// Run one registered tool.
pub async fn dispatch(tool: ToolName, args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    use ToolName as T;
    match tool {
        T::GetVersion => reads::get_version(ctx).await,
        T::GetMcpVersion => Ok(ToolOutput::Compact(
            json!({"version": crate::MCP_SERVER_VERSION, "name": crate::MCP_PACKAGE_NAME}),
        )),
        T::ListInstances => reads::list_instances(ctx).await,
        T::GetInfrastructureOverview => Ok(ToolOutput::Json(reads::overview(&ctx.client).await)),
        T::DiagnoseApp => diagnose::diagnose_app(args, ctx).await,
        T::DiagnoseServer => diagnose::diagnose_server(args, ctx).await,
        T::FindIssues => diagnose::find_issues(ctx).await,
        T::ListServers => reads::list_servers(args, ctx).await,
        T::GetServer => reads::get_server(args, ctx).await,
        T::ServerResources => servers::server_resources(args, ctx).await,
        T::ServerDomains => servers::server_domains(args, ctx).await,
        T::ListDestinations => servers::list_destinations(args, ctx).await,
        T::ValidateServer => servers::validate_server(args, ctx).await,
        T::Projects => projects::projects(args, ctx).await,
        T::Environments => projects::environments(args, ctx).await,
        T::ListApplications => reads::list_applications(args, ctx).await,
        T::GetApplication => reads::get_application(args, ctx).await,
        T::Application => application::application(args, ctx).await,
        T::Logs => reads::logs(args, ctx).await,
        T::ApplicationLogs => reads::application_logs(args, ctx).await,
        T::ListDatabases => database::list_databases(args, ctx).await,
        T::GetDatabase => database::get_database(args, ctx).await,
        T::Database => database::database(args, ctx).await,
        T::ListServices => service::list_services(args, ctx).await,
        T::GetService => service::get_service(args, ctx).await,
        T::Service => service::service(args, ctx).await,
        T::Control => writes::control(args, ctx).await,
        T::EnvVars => writes::env_vars(args, ctx).await,
        T::ListDeployments => deploy::list_deployments(args, ctx).await,
        T::Deploy => deploy::deploy(args, ctx).await,
        T::Deployment => deployment::deployment(args, ctx).await,
        T::PrivateKeys => credentials::private_keys(args, ctx).await,
        T::GithubApps => credentials::github_apps(args, ctx).await,
        T::DatabaseBackups => storage::database_backups(args, ctx).await,
        T::Teams => system::teams(args, ctx).await,
        T::CloudTokens => credentials::cloud_tokens(args, ctx).await,
        T::Storages => storage::storages(args, ctx).await,
        T::ScheduledTasks => scheduled::scheduled_tasks(args, ctx).await,
        T::Hetzner => system::hetzner(args, ctx).await,
        T::System => system::system(args, ctx).await,
        T::Tags => system::tags(args, ctx).await,
        T::SearchDocs => docs::search_docs(args).await,
        T::RestartProjectApps => batch::restart_project_apps(args, ctx).await,
        T::BulkEnvUpdate => batch::bulk_env_update(args, ctx).await,
        T::StopAllApps => batch::stop_all_apps(args, ctx).await,
        T::RedeployProject => batch::redeploy_project(args, ctx).await,
    }
}

/// A guarded operation: ask the human with `summary` (or decide without asking,
/// per the call's confirmation policy), then run `op`. A refusal is the tool's `Aborted: …`
/// text and `op` never runs, so nothing is sent.
pub async fn guarded<S, O>(ctx: &CallCtx<'_>, label: &str, summary: S, op: O) -> ToolResult
where
    S: std::future::Future<Output = Result<Option<String>, String>>,
    O: std::future::Future<Output = ToolResult>,
{
    match crate::confirm::confirm(ctx, label, summary).await {
        Ok(()) => op.await,
        Err(refusal) => Ok(ToolOutput::Text(refusal)),
    }
}

/// A summary that needs no lookup.
pub async fn fixed_summary(text: String) -> Result<Option<String>, String> {
    Ok(Some(text))
}

/// The JSON of a successful request, or its error.
pub fn answer(r: Result<Value, ApiError>) -> ToolResult {
    Ok(ToolOutput::Json(r?))
}

/// `{data, _actions?, _pagination?}` with `_actions` filtered to registered tools.
pub fn envelope(
    ctx: &CallCtx<'_>,
    data: Value,
    actions: Vec<Value>,
    pagination: Option<Value>,
) -> ToolOutput {
    envelope_in(ctx.mode, data, actions, pagination)
}

/// [`envelope`] for a server in `mode` (a task's answer, built after its call returned).
pub fn envelope_in(
    mode: crate::call_ctx::Mode,
    data: Value,
    actions: Vec<Value>,
    pagination: Option<Value>,
) -> ToolOutput {
    let mut out = serde_json::Map::new();
    out.insert("data".into(), data);
    let actions = roster::filter_actions(mode, actions);
    if !actions.is_empty() {
        out.insert("_actions".into(), Value::Array(actions));
    }
    if let Some(p) = pagination {
        out.insert("_pagination".into(), p);
    }
    ToolOutput::Json(Value::Object(out))
}
