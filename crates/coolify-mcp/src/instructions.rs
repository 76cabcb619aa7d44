//! The server `instructions` text, built from the registered tool roster so it
//! names only tools this build registers (a test checks every backticked token).

use crate::config::{AccessMode, HumanPolicy};
use crate::tools::ToolSet;

/// Non-tool words the instructions may backtick.
pub const NOT_A_TOOL: &[&str] = &[
    "action",
    "reveal",
    "key",
    "instance",
    "_actions",
    "_pagination",
    "lines",
];

/// The operations that ask first, as the mode paragraph names them.
const GUARDED: &str = "Deletes, moves, credential and key replacements, exposing a database, disabling the API and bulk operations";

/// Build the instructions for one server.
pub fn build(
    tools: &ToolSet,
    access: AccessMode,
    human: HumanPolicy,
    default_instance: Option<&str>,
) -> String {
    let mut p = vec![
        "coolify-mcp operates a self-hosted Coolify instance through its REST API: applications, databases, services, servers, projects, environments, deployments and their configuration.".to_string(),
        "Related operations share one tool with an `action` argument, and each tool's `action` enum is the complete list of what it accepts. `list_*` tools return small projections (uuid, name, status); `get_*` tools return one resource in full. `diagnose_app` accepts a uuid, a name or a domain, and `diagnose_server` a uuid, a name or an IP address, so neither needs a lookup call first. Some results carry `_actions`, follow-up calls that apply to that result with their arguments already filled in, and `_pagination` with the next and previous page; both are computed by the server from the real response.".to_string(),
        "`get_infrastructure_overview` summarises the whole estate in one call, `find_issues` scans it for anything unhealthy, and `diagnose_app` or `diagnose_server` explains one resource. `search_docs` searches the Coolify documentation.".to_string(),
    ];
    let mut secrets = "Secrets are masked in every response. `get_application`, `get_database` and `get_service` accept `reveal: true` to return one resource's credentials in plaintext".to_string();
    if tools.has_name("env_vars") {
        secrets.push_str(
            "; `env_vars` with `reveal: true` requires a `key` and returns that one variable",
        );
    }
    secrets.push('.');
    p.push(secrets);
    // Deliberately not the reference's wording ("delete, stop, restart, bulk operations"):
    // `control` stop/restart never ask, so this names what really does.
    p.push(match (access, human) {
        (AccessMode::ReadOnly, _) => "This server runs in read-only mode: only tools annotated read-only are registered, and nothing here can change the instance.".to_string(),
        (AccessMode::ReadWrite, HumanPolicy::RequireHuman) => format!("Tools annotated read-only make no change to the instance. {GUARDED} require the person to confirm through elicitation before running; in a client without elicitation they are refused with a message rather than run, and a declined confirmation likewise returns a message, not an error."),
        (AccessMode::ReadWrite, HumanPolicy::AskWhenPossible) => format!("Tools annotated read-only make no change to the instance. {GUARDED} ask the person for confirmation in clients that support elicitation; a declined confirmation returns a message, not an error, and the operation does not run. In a client without elicitation they run unconfirmed."),
    });
    p.push("Tested against Coolify 4.0.x – 4.3.x. Tags, destinations and service sub-resource actions need 4.2 or later; the GET-to-POST change in 4.2 is handled by the server, so a 405, or a 404 on an older instance, means both methods were refused. `get_version` reports the Coolify version and `get_mcp_version` this server's.".to_string());
    if let Some(default) = default_instance {
        p.push(format!("This server manages several Coolify instances. Every tool except `list_instances` takes an optional `instance` argument naming which one; omitted, it is \"{default}\". `list_instances` reports every instance with its URL and version. Destructive confirmations name the instance they target."));
    }
    p.join("\n\n")
}
