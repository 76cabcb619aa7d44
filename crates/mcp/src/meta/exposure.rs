//! Adaptive tool exposure (issues 7 and 20): how a server's tools are shown to the model.
//! `direct` declares each tool as its own function (small local models use those reliably);
//! `meta` declares the five compact meta-functions (context economy for big servers);
//! `retrieve` declares, per request, the tools that fit the conversation best as themselves
//! beside the meta-functions ([`super::retrieve`]); `auto` — the default — is direct while the
//! server's direct tool declarations fit the budget ([`DIRECT_MAX_TOOLS`] tools and
//! [`DIRECT_MAX_TOKENS`] estimated tokens), else retrieve.
//!
//! The token estimate is deliberately simple and provider-independent: the bytes of the
//! declarations serialised as JSON divided by [`BYTES_PER_TOKEN`], rounded up. It is a budget
//! gate, not a bill; what matters is that the same server always lands on the same side.

use std::collections::BTreeMap;
use std::fmt;

use coyote_protocol::{Exposure, FunctionDeclaration, McpServerSpec, RetrieveSettings};
use serde::Serialize;
use serde_json::{Value, json};

use super::direct::{DirectTool, sanitize};
use crate::catalog::ToolInfo;

/// `auto` stays direct up to this many tools.
pub const DIRECT_MAX_TOOLS: usize = 12;
/// `auto` stays direct up to this many estimated tokens of direct tool declarations.
pub const DIRECT_MAX_TOKENS: usize = 2_000;
/// The estimator's ratio: serialised JSON bytes per token (a common rule of thumb for
/// English text and JSON with the usual BPE tokenizers).
pub const BYTES_PER_TOKEN: usize = 4;

/// Estimated tokens of `declarations`: serialised JSON bytes / [`BYTES_PER_TOKEN`], rounded up.
pub fn estimate_tokens(declarations: &[FunctionDeclaration]) -> usize {
    let bytes: usize = declarations
        .iter()
        .map(|d| serde_json::to_vec(d).map_or(0, |v| v.len()))
        .sum();
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// What a server's tools are actually declared as right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectiveExposure {
    /// The tools are declared one function each.
    Direct,
    /// The tools are reached through the meta-functions.
    Meta,
    /// The tools ranked best for the request are declared one function each, the rest are
    /// reached through the meta-functions.
    Retrieve,
}

impl EffectiveExposure {
    /// The value's name, as `--json` and the docs write it.
    pub fn as_str(self) -> &'static str {
        match self {
            EffectiveExposure::Direct => "direct",
            EffectiveExposure::Meta => "meta",
            EffectiveExposure::Retrieve => "retrieve",
        }
    }
}

impl fmt::Display for EffectiveExposure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The configured value's name as written in mcp.json / config.yaml.
pub fn exposure_label(exposure: Exposure) -> &'static str {
    match exposure {
        Exposure::Auto => "auto",
        Exposure::Direct => "direct",
        Exposure::Meta => "meta",
        Exposure::Retrieve => "retrieve",
    }
}

/// The decision for a Ready server whose tools were listed: `tools` tools whose direct
/// declarations are estimated at `direct_tokens`.
pub fn decide(configured: Exposure, tools: usize, direct_tokens: usize) -> EffectiveExposure {
    match configured {
        Exposure::Direct => EffectiveExposure::Direct,
        Exposure::Meta => EffectiveExposure::Meta,
        Exposure::Retrieve if tools > 0 => EffectiveExposure::Retrieve,
        Exposure::Auto if tools > 0 && fits_budget(tools, direct_tokens) => {
            EffectiveExposure::Direct
        }
        Exposure::Auto if tools > 0 => EffectiveExposure::Retrieve,
        Exposure::Auto | Exposure::Retrieve => EffectiveExposure::Meta,
    }
}

/// The `auto` budget: at most [`DIRECT_MAX_TOOLS`] tools and [`DIRECT_MAX_TOKENS`] tokens.
pub fn fits_budget(tools: usize, direct_tokens: usize) -> bool {
    tools <= DIRECT_MAX_TOOLS && direct_tokens <= DIRECT_MAX_TOKENS
}

/// Configured exposure per server (the spec's `expose`, already resolved against config.yaml's
/// default by coyote-config). Servers not listed are `auto`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExposurePolicies {
    servers: BTreeMap<String, Exposure>,
    retrieve: BTreeMap<String, RetrieveSettings>,
}

impl ExposurePolicies {
    /// The `expose` of each spec.
    pub fn from_specs(specs: &[McpServerSpec]) -> Self {
        ExposurePolicies {
            servers: specs.iter().map(|s| (s.name.clone(), s.expose)).collect(),
            retrieve: specs.iter().map(|s| (s.name.clone(), s.retrieve)).collect(),
        }
    }

    /// Sets one server's `retrieve` size, builder style.
    pub fn with_retrieve(mut self, server: impl Into<String>, settings: RetrieveSettings) -> Self {
        self.retrieve.insert(server.into(), settings);
        self
    }

    /// A server's `retrieve` size (the defaults when not listed).
    pub fn retrieve(&self, server: &str) -> RetrieveSettings {
        self.retrieve.get(server).copied().unwrap_or_default()
    }

    /// Sets one server's exposure (tests, agents' own servers).
    pub fn set(&mut self, server: impl Into<String>, exposure: Exposure) {
        self.servers.insert(server.into(), exposure);
    }

    /// Sets one server's exposure, builder style.
    pub fn with(mut self, server: impl Into<String>, exposure: Exposure) -> Self {
        self.set(server, exposure);
        self
    }

    /// A server's configured exposure (`auto` when not listed).
    pub fn get(&self, server: &str) -> Exposure {
        self.servers.get(server).copied().unwrap_or_default()
    }
}

/// One server's exposure as `coyote mcp servers` and `.info` show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExposureReport {
    /// As configured (`auto` unless set).
    #[serde(serialize_with = "serialize_exposure")]
    pub configured: Exposure,
    /// What is declared now (a server that is not Ready is shown through meta-functions).
    pub effective: EffectiveExposure,
    /// Tools listed (`None`: not Ready, or the listing failed).
    pub tools: Option<usize>,
    /// Estimated tokens of the server's direct tool declarations (`None` like `tools`).
    pub direct_tokens: Option<usize>,
    /// Estimated tokens of everything declared for the server now.
    pub declared_tokens: usize,
    /// Everything declared for the server now: the functions a request would carry
    /// (`coyote mcp servers --json --declarations`; not serialised with the report).
    #[serde(skip)]
    pub declarations: Vec<FunctionDeclaration>,
}

fn serialize_exposure<S: serde::Serializer>(e: &Exposure, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(exposure_label(*e))
}

impl ExposureReport {
    /// `auto→direct`, `auto→retrieve`, `auto→meta`, or just the value when forced.
    pub fn label(&self) -> String {
        match self.configured {
            Exposure::Auto => format!("auto→{}", self.effective),
            Exposure::Direct | Exposure::Meta | Exposure::Retrieve => {
                exposure_label(self.configured).to_owned()
            }
        }
    }
}

/// The declaration of one directly exposed tool: its real description and input schema.
pub fn direct_declaration(name: &str, tool: &ToolInfo) -> FunctionDeclaration {
    let description = tool
        .description
        .clone()
        .filter(|d| !d.trim().is_empty())
        .or_else(|| tool.title.clone())
        .unwrap_or_else(|| format!("The tool `{}`.", tool.name));
    FunctionDeclaration {
        name: name.to_owned(),
        description,
        parameters: object_schema(&tool.input_schema),
    }
}

/// MCP requires an object schema; a server that sends something else still gets a callable
/// declaration (an object with any properties) instead of a request the provider rejects.
fn object_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => {
            schema.clone()
        }
        Value::Object(map) if !map.contains_key("type") => {
            let mut map = map.clone();
            map.insert("type".into(), Value::from("object"));
            Value::Object(map)
        }
        _ => json!({ "type": "object" }),
    }
}

/// The direct declarations of one server's tools under their provisional (un-hashed) names —
/// what the budget is measured on. Names hashed later differ by at most a few bytes.
pub fn provisional_direct_declarations(
    server: &str,
    tools: &[ToolInfo],
) -> Vec<FunctionDeclaration> {
    tools
        .iter()
        .map(|t| {
            let name = sanitize(&format!(
                "{server}{}{}",
                super::direct::DIRECT_SEPARATOR,
                t.name
            ));
            direct_declaration(&name, t)
        })
        .collect()
}

/// The `(server, tool)` pairs of a server's listed tools.
pub(crate) fn direct_tools(server: &str, tools: &[ToolInfo]) -> Vec<DirectTool> {
    tools
        .iter()
        .map(|t| DirectTool::new(server, t.name.clone()))
        .collect()
}

#[cfg(test)]
#[path = "exposure_tests.rs"]
mod tests;
