//! Agents: `<config>/agents/NAME/config.yaml` (`model`, `temperature`, `description`,
//! `instructions`, `enabled_mcp_servers`, `delegates`, `variables`) plus an optional own
//! `<config>/agents/NAME/mcp.json` in the same format as the app's (parsed by
//! [`load_mcp_file`], relative paths resolved against the agent directory).
//!
//! Invariants:
//! - Errors name the file, the key and the fix; a bad agent never stops the others listing.
//! - Delegation problems (unknown delegate, cycle) are found over the whole set by
//!   [`check_delegates`] and reported as values; the runner also bounds depth at
//!   [`MAX_DELEGATE_DEPTH`] so even an unchecked set terminates.
//! - An agent's own servers never join the app's server list; name clashes with app servers
//!   are reported by [`shadowed_app_servers`] (the agent's own server wins inside the agent).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use coyote_protocol::McpServerSpec;
use serde_yaml_ng::Value;

use crate::app_config::ServerList;
use crate::definition::{
    DefinitionError, DefinitionKind, DefinitionWarning, Fields, FileShape, Listing,
    check_definition_name, definition_names, parse_mapping, read_definition, scalar_text,
};
use crate::env::EnvLookup;
use crate::macros::{expand_placeholders, placeholders};
use crate::mcp_json::{McpFile, McpFileContext, ServerDefaults, load_mcp_file};

/// How deep `agent → delegate → delegate …` may go.
pub const MAX_DELEGATE_DEPTH: usize = 3;
/// The agent definition file inside `agents/NAME/`.
pub const AGENT_FILE: &str = "config.yaml";
/// The agent's own MCP servers inside `agents/NAME/`.
pub const AGENT_MCP_FILE: &str = "mcp.json";

const AGENT_KEYS: &[&str] = &[
    "model",
    "temperature",
    "description",
    "instructions",
    "enabled_mcp_servers",
    "delegates",
    "variables",
];

/// A variable the instructions use as `{{name}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentVariable {
    /// The variable's name.
    pub name: String,
    /// What it is for, shown when the user is asked.
    pub description: Option<String>,
    /// `None` = ask the user when starting the agent.
    pub default: Option<String>,
}

/// One agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    /// The agent's name (its directory under `agents/`).
    pub name: String,
    /// Its directory.
    pub dir: PathBuf,
    /// `agents/NAME/config.yaml`.
    pub file: PathBuf,
    /// `model:`, as `client:model`; `None` uses the app's model.
    pub model: Option<String>,
    /// `temperature:`; `None` uses the app's.
    pub temperature: Option<f64>,
    /// `description:`, shown to a parent agent that delegates to it.
    pub description: Option<String>,
    /// The system prompt, with `{{variables}}` unexpanded.
    pub instructions: String,
    /// `enabled_mcp_servers:`; `None` uses the app's selection.
    pub enabled_mcp_servers: Option<ServerList>,
    /// `delegates:`, the agents it may delegate to.
    pub delegates: Vec<String>,
    /// `variables:`, in file order.
    pub variables: Vec<AgentVariable>,
    /// The agent's own servers (`agents/NAME/mcp.json`; empty when absent).
    pub mcp: McpFile,
    /// What was odd but usable in its files.
    pub warnings: Vec<DefinitionWarning>,
}

/// A delegation problem across the agent set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DelegateProblem {
    /// A delegate names no agent.
    #[error("{}: delegate `{delegate}` of agent `{agent}` does not exist; create agents/{delegate}/config.yaml or remove it from `delegates`", file.display())]
    Unknown {
        /// The delegating agent.
        agent: String,
        /// The name it lists.
        delegate: String,
        /// The agent's config file.
        file: PathBuf,
    },
    /// Agents delegate to each other in a loop.
    #[error("{}: agents delegate in a cycle ({}); remove one of these `delegates` entries", file.display(), cycle.join(" → "))]
    Cycle {
        /// `a → b → a`.
        cycle: Vec<String>,
        /// The file of the cycle's first agent.
        file: PathBuf,
    },
}

/// Loads `<agents_dir>/NAME/config.yaml` and its optional own `mcp.json` (`env` expands
/// `${VAR}` in it).
pub fn load_agent(
    agents_dir: &Path,
    name: &str,
    env: &dyn EnvLookup,
) -> Result<Agent, DefinitionError> {
    load_agent_with_defaults(agents_dir, name, env, ServerDefaults::default())
}

/// [`load_agent`] whose own mcp.json entries inherit `defaults` (config.yaml's `expose` etc.,
/// see `AppConfig::server_defaults`) where they do not set a value themselves.
pub fn load_agent_with_defaults(
    agents_dir: &Path,
    name: &str,
    env: &dyn EnvLookup,
    defaults: ServerDefaults,
) -> Result<Agent, DefinitionError> {
    check_definition_name(DefinitionKind::Agent, name)?;
    let dir = agents_dir.join(name);
    let file = dir.join(AGENT_FILE);
    let text = read_definition(DefinitionKind::Agent, agents_dir, name, &file, "yaml")?;
    let mut agent = parse_agent(name, &file, &text)?;
    let cx = McpFileContext::new(env, dir.clone()).defaults(defaults);
    agent.mcp = load_mcp_file(&dir.join(AGENT_MCP_FILE), &cx).map_err(|source| {
        DefinitionError::McpJson {
            agent_file: file.clone(),
            source,
        }
    })?;
    Ok(agent)
}

/// Every agent directory; one error per agent that failed.
pub fn list_agents(agents_dir: &Path, env: &dyn EnvLookup) -> Listing<Agent> {
    list_agents_with_defaults(agents_dir, env, ServerDefaults::default())
}

/// [`list_agents`] with the defaults of [`load_agent_with_defaults`].
pub fn list_agents_with_defaults(
    agents_dir: &Path,
    env: &dyn EnvLookup,
    defaults: ServerDefaults,
) -> Listing<Agent> {
    let mut listing = Listing::default();
    for name in definition_names(agents_dir, FileShape::Directory) {
        match load_agent_with_defaults(agents_dir, &name, env, defaults) {
            Ok(a) => listing.items.push(a),
            Err(e) => listing.errors.push(e),
        }
    }
    listing
}

/// Parses `config.yaml` text (own servers not loaded: `mcp` is empty).
pub fn parse_agent(name: &str, file: &Path, text: &str) -> Result<Agent, DefinitionError> {
    let map = parse_mapping(file, text)?;
    let fields = Fields::new(file, &map);
    let warnings = fields.unknown_keys(AGENT_KEYS);
    let instructions = fields
        .string("instructions")?
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let variables = parse_variables(&fields)?;
    for used in placeholders(&instructions) {
        if !variables.iter().any(|v| v.name == used) {
            return Err(fields.wrong(
                "instructions",
                &format!("`{{{{{used}}}}}` is not a declared variable"),
                &format!("declare it under `variables:` (`- name: {used}`) or fix the spelling"),
            ));
        }
    }
    let delegates = fields.string_list("delegates")?.unwrap_or_default();
    if let Some(i) = delegates.iter().position(|d| d == name) {
        return Err(fields.wrong(
            &format!("delegates[{i}]"),
            "an agent cannot delegate to itself",
            "remove it from `delegates`",
        ));
    }
    Ok(Agent {
        name: name.to_owned(),
        dir: file.parent().map(Path::to_owned).unwrap_or_default(),
        file: file.to_owned(),
        model: fields.string("model")?,
        temperature: fields.number("temperature")?,
        description: fields.string("description")?,
        instructions,
        enabled_mcp_servers: fields.server_list("enabled_mcp_servers")?,
        delegates,
        variables,
        mcp: McpFile::default(),
        warnings,
    })
}

/// `variables: [{name, description, default}]` or `variables: {name: default}`.
fn parse_variables(fields: &Fields<'_>) -> Result<Vec<AgentVariable>, DefinitionError> {
    let fix = "write `variables:` then `- name: project` / `  default: demo`";
    let mut out = Vec::new();
    match fields.get("variables") {
        None | Some(Value::Null) => {}
        Some(Value::Mapping(map)) => {
            for (k, v) in map {
                let name = scalar_text(k).unwrap_or_default();
                let default = match v {
                    Value::Null => None,
                    v => Some(scalar_text(v).ok_or_else(|| {
                        fields.wrong(&format!("variables.{name}"), "expected a text default", fix)
                    })?),
                };
                out.push(AgentVariable {
                    name,
                    description: None,
                    default,
                });
            }
        }
        Some(Value::Sequence(items)) => {
            for (i, item) in items.iter().enumerate() {
                let key = format!("variables[{i}]");
                let Value::Mapping(map) = item else {
                    return Err(fields.wrong(&key, "expected `name: …`", fix));
                };
                let item = Fields::new(fields.file(), map);
                let Some(name) = item
                    .string("name")
                    .map_err(|_| fields.wrong(&format!("{key}.name"), "expected text", fix))?
                else {
                    return Err(fields.wrong(&format!("{key}.name"), "missing", fix));
                };
                let description = item.string("description").map_err(|_| {
                    fields.wrong(&format!("{key}.description"), "expected text", fix)
                })?;
                let default = item
                    .string("default")
                    .map_err(|_| fields.wrong(&format!("{key}.default"), "expected text", fix))?;
                out.push(AgentVariable {
                    name,
                    description,
                    default,
                });
            }
        }
        Some(_) => return Err(fields.wrong("variables", "expected a list", fix)),
    }
    for (i, v) in out.iter().enumerate() {
        let ok = !v.name.is_empty()
            && v.name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok || out[..i].iter().any(|o| o.name == v.name) {
            return Err(fields.wrong(
                &format!("variables[{i}].name"),
                &format!("`{}` is not a valid, unique variable name", v.name),
                "use letters, digits and `_`, each name once",
            ));
        }
    }
    Ok(out)
}

/// Variable values could not all be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("agent `{agent}` needs a value for {}; pass them or let coyote ask", missing.join(", "))]
pub struct MissingVariables {
    /// The agent.
    pub agent: String,
    /// The variables without a value.
    pub missing: Vec<String>,
}

impl Agent {
    /// Variables with neither a given value nor a default: ask the user for these.
    pub fn missing_variables(&self, given: &BTreeMap<String, String>) -> Vec<&AgentVariable> {
        self.variables
            .iter()
            .filter(|v| v.default.is_none() && !given.contains_key(&v.name))
            .collect()
    }

    /// The instructions with `{{variables}}` expanded (given values, then defaults).
    pub fn instructions_with(
        &self,
        given: &BTreeMap<String, String>,
    ) -> Result<String, MissingVariables> {
        let missing: Vec<String> = self
            .missing_variables(given)
            .iter()
            .map(|v| v.name.clone())
            .collect();
        if !missing.is_empty() {
            return Err(MissingVariables {
                agent: self.name.clone(),
                missing,
            });
        }
        let values: BTreeMap<String, String> = self
            .variables
            .iter()
            .filter_map(|v| {
                let value = given.get(&v.name).or(v.default.as_ref())?;
                Some((v.name.clone(), value.clone()))
            })
            .collect();
        Ok(expand_placeholders(&self.instructions, &values))
    }

    /// The agent's own servers.
    pub fn own_servers(&self) -> &[McpServerSpec] {
        &self.mcp.servers
    }
}

/// Names of app servers that the agent's own servers shadow (warn once per agent start).
pub fn shadowed_app_servers(agent: &Agent, app_servers: &[String]) -> Vec<String> {
    agent
        .own_servers()
        .iter()
        .filter(|s| app_servers.contains(&s.name))
        .map(|s| s.name.clone())
        .collect()
}

/// Unknown delegates and delegation cycles over a set of agents (each cycle reported once).
pub fn check_delegates(agents: &[Agent]) -> Vec<DelegateProblem> {
    let mut problems = Vec::new();
    let by_name: BTreeMap<&str, &Agent> = agents.iter().map(|a| (a.name.as_str(), a)).collect();
    for agent in agents {
        for delegate in &agent.delegates {
            if !by_name.contains_key(delegate.as_str()) {
                problems.push(DelegateProblem::Unknown {
                    agent: agent.name.clone(),
                    delegate: delegate.clone(),
                    file: agent.file.clone(),
                });
            }
        }
    }
    let mut reported: Vec<Vec<String>> = Vec::new();
    for agent in agents {
        let mut path = vec![agent.name.clone()];
        find_cycles(&by_name, &mut path, &mut reported, &mut problems);
    }
    problems
}

fn find_cycles(
    by_name: &BTreeMap<&str, &Agent>,
    path: &mut Vec<String>,
    reported: &mut Vec<Vec<String>>,
    problems: &mut Vec<DelegateProblem>,
) {
    let Some(current) = path.last().and_then(|n| by_name.get(n.as_str())) else {
        return;
    };
    for delegate in &current.delegates {
        if let Some(start) = path.iter().position(|p| p == delegate) {
            let mut members: Vec<String> = path[start..].to_vec();
            let mut key = members.clone();
            key.sort();
            if !reported.contains(&key) {
                reported.push(key);
                let file = by_name
                    .get(members[0].as_str())
                    .map(|a| a.file.clone())
                    .unwrap_or_default();
                members.push(delegate.clone());
                problems.push(DelegateProblem::Cycle {
                    cycle: members,
                    file,
                });
            }
        } else if by_name.contains_key(delegate.as_str()) && path.len() <= by_name.len() {
            path.push(delegate.clone());
            find_cycles(by_name, path, reported, problems);
            path.pop();
        }
    }
}

#[cfg(test)]
#[path = "agents_tests.rs"]
mod tests;
