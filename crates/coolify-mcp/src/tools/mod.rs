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
mod deploy;
mod diagnose;
pub mod reads;
mod resolve;
pub mod roster;
mod writes;

use serde_json::{Value, json};

pub use args::{Args, validate};
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
    match tool {
        ToolName::GetVersion => reads::get_version(ctx).await,
        ToolName::GetMcpVersion => Ok(ToolOutput::Compact(
            json!({"version": crate::MCP_SERVER_VERSION, "name": crate::MCP_PACKAGE_NAME}),
        )),
        ToolName::ListInstances => reads::list_instances(ctx).await,
        ToolName::GetInfrastructureOverview => {
            Ok(ToolOutput::Json(reads::overview(&ctx.client).await))
        }
        ToolName::DiagnoseApp => diagnose::diagnose_app(args, ctx).await,
        ToolName::DiagnoseServer => diagnose::diagnose_server(args, ctx).await,
        ToolName::FindIssues => diagnose::find_issues(ctx).await,
        ToolName::ListServers => reads::list_servers(args, ctx).await,
        ToolName::GetServer => reads::get_server(args, ctx).await,
        ToolName::ListApplications => reads::list_applications(args, ctx).await,
        ToolName::GetApplication => reads::get_application(args, ctx).await,
        ToolName::Application => application::application(args, ctx).await,
        ToolName::Logs => reads::logs(args, ctx).await,
        ToolName::ApplicationLogs => reads::application_logs(args, ctx).await,
        ToolName::Control => writes::control(args, ctx).await,
        ToolName::EnvVars => writes::env_vars(args, ctx).await,
        ToolName::ListDeployments => deploy::list_deployments(args, ctx).await,
        ToolName::Deploy => deploy::deploy(args, ctx).await,
        ToolName::Deployment => deploy::deployment(args, ctx).await,
        ToolName::RestartProjectApps => batch::restart_project_apps(args, ctx).await,
        ToolName::StopAllApps => batch::stop_all_apps(args, ctx).await,
        ToolName::RedeployProject => batch::redeploy_project(args, ctx).await,
    }
}

/// `{data, _actions?, _pagination?}` with `_actions` filtered to registered tools.
pub fn envelope(
    ctx: &CallCtx<'_>,
    data: Value,
    actions: Vec<Value>,
    pagination: Option<Value>,
) -> ToolOutput {
    let mut out = serde_json::Map::new();
    out.insert("data".into(), data);
    let actions = roster::filter_actions(ctx.mode, actions);
    if !actions.is_empty() {
        out.insert("_actions".into(), Value::Array(actions));
    }
    if let Some(p) = pagination {
        out.insert("_pagination".into(), p);
    }
    ToolOutput::Json(Value::Object(out))
}
