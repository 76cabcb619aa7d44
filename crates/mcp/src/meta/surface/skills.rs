//! The skills part of the surface: each skills-publishing server's `skills/list`, listed once
//! per connection (no file of a skill is fetched here), the index its `mcp_read_` declares,
//! and the listing a read of a skill's file is verified against. A failed listing is
//! remembered too (logged; the server is declared without an index, and its `skill://` files
//! are refused rather than read unverified).

use std::sync::Arc;

use super::{Surface, ToolSource};
use crate::handle::ServerHandle;
use crate::meta::skills::index;
use crate::skills::SkillListing;

/// One server's listing and the connection it came from.
#[derive(Debug)]
pub(super) struct SkillsEntry {
    handle: ServerHandle,
    listing: Option<Arc<SkillListing>>,
}

impl Surface {
    /// The skills of a Ready server that publishes them, from the cache while the connection
    /// is the same; `None` for other servers or when listing failed.
    pub(crate) async fn skills_of(&self, handle: &ServerHandle) -> Option<Arc<SkillListing>> {
        if !handle.features().skills {
            return None;
        }
        {
            let cache = self.skills.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(entry) = cache.get(handle.name())
                && entry.handle.same_connection(handle)
            {
                return entry.listing.clone();
            }
        }
        let listing = match handle.list_skills().await {
            Ok(listing) => Some(Arc::new(listing)),
            Err(e) => {
                tracing::warn!(server = %handle.name(), "cannot list skills; declared without a skills index: {e}");
                None
            }
        };
        let mut cache = self.skills.lock().unwrap_or_else(|p| p.into_inner());
        cache.insert(
            handle.name().to_owned(),
            SkillsEntry {
                handle: handle.clone(),
                listing: listing.clone(),
            },
        );
        listing
    }

    /// The skills index of `mcp_read_` for a live server with skills (an idle one is declared
    /// from its cached catalog, which holds no skills: its index comes once it runs).
    pub(super) async fn skills_index(&self, source: &ToolSource) -> Option<String> {
        match source {
            ToolSource::Live(handle) => index(&*self.skills_of(handle).await?),
            ToolSource::Cached(_) => None,
        }
    }
}
