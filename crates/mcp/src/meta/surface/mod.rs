//! The model-visible surface of one dispatcher: which functions a request declares for the
//! selected servers (direct tools or meta-functions, per [`super::exposure`]; a health line for
//! a server that cannot serve), the set of names that request may call ([`Callable`]), and the
//! name table that maps a called direct name back to its tool.
//!
//! Invariants:
//! - [`Surface::declarations`] is THE computation of what a request may call: it returns the
//!   declarations and records the same set as the callable one; dispatch resolves names only
//!   against it, so an undeclared name never reaches a server.
//! - A server's tool list is listed once per connection and again only after the server sent
//!   `notifications/tools/list_changed` (the handle's tools generation moved) — so `auto` is
//!   re-evaluated when, and only when, the tool list changes. A failed listing is remembered
//!   the same way and shows the server through meta-functions (fail-open: they still answer).
//! - A direct server that lists resources, templates or prompts keeps search and describe, so
//!   the model can find them; they count toward the `auto` budget. One that only advertises
//!   them gets its tools alone (`discovery`).
//! - `mcp_read_<server>` is declared for a server with resources, and for any server a result
//!   handle was issued for (its truncation notes name it).
//! - A server that is starting, failed or stopped is declared by one short health line
//!   ([`super::health`]). No lock is held across an await.
//! - A `retrieve` server declares the tools [`super::retrieve::select`] picks for the request's
//!   context beside its meta-functions; its direct names are built over all its tools, so a
//!   tool keeps its name from request to request. The picks are kept with their reasons
//!   ([`Surface::retrieved`]). The retrieve part of the surface is in `retrieval`.
//! - Order: every server's stable declarations (meta-functions, direct tools, health lines)
//!   first, then the retrieved tools of all servers sorted by function name, so what changes
//!   between requests comes last and a local server's prompt cache keeps the rest.

mod discovery;
mod report;
mod retrieval;
mod skills;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use coyote_protocol::{Exposure, FunctionDeclaration};

use super::callable::Callable;
use super::declarations::{Shape, ToolAccess, declare};
use super::direct::{DirectNames, DirectTool};
use super::exposure::{
    DIRECT_MAX_TOOLS, EffectiveExposure, ExposurePolicies, decide, direct_declaration,
    direct_tools, estimate_tokens, provisional_direct_declarations,
};
use super::health::health_declaration;
use super::retrieve::{RetrieveContext, Retrieved, named, retrieved_declarations, select};
use super::{MetaKind, mcp_meta_function_names};
use crate::catalog::ToolInfo;
use crate::catalog_cache::CachedCatalog;
use crate::handle::ServerHandle;
use crate::runtime::McpRuntime;
use crate::server::{McpServerFeatures, ServerState};

/// A Ready server's tools as last listed, with their direct-declaration estimate.
#[derive(Debug)]
pub(super) struct ListedTools {
    pub(super) tools: Vec<ToolInfo>,
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
    callable: Mutex<Callable>,
    /// Servers a `coyote-result://` handle was issued for (they keep `mcp_read_`).
    handles: Mutex<BTreeSet<String>>,
    /// Servers the model got a still-running task from (their describe checks it).
    task_handles: Mutex<BTreeSet<String>>,
    /// Servers the latest declaration set declared from their cached catalog.
    from_cache: Mutex<BTreeSet<String>>,
    /// The tools `retrieve` servers declared in the latest declaration set, and why.
    retrieved: Mutex<Vec<Retrieved>>,
    /// Each skills-publishing server's latest `skills/list`, per connection.
    skills: Mutex<BTreeMap<String, skills::SkillsEntry>>,
    /// What each server that may be declared direct holds besides tools, per connection.
    holds: Mutex<BTreeMap<String, discovery::HoldsEntry>>,
}

/// What one server contributes to a declaration set.
enum Plan {
    Meta {
        features: McpServerFeatures,
        kinds: Vec<MetaKind>,
        skills: Option<String>,
    },
    Direct {
        features: McpServerFeatures,
        listed: Arc<ListedTools>,
        kinds: Vec<MetaKind>,
        skills: Option<String>,
    },
    Retrieve {
        features: McpServerFeatures,
        listed: Arc<ListedTools>,
        kinds: Vec<MetaKind>,
        chosen: Vec<Retrieved>,
        skills: Option<String>,
    },
    Unavailable {
        server: String,
        state: ServerState,
    },
}

impl Surface {
    pub(crate) fn new(policies: ExposurePolicies) -> Self {
        Surface {
            policies,
            ..Surface::default()
        }
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

    /// Records that a result handle was issued for `server`: it keeps `mcp_read_` from the
    /// next declaration set on.
    pub(crate) fn note_handle(&self, server: &str) {
        let mut handles = self.handles.lock().unwrap_or_else(|p| p.into_inner());
        handles.insert(server.to_owned());
    }

    fn has_handles(&self, server: &str) -> bool {
        let handles = self.handles.lock().unwrap_or_else(|p| p.into_inner());
        handles.contains(server)
    }

    /// The callable set of the latest declaration set.
    pub(crate) fn callable(&self) -> Callable {
        self.callable
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Where a server's features and tools come from now: its live handle (Ready) or its
    /// cached catalog (Idle); `Err` with the state of a server that cannot serve.
    pub(super) fn source(
        runtime: &McpRuntime,
        server: &str,
    ) -> Option<Result<ToolSource, ServerState>> {
        match runtime.state(server)? {
            ServerState::Ready => Some(match runtime.server(server) {
                Ok(handle) => Ok(ToolSource::Live(handle)),
                Err(_) => Err(runtime.state(server).unwrap_or(ServerState::Closed)),
            }),
            ServerState::Idle => Some(
                runtime
                    .cached_catalog(server)
                    .map(ToolSource::Cached)
                    .ok_or(ServerState::Idle),
            ),
            ServerState::Closed => None,
            state @ (ServerState::Starting | ServerState::Failed(_) | ServerState::NeedsAuth) => {
                Some(Err(state))
            }
        }
    }

    /// What one selected server contributes, from its state in the runtime.
    async fn plan_server(
        &self,
        runtime: &McpRuntime,
        server: &str,
        context: &RetrieveContext,
    ) -> Option<Plan> {
        Some(match Self::source(runtime, server)? {
            Ok(source) => self.plan(&source, context).await,
            Err(state) => Plan::Unavailable {
                server: server.to_owned(),
                state,
            },
        })
    }

    /// The server's tools with their direct-declaration estimate (`None`: not listable).
    pub(super) async fn tool_listing(&self, source: &ToolSource) -> Option<Arc<ListedTools>> {
        if !source.features().tools {
            return Some(Arc::new(ListedTools {
                tools: Vec::new(),
                direct_tokens: 0,
            }));
        }
        match source {
            ToolSource::Live(handle) => self.listed(handle).await.ok(),
            ToolSource::Cached(catalog) => Some(Arc::new(ListedTools {
                direct_tokens: estimate_tokens(&provisional_direct_declarations(
                    &catalog.server,
                    &catalog.tools,
                )),
                tools: catalog.tools.clone(),
            })),
        }
    }

    async fn plan(&self, source: &ToolSource, context: &RetrieveContext) -> Plan {
        let features = source.features();
        let configured = self.policies.get(&features.name);
        let skills = self.skills_index(source).await;
        let meta = |features: McpServerFeatures| Plan::Meta {
            kinds: self.meta_kinds(&features),
            features,
            skills: skills.clone(),
        };
        // No handshake result: fail-open meta-functions.
        if features.peer_info_missing || configured == Exposure::Meta {
            return meta(features);
        }
        let Some(listed) = self.tool_listing(source).await else {
            return meta(features);
        };
        // Only a server that may be declared direct is asked what it holds besides tools.
        let may_be_direct = configured == Exposure::Direct
            || (configured == Exposure::Auto && listed.tools.len() <= DIRECT_MAX_TOOLS);
        let holding = if may_be_direct {
            self.holding(source).await
        } else {
            features.clone()
        };
        let kinds = self.direct_kinds(&holding);
        // Discovery declared beside the tools counts toward the budget.
        let discovery: Vec<MetaKind> = kinds
            .iter()
            .copied()
            .filter(|k| matches!(k, MetaKind::Search | MetaKind::Describe))
            .collect();
        let extra = estimate_tokens(&declare(&direct_shape(&holding, &discovery)));
        match decide(configured, listed.tools.len(), listed.direct_tokens + extra) {
            EffectiveExposure::Direct => Plan::Direct {
                features: holding,
                listed,
                kinds,
                skills,
            },
            EffectiveExposure::Meta => meta(features),
            EffectiveExposure::Retrieve => {
                let kinds = self.meta_kinds(&features);
                Plan::Retrieve {
                    chosen: select(
                        &features.name,
                        &listed.tools,
                        context,
                        self.retrieve_settings(&features, &kinds),
                    ),
                    kinds,
                    features,
                    listed,
                    skills,
                }
            }
        }
    }

    /// The declarations of one request for the selected `servers` (by name; unknown and closed
    /// ones are left out), server by server; replaces the name table and the callable set.
    pub(crate) async fn declarations(
        &self,
        runtime: &McpRuntime,
        servers: &[String],
        context: &RetrieveContext,
    ) -> Vec<FunctionDeclaration> {
        let from_cache: BTreeSet<String> = servers
            .iter()
            .filter(|s| runtime.state(s) == Some(ServerState::Idle))
            .cloned()
            .collect();
        let plans: Vec<Plan> = futures::future::join_all(
            servers
                .iter()
                .map(|s| self.plan_server(runtime, s, context)),
        )
        .await
        .into_iter()
        .flatten()
        .collect();
        let reserved: BTreeSet<String> = servers
            .iter()
            .flat_map(|s| mcp_meta_function_names(s))
            .collect();
        let direct: Vec<DirectTool> = plans
            .iter()
            .flat_map(|plan| match plan {
                Plan::Direct {
                    features, listed, ..
                }
                | Plan::Retrieve {
                    features, listed, ..
                } => direct_tools(&features.name, &listed.tools),
                Plan::Meta { .. } | Plan::Unavailable { .. } => Vec::new(),
            })
            .collect();
        let names = DirectNames::build(&direct, &reserved);
        let retrieved: Vec<Retrieved> = plans
            .iter()
            .flat_map(|plan| match plan {
                Plan::Retrieve { chosen, .. } => named(chosen, &names),
                Plan::Meta { .. } | Plan::Direct { .. } | Plan::Unavailable { .. } => Vec::new(),
            })
            .collect();
        // The stable part first, server by server, then every retrieved tool by name: what
        // changes from request to request comes last, so a prompt cache keeps the rest.
        let mut declarations: Vec<FunctionDeclaration> = plans
            .iter()
            .flat_map(|plan| stable_declarations(plan, &names))
            .collect();
        declarations.extend(ranked_declarations(&plans, &names));
        let callable = Callable::of(&declarations, &names);
        *self.callable.lock().unwrap_or_else(|p| p.into_inner()) = callable;
        *self.from_cache.lock().unwrap_or_else(|p| p.into_inner()) = from_cache;
        *self.retrieved.lock().unwrap_or_else(|p| p.into_inner()) = retrieved;
        declarations
    }

    /// The tools `retrieve` servers declared in the latest declaration set, and why.
    pub(crate) fn retrieved(&self) -> Vec<Retrieved> {
        self.retrieved
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Whether `server` was declared from its cached catalog in the latest declaration set.
    pub(crate) fn declared_from_cache(&self, server: &str) -> bool {
        let cached = self.from_cache.lock().unwrap_or_else(|p| p.into_inner());
        cached.contains(server)
    }
}

/// Where a server's features and tools come from for one plan.
pub(super) enum ToolSource {
    Live(ServerHandle),
    Cached(Arc<CachedCatalog>),
}

impl ToolSource {
    pub(super) fn features(&self) -> McpServerFeatures {
        match self {
            ToolSource::Live(handle) => handle.features(),
            ToolSource::Cached(catalog) => catalog.features(),
        }
    }
}

/// The declarations one plan contributes: its stable part, then its retrieved tools.
fn plan_declarations(plan: &Plan, names: &DirectNames) -> Vec<FunctionDeclaration> {
    let mut out = stable_declarations(plan, names);
    out.extend(ranked_declarations(std::slice::from_ref(plan), names));
    out
}

/// The retrieved tools of `plans`, sorted by function name (a stable key: the same tools are
/// declared in the same order whatever their rank).
fn ranked_declarations(plans: &[Plan], names: &DirectNames) -> Vec<FunctionDeclaration> {
    let mut out: Vec<FunctionDeclaration> = plans
        .iter()
        .flat_map(|plan| match plan {
            Plan::Retrieve {
                features,
                listed,
                chosen,
                ..
            } => retrieved_declarations(&features.name, &listed.tools, chosen, names),
            Plan::Meta { .. } | Plan::Direct { .. } | Plan::Unavailable { .. } => Vec::new(),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// What one plan declares whatever the conversation: meta-functions, direct tools, a health
/// line — everything but retrieved tools.
fn stable_declarations(plan: &Plan, names: &DirectNames) -> Vec<FunctionDeclaration> {
    match plan {
        Plan::Meta {
            features,
            kinds,
            skills,
        } => {
            let tools = if kinds.contains(&MetaKind::Invoke) {
                ToolAccess::Invoke
            } else {
                ToolAccess::None
            };
            declare(&Shape {
                server: &features.name,
                kinds,
                tools,
                resources: features.resources,
                skills: skills.as_deref(),
            })
        }
        Plan::Direct {
            features,
            listed,
            kinds,
            skills,
        } => {
            let shape = Shape {
                skills: skills.as_deref(),
                ..direct_shape(features, kinds)
            };
            direct_server_declarations(features, &listed.tools, &shape, names)
        }
        Plan::Retrieve {
            features,
            kinds,
            skills,
            ..
        } => declare(&Shape {
            server: &features.name,
            kinds,
            tools: ToolAccess::Invoke,
            resources: features.resources,
            skills: skills.as_deref(),
        }),
        Plan::Unavailable { server, state } => vec![health_declaration(server, state)],
    }
}

fn direct_shape<'a>(features: &'a McpServerFeatures, kinds: &'a [MetaKind]) -> Shape<'a> {
    Shape {
        server: &features.name,
        kinds,
        tools: if features.tools {
            ToolAccess::Direct
        } else {
            ToolAccess::None
        },
        resources: features.resources,
        skills: None,
    }
}

/// A direct server: each named tool as itself, then its other functions (`shape`).
fn direct_server_declarations(
    features: &McpServerFeatures,
    tools: &[ToolInfo],
    shape: &Shape<'_>,
    names: &DirectNames,
) -> Vec<FunctionDeclaration> {
    let mut out: Vec<FunctionDeclaration> = tools
        .iter()
        .filter_map(|t| {
            let name = names.name_of(&DirectTool::new(&features.name, t.name.clone()))?;
            Some(direct_declaration(name, t))
        })
        .collect();
    out.extend(declare(shape));
    out
}
