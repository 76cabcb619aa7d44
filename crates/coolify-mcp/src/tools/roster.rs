//! The tool roster: every tool name this build knows, which of them a [`Mode`] registers,
//! and their `tools/list` definitions.
//!
//! Invariants:
//! - [`ToolName`] is the only place a wire name maps to behaviour (parsed once);
//! - registration order is the reference's `tools/list` order;
//! - read-only mode registers exactly the tools annotated `readOnlyHint: true` (a unit
//!   test keeps [`ToolName::read_only`] equal to the catalog annotations);
//! - registration is a pure function of the [`Mode`] ([`ToolName::registered_in`]), so
//!   `_actions` filtering needs only the mode, never the server state;
//! - definitions (`catalog.json`: name, title, description, inputSchema, annotations, as
//!   the reference emits them) are parsed only when `tools/list` is first answered, so
//!   boot does no JSON work; fleet mode appends the optional `instance` property.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

use crate::call_ctx::Mode;

const CATALOG: &str = include_str!("catalog.json");

macro_rules! tools {
    ($($variant:ident => $name:literal, $ro:literal;)*) => {
        /// Every tool this build can register, in `tools/list` order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ToolName { $(#[doc = concat!("`", $name, "`.")] $variant),* }
        impl ToolName {
            /// Every tool, in `tools/list` order.
            pub const ALL: &'static [ToolName] = &[$(ToolName::$variant),*];
            /// The tool's wire name.
            pub fn as_str(self) -> &'static str { match self { $(ToolName::$variant => $name),* } }
            /// The tool named `name`, if this build has one.
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
    ServerResources => "server_resources", true;
    ServerDomains => "server_domains", true;
    ListDestinations => "list_destinations", true;
    ValidateServer => "validate_server", false;
    Projects => "projects", false;
    Environments => "environments", false;
    ListApplications => "list_applications", true;
    GetApplication => "get_application", true;
    Application => "application", false;
    Logs => "logs", true;
    ApplicationLogs => "application_logs", true;
    ListDatabases => "list_databases", true;
    GetDatabase => "get_database", true;
    Database => "database", false;
    ListServices => "list_services", true;
    GetService => "get_service", true;
    Service => "service", false;
    Control => "control", false;
    EnvVars => "env_vars", false;
    ListDeployments => "list_deployments", true;
    Deploy => "deploy", false;
    Deployment => "deployment", false;
    PrivateKeys => "private_keys", false;
    GithubApps => "github_apps", false;
    DatabaseBackups => "database_backups", false;
    Teams => "teams", true;
    CloudTokens => "cloud_tokens", false;
    Storages => "storages", false;
    ScheduledTasks => "scheduled_tasks", false;
    Hetzner => "hetzner", false;
    System => "system", false;
    Tags => "tags", false;
    SearchDocs => "search_docs", true;
    RestartProjectApps => "restart_project_apps", false;
    BulkEnvUpdate => "bulk_env_update", false;
    StopAllApps => "stop_all_apps", false;
    RedeployProject => "redeploy_project", false;
}

impl ToolName {
    /// Whether a server in `mode` registers this tool: `list_instances` only in fleet mode;
    /// read-only drops every tool without `readOnlyHint`.
    pub fn registered_in(self, mode: Mode) -> bool {
        (mode.fleet || self != ToolName::ListInstances) && (!mode.read_only || self.read_only())
    }
}

/// Drop `_actions` entries that point at a tool `mode` does not register.
pub fn filter_actions(mode: Mode, actions: Vec<Value>) -> Vec<Value> {
    actions
        .into_iter()
        .filter(|a| {
            a.get("tool")
                .and_then(Value::as_str)
                .and_then(ToolName::parse)
                .is_some_and(|t| t.registered_in(mode))
        })
        .collect()
}

/// The tools registered on one server.
#[derive(Debug, Clone)]
pub struct ToolSet {
    mode: Mode,
    tools: Vec<ToolName>,
}

impl ToolSet {
    /// The registration of a mode, in `tools/list` order.
    pub fn for_mode(mode: Mode) -> Self {
        let tools = ToolName::ALL
            .iter()
            .copied()
            .filter(|t| t.registered_in(mode))
            .collect();
        Self { mode, tools }
    }

    /// The mode this set was registered for.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Whether `tool` is registered.
    pub fn has(&self, tool: ToolName) -> bool {
        self.tools.contains(&tool)
    }

    /// Whether a wire name is registered.
    pub fn has_name(&self, name: &str) -> bool {
        ToolName::parse(name).is_some_and(|t| self.has(t))
    }

    /// The registered tools, in `tools/list` order.
    pub fn iter(&self) -> impl Iterator<Item = ToolName> + '_ {
        self.tools.iter().copied()
    }

    /// Registered tool names as strings, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.as_str()).collect()
    }
}

/// The reference definitions, keyed by name.
#[expect(
    clippy::expect_used,
    reason = "catalog.json is compiled in and parsed by a unit test; a broken catalog is a build defect, not a runtime condition"
)]
pub fn catalog() -> Vec<Value> {
    serde_json::from_str(CATALOG).expect("catalog.json is valid JSON (unit-tested)")
}

/// `tools/list` entries for a tool set (fleet mode adds the `instance` property).
///
/// Parsed straight into rmcp's `Tool` (no intermediate `Value` tree): this runs on the first
/// `tools/list`, which start-up latency is measured to.
#[expect(
    clippy::expect_used,
    reason = "every catalog entry is checked to be a valid Tool by a unit test; a broken entry is a build defect"
)]
pub fn definitions(set: &ToolSet) -> Vec<Tool> {
    let fleet = set.mode().fleet;
    let all: Vec<Tool> =
        serde_json::from_str(CATALOG).expect("catalog entries are valid tools (unit-tested)");
    all.into_iter()
        .filter(|t| ToolName::parse(&t.name).is_some_and(|n| set.has(n)))
        .map(|mut tool| {
            if fleet
                && tool.name != "list_instances"
                && let Some(Value::Object(props)) =
                    Arc::make_mut(&mut tool.input_schema).get_mut("properties")
            {
                props.insert(
                    "instance".into(),
                    json!({"description": "Instance name", "type": "string"}),
                );
            }
            tool
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

#[cfg(test)]
mod tests {
    use super::*;

    const FLEET_READ_WRITE: Mode = Mode {
        fleet: true,
        read_only: false,
    };

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
        assert_eq!(definitions(&ToolSet::for_mode(FLEET_READ_WRITE)).len(), 46);
    }

    #[test]
    fn read_only_registers_no_mutating_tool() {
        let set = ToolSet::for_mode(Mode {
            fleet: false,
            read_only: true,
        });
        assert!(set.iter().all(|t| t.read_only()));
        assert!(!set.has(ToolName::EnvVars));
        assert!(!set.has(ToolName::ListInstances));
    }

    #[test]
    fn actions_keep_only_tools_the_mode_registers() {
        let actions = vec![
            json!({"tool": "control"}),
            json!({"tool": "logs"}),
            json!({"tool": "list_instances"}),
            json!({"tool": "no_such_tool"}),
            json!({"args": {}}),
        ];
        let single_ro = Mode {
            fleet: false,
            read_only: true,
        };
        assert_eq!(
            filter_actions(single_ro, actions.clone()),
            [json!({"tool": "logs"})]
        );
        assert_eq!(
            filter_actions(FLEET_READ_WRITE, actions),
            [
                json!({"tool": "control"}),
                json!({"tool": "logs"}),
                json!({"tool": "list_instances"})
            ]
        );
    }
}
