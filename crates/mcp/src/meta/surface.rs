//! The model-visible surface of one dispatcher: which functions a request declares for a set of
//! servers (direct tools or meta-functions, per [`super::exposure`]), and the name table that
//! maps a called direct name back to its tool.
//!
//! Invariants:
//! - A server's tool list is listed once per connection and again only after the server sent
//!   `notifications/tools/list_changed` (the handle's tools generation moved) — so `auto` is
//!   re-evaluated when, and only when, the tool list changes. A failed listing is remembered
//!   the same way and shows the server through meta-functions (fail-open: they still answer).
//! - Servers that are not Ready keep today's meta declarations (search, describe, invoke by
//!   D7's fail-open rule), so a call answers with the server's state.
//! - The name table is replaced by each declaration set; it is the table the names of that set
//!   were generated from (one generator, one parser). No lock is held across an await.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use coyote_protocol::{Exposure, FunctionDeclaration};

use super::declarations::declarations as meta_declarations;
use super::direct::{DirectNames, DirectTool};
use super::exposure::{
    EffectiveExposure, ExposurePolicies, ExposureReport, decide, direct_declaration, direct_tools,
    estimate_tokens, provisional_direct_declarations,
};
use super::{MetaKind, mcp_meta_function_names};
use crate::catalog::ToolInfo;
use crate::handle::ServerHandle;
use crate::runtime::McpRuntime;
use crate::server::McpServerFeatures;

/// A Ready server's tools as last listed, with their direct-declaration estimate.
#[derive(Debug)]
struct ListedTools {
    tools: Vec<ToolInfo>,
    direct_tokens: usize,
}

#[derive(Debug)]
struct CacheEntry {
    /// The connection the listing came from (a restarted server is listed again).
    handle: ServerHandle,
    tools_generation: u64,
    listed: Result<Arc<ListedTools>, String>,
}

/// Exposure state shared by a dispatcher's clones.
#[derive(Debug, Default)]
pub(crate) struct Surface {
    pub(crate) policies: ExposurePolicies,
    cache: Mutex<BTreeMap<String, CacheEntry>>,
    names: Mutex<DirectNames>,
}

/// What one server contributes to a declaration set.
enum Plan {
    Meta(McpServerFeatures),
    Direct {
        features: McpServerFeatures,
        listed: Arc<ListedTools>,
    },
}

impl Surface {
    pub(crate) fn new(policies: ExposurePolicies) -> Self {
        Surface {
            policies,
            ..Surface::default()
        }
    }

    /// The direct tool a name of the current declaration set addresses.
    pub(crate) fn resolve_direct(&self, name: &str) -> Option<DirectTool> {
        let names = self.names.lock().unwrap_or_else(|p| p.into_inner());
        names.resolve(name).cloned()
    }

    /// The listed tools of a Ready server, from the cache while its tool list is unchanged.
    async fn listed(&self, handle: &ServerHandle) -> Result<Arc<ListedTools>, String> {
        let generation = handle.list_generations().tools;
        {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(entry) = cache.get(handle.name())
                && entry.tools_generation == generation
                && entry.handle.same_connection(handle)
            {
                return entry.listed.clone();
            }
        }
        let listed = match handle.list_tools().await {
            Ok(tools) => {
                let direct_tokens =
                    estimate_tokens(&provisional_direct_declarations(handle.name(), &tools));
                Ok(Arc::new(ListedTools {
                    tools,
                    direct_tokens,
                }))
            }
            Err(e) => {
                tracing::warn!(server = %handle.name(), "cannot list tools to choose the exposure; using meta-functions: {e}");
                Err(e.to_string())
            }
        };
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.insert(
            handle.name().to_owned(),
            CacheEntry {
                handle: handle.clone(),
                tools_generation: generation,
                listed: listed.clone(),
            },
        );
        listed
    }

    async fn plan(&self, runtime: &McpRuntime, features: &McpServerFeatures) -> Plan {
        let configured = self.policies.get(&features.name);
        let meta = || Plan::Meta(features.clone());
        // Not Ready (or no handshake result): fail-open meta-functions answer with the state.
        let handle = match runtime.server(&features.name) {
            Ok(handle) if !features.peer_info_missing => handle,
            Ok(_) | Err(_) => return meta(),
        };
        if configured == Exposure::Meta {
            return meta();
        }
        let listed = if features.tools {
            match self.listed(&handle).await {
                Ok(listed) => listed,
                Err(_) => return meta(),
            }
        } else {
            Arc::new(ListedTools {
                tools: Vec::new(),
                direct_tokens: 0,
            })
        };
        match decide(configured, listed.tools.len(), listed.direct_tokens) {
            EffectiveExposure::Direct => Plan::Direct {
                features: features.clone(),
                listed,
            },
            EffectiveExposure::Meta => meta(),
        }
    }

    /// The declarations for `servers` (Ready ones with live features, others as
    /// placeholders with `peer_info_missing`), server by server; replaces the name table.
    pub(crate) async fn declarations(
        &self,
        runtime: &McpRuntime,
        servers: &[McpServerFeatures],
    ) -> Vec<FunctionDeclaration> {
        let plans = futures::future::join_all(servers.iter().map(|f| self.plan(runtime, f))).await;
        let reserved: BTreeSet<String> = servers
            .iter()
            .flat_map(|f| mcp_meta_function_names(&f.name))
            .collect();
        let direct: Vec<DirectTool> = plans
            .iter()
            .flat_map(|plan| match plan {
                Plan::Direct { features, listed } => direct_tools(&features.name, &listed.tools),
                Plan::Meta(_) => Vec::new(),
            })
            .collect();
        let names = DirectNames::build(&direct, &reserved);
        let declarations = plans
            .iter()
            .flat_map(|plan| match plan {
                Plan::Meta(features) => meta_declarations(features),
                Plan::Direct { features, listed } => {
                    direct_server_declarations(features, &listed.tools, &names)
                }
            })
            .collect();
        *self.names.lock().unwrap_or_else(|p| p.into_inner()) = names;
        declarations
    }

    /// `coyote mcp servers` / `.info`: the server's exposure as the next request would see it.
    pub(crate) async fn report(&self, runtime: &McpRuntime, server: &str) -> ExposureReport {
        let configured = self.policies.get(server);
        let placeholder = McpServerFeatures {
            name: server.to_owned(),
            peer_info_missing: true,
            ..McpServerFeatures::default()
        };
        let handle = match runtime.server(server) {
            Ok(handle) => handle,
            Err(_) => return meta_report(configured, &placeholder, None),
        };
        let features = handle.features();
        let listed = if features.tools {
            self.listed(&handle).await.ok()
        } else {
            Some(Arc::new(ListedTools {
                tools: Vec::new(),
                direct_tokens: 0,
            }))
        };
        match self.plan(runtime, &features).await {
            Plan::Meta(features) => meta_report(configured, &features, listed.as_deref()),
            Plan::Direct { features, listed } => {
                let tools = direct_tools(&features.name, &listed.tools);
                let names = DirectNames::build(&tools, &BTreeSet::new());
                ExposureReport {
                    configured,
                    effective: EffectiveExposure::Direct,
                    tools: Some(listed.tools.len()),
                    direct_tokens: Some(listed.direct_tokens),
                    declared_tokens: estimate_tokens(&direct_server_declarations(
                        &features,
                        &listed.tools,
                        &names,
                    )),
                }
            }
        }
    }
}

fn meta_report(
    configured: Exposure,
    features: &McpServerFeatures,
    listed: Option<&ListedTools>,
) -> ExposureReport {
    ExposureReport {
        configured,
        effective: EffectiveExposure::Meta,
        tools: listed.map(|l| l.tools.len()),
        direct_tokens: listed.map(|l| l.direct_tokens),
        declared_tokens: estimate_tokens(&meta_declarations(features)),
    }
}

/// A direct server: each named tool as itself, then read/prompt as gated by D7.
fn direct_server_declarations(
    features: &McpServerFeatures,
    tools: &[ToolInfo],
    names: &DirectNames,
) -> Vec<FunctionDeclaration> {
    let mut out: Vec<FunctionDeclaration> = tools
        .iter()
        .filter_map(|t| {
            let name = names.name_of(&DirectTool::new(&features.name, t.name.clone()))?;
            Some(direct_declaration(name, t))
        })
        .collect();
    out.extend(
        meta_declarations(features)
            .into_iter()
            .filter(|d| is_kept_beside_direct(&d.name)),
    );
    out
}

/// Read and prompt stay declared beside direct tools (D7 gating already applied).
fn is_kept_beside_direct(name: &str) -> bool {
    super::MetaFunction::parse(name).is_some_and(|f| match f.kind {
        MetaKind::Read | MetaKind::Prompt => true,
        MetaKind::Search | MetaKind::Describe | MetaKind::Invoke => false,
    })
}
