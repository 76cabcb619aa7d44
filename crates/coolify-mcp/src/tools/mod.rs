//! The tool surface: names, registration per mode, definitions, argument checks and the
//! one dispatcher from a name to its handler.
//!
//! Invariants:
//! - [`ToolName`] is the only place a wire name maps to behaviour (parsed once);
//! - registration order is the reference's `tools/list` order (SPEC §2.1);
//! - read-only mode registers exactly the tools annotated `readOnlyHint: true` (a unit
//!   test keeps [`ToolName::read_only`] equal to the catalog annotations);
//! - definitions (`catalog.json`: name, title, description, inputSchema, annotations, as
//!   the reference emits them) are parsed only when `tools/list` is first answered, so
//!   boot does no JSON work; fleet mode appends the optional `instance` property.

mod args;
mod batch;
mod deploy;
mod diagnose;
pub mod reads;
mod writes;

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

pub use args::{Args, validate};

use crate::backend::ApiError;
use crate::server::CallCtx;

const CATALOG: &str = include_str!("catalog.json");

macro_rules! tools {
    ($($variant:ident => $name:literal, $ro:literal;)*) => {
        /// Every tool this build can register, in `tools/list` order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ToolName { $($variant),* }
        impl ToolName {
            pub const ALL: &'static [ToolName] = &[$(ToolName::$variant),*];
            pub fn as_str(self) -> &'static str { match self { $(ToolName::$variant => $name),* } }
            pub fn parse(name: &str) -> Option<Self> { match name { $($name => Some(ToolName::$variant),)* _ => None } }
            /// Annotated `readOnlyHint: true` (stays registered in read-only mode).
            pub fn read_only(self) -> bool { match self { $(ToolName::$variant => $ro),* } }
        }
    };
}

tools! {
    GetVersion => "get_version", true;
    GetMcpVersion => "get_mcp_version", true;
    ListInstances => "list_instances", true;
    GetInfrastructureOverview => "get_infrastructure_overview", true;
    DiagnoseApp => "diagnose_app", true;
    DiagnoseServer => "diagnose_server", true;
    FindIssues => "find_issues", true;
    ListServers => "list_servers", true;
    GetServer => "get_server", true;
    ListApplications => "list_applications", true;
    GetApplication => "get_application", true;
    Application => "application", false;
    Logs => "logs", true;
    ApplicationLogs => "application_logs", true;
    Control => "control", false;
    EnvVars => "env_vars", false;
    ListDeployments => "list_deployments", true;
    Deploy => "deploy", false;
    Deployment => "deployment", false;
    RestartProjectApps => "restart_project_apps", false;
    StopAllApps => "stop_all_apps", false;
    RedeployProject => "redeploy_project", false;
}

/// The tools registered on one server.
#[derive(Debug, Clone)]
pub struct ToolSet {
    tools: Vec<ToolName>,
}

impl ToolSet {
    /// Registration for a mode: `list_instances` only in fleet mode; read-only drops every
    /// tool without `readOnlyHint`.
    pub fn for_mode(fleet: bool, read_only: bool) -> Self {
        let tools = ToolName::ALL
            .iter()
            .copied()
            .filter(|t| fleet || *t != ToolName::ListInstances)
            .filter(|t| !read_only || t.read_only())
            .collect();
        Self { tools }
    }

    pub fn has(&self, tool: ToolName) -> bool {
        self.tools.contains(&tool)
    }

    /// Whether a wire name is registered.
    pub fn has_name(&self, name: &str) -> bool {
        ToolName::parse(name).is_some_and(|t| self.has(t))
    }

    pub fn iter(&self) -> impl Iterator<Item = ToolName> + '_ {
        self.tools.iter().copied()
    }

    /// Registered tool names as strings, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.as_str()).collect()
    }

    /// Drop `_actions` entries that point at an unregistered tool (SPEC §5.4).
    pub fn filter_actions(&self, actions: Vec<Value>) -> Vec<Value> {
        actions
            .into_iter()
            .filter(|a| {
                a.get("tool")
                    .and_then(Value::as_str)
                    .is_some_and(|t| self.has_name(t))
            })
            .collect()
    }
}

/// The reference definitions, keyed by name.
pub fn catalog() -> Vec<Value> {
    serde_json::from_str(CATALOG).expect("catalog.json is valid JSON (unit-tested)")
}

/// `tools/list` entries for a tool set.
pub fn definitions(set: &ToolSet, fleet: bool) -> Vec<Tool> {
    let catalog = catalog();
    set.iter()
        .filter_map(|name| catalog.iter().find(|d| d["name"] == name.as_str()).cloned())
        .map(|mut def| {
            if fleet
                && def["name"] != "list_instances"
                && let Some(props) = def["inputSchema"]["properties"].as_object_mut()
            {
                props.insert(
                    "instance".into(),
                    json!({"description": "Instance name", "type": "string"}),
                );
            }
            serde_json::from_value::<Tool>(def)
                .expect("catalog entries are valid tools (unit-tested)")
        })
        .collect()
}

/// The input schema of one tool (for argument validation).
pub fn input_schema(tools: &[Tool], name: &str) -> Option<Arc<JsonObject>> {
    tools
        .iter()
        .find(|t| t.name == name)
        .map(|t| t.input_schema.clone())
}

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
    #[error("{0}")]
    Api(#[from] ApiError),
    #[error("{0}")]
    Message(String),
}

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
        ToolName::Application => writes::application(args, ctx).await,
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
    let actions = ctx.shared.tools.filter_actions(actions);
    if !actions.is_empty() {
        out.insert("_actions".into(), Value::Array(actions));
    }
    if let Some(p) = pagination {
        out.insert("_pagination".into(), p);
    }
    ToolOutput::Json(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_matches_the_enum_and_annotations() {
        let catalog = catalog();
        let names: Vec<&str> = catalog
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(names, expected);
        for def in &catalog {
            let tool = ToolName::parse(def["name"].as_str().unwrap()).unwrap();
            assert_eq!(
                def["annotations"]["readOnlyHint"] == true,
                tool.read_only(),
                "{tool:?}"
            );
        }
        assert_eq!(definitions(&ToolSet::for_mode(true, false), true).len(), 22);
    }

    #[test]
    fn read_only_registers_no_mutating_tool() {
        let set = ToolSet::for_mode(false, true);
        assert!(set.iter().all(|t| t.read_only()));
        assert!(!set.has(ToolName::EnvVars));
        assert!(!set.has(ToolName::ListInstances));
    }
}
