//! Which meta-functions the surface declares beside a server's tools. A meta server gets the
//! kinds its live features gate in (plus `mcp_read_` once a result handle was issued for it);
//! a direct server gets discovery only when there is something to discover: search and
//! describe when its catalog holds a resource, template or prompt, `mcp_read_` for resources
//! (or skills, or handles), `mcp_prompt_` for prompts. A server that advertises resources or
//! prompts but lists none gets its tools alone — small models call whatever is declared.
//!
//! A direct server whose tool call outlived its wait as an MCP task also keeps its describe
//! function from then on, so the model can check the task.
//!
//! What a live server holds is asked once per connection (the first page of each advertised
//! kind, [`crate::ServerHandle::holds`]) and again only after it sent
//! `notifications/resources|prompts/list_changed`; an idle server's comes from its cached
//! catalog.

use super::{Surface, ToolSource};
use crate::handle::ServerHandle;
use crate::listing::CatalogHolds;
use crate::meta::{MetaKind, enabled_kinds};
use crate::server::McpServerFeatures;

/// One server's holdings and the connection and list generations they were asked at.
#[derive(Debug)]
pub(super) struct HoldsEntry {
    handle: ServerHandle,
    generations: (u64, u64),
    holds: CatalogHolds,
}

impl Surface {
    /// The kinds a meta-exposed server declares: those its live features gate in, plus read
    /// once a handle was issued.
    pub(in crate::meta) fn meta_kinds(&self, features: &McpServerFeatures) -> Vec<MetaKind> {
        let mut kinds = enabled_kinds(features);
        if !kinds.contains(&MetaKind::Read) && self.has_handles(&features.name) {
            kinds.push(MetaKind::Read);
            kinds.sort_by_key(|k| MetaKind::ALL.iter().position(|a| a == k));
        }
        kinds
    }

    /// The kinds a direct server declares beside its tools, for `features` already narrowed
    /// to what it holds ([`Surface::holding`]): discovery when it has more than tools, read
    /// for resources, skills or handles, prompt for prompts.
    pub(super) fn direct_kinds(&self, features: &McpServerFeatures) -> Vec<MetaKind> {
        let discovery = features.resources || features.prompts;
        MetaKind::ALL
            .into_iter()
            .filter(|kind| match kind {
                MetaKind::Search => discovery,
                // Describe also checks a still-running task the model was given.
                MetaKind::Describe => discovery || self.has_task_handles(&features.name),
                MetaKind::Invoke => false,
                MetaKind::Read => {
                    features.resources || features.skills || self.has_handles(&features.name)
                }
                MetaKind::Prompt => features.prompts,
            })
            .collect()
    }

    /// The model was given a still-running MCP task of `server`: from now on its describe
    /// function is declared, so the task can be checked (`kind: "task"`).
    pub(crate) fn note_task_handle(&self, server: &str) {
        let mut servers = self.task_handles.lock().unwrap_or_else(|p| p.into_inner());
        servers.insert(server.to_owned());
    }

    fn has_task_handles(&self, server: &str) -> bool {
        let servers = self.task_handles.lock().unwrap_or_else(|p| p.into_inner());
        servers.contains(server)
    }

    /// `features` with `resources` and `prompts` kept only where the server holds some.
    pub(super) async fn holding(&self, source: &ToolSource) -> McpServerFeatures {
        let features = source.features();
        if !features.resources && !features.prompts {
            return features;
        }
        let holds = match source {
            ToolSource::Live(handle) => self.live_holds(handle).await,
            ToolSource::Cached(catalog) => CatalogHolds {
                resources: !catalog.resources.is_empty() || !catalog.templates.is_empty(),
                prompts: !catalog.prompts.is_empty(),
            },
        };
        McpServerFeatures {
            resources: features.resources && holds.resources,
            prompts: features.prompts && holds.prompts,
            ..features
        }
    }

    async fn live_holds(&self, handle: &ServerHandle) -> CatalogHolds {
        let lists = handle.list_generations();
        let generations = (lists.resources, lists.prompts);
        {
            let cache = self.holds.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(entry) = cache.get(handle.name())
                && entry.generations == generations
                && entry.handle.same_connection(handle)
            {
                return entry.holds;
            }
        }
        let holds = handle.holds().await;
        let mut cache = self.holds.lock().unwrap_or_else(|p| p.into_inner());
        cache.insert(
            handle.name().to_owned(),
            HoldsEntry {
                handle: handle.clone(),
                generations,
                holds,
            },
        );
        holds
    }
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
