//! The page cache of `mcp_read_`: a text resource read from a server is
//! kept for [`PAGE_CACHE_TTL`], so paging it page by page reads it from the server once.
//!
//! Invariants:
//! - Keyed by server and (expanded) URI, and valid only for the connection it was read on and
//!   while the server has not reported the URI updated (`notifications/resources/updated`
//!   moves its [`ResourceVersion`]): a stale entry is never served.
//! - Text only: a read with any blob (or off-spec) entry is not kept — blobs spill as before.
//! - At most [`PAGE_CACHE_MAX_BYTES`] of text in all; the least recently used entries go
//!   first, and a read larger than the whole budget is not kept. No lock is held across an
//!   await (the cache is consulted before and filled after the server's answer).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::client_handler::ResourceVersion;
use crate::content::ResourceContent;
use crate::handle::ServerHandle;

/// How long a read is served from the cache.
pub const PAGE_CACHE_TTL: Duration = Duration::from_secs(5 * 60);
/// Text kept in all (64 MiB).
pub const PAGE_CACHE_MAX_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug)]
struct Entry {
    handle: ServerHandle,
    version: ResourceVersion,
    read_at: Instant,
    used_at: Instant,
    bytes: usize,
    contents: Arc<Vec<ResourceContent>>,
}

/// Recently read text resources, shared by a dispatcher's clones.
#[derive(Debug, Default)]
pub(crate) struct PageCache {
    entries: Mutex<HashMap<(String, String), Entry>>,
}

impl PageCache {
    /// The cached contents of `uri` on `handle`'s connection, if fresh.
    pub(crate) fn get(
        &self,
        handle: &ServerHandle,
        uri: &str,
    ) -> Option<Arc<Vec<ResourceContent>>> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let key = (handle.name().to_owned(), uri.to_owned());
        let fresh = entries.get(&key).is_some_and(|e| {
            e.handle.same_connection(handle)
                && e.version == handle.resource_version(uri)
                && e.read_at.elapsed() < PAGE_CACHE_TTL
        });
        if !fresh {
            entries.remove(&key);
            return None;
        }
        let entry = entries.get_mut(&key)?;
        entry.used_at = Instant::now();
        Some(entry.contents.clone())
    }

    /// Keeps `contents` of `uri`, read on `handle` at `version` (taken before the request),
    /// when it is all text and fits.
    pub(crate) fn put(
        &self,
        handle: &ServerHandle,
        uri: &str,
        version: ResourceVersion,
        contents: &Arc<Vec<ResourceContent>>,
    ) {
        let mut bytes = 0usize;
        for item in contents.iter() {
            match item {
                ResourceContent::Text { text, .. } => bytes = bytes.saturating_add(text.len()),
                ResourceContent::Blob { .. } | ResourceContent::Invalid { .. } => return,
            }
        }
        if bytes > PAGE_CACHE_MAX_BYTES || contents.is_empty() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|_, e| e.read_at.elapsed() < PAGE_CACHE_TTL);
        let key = (handle.name().to_owned(), uri.to_owned());
        entries.remove(&key);
        let mut total: usize = entries.values().map(|e| e.bytes).sum();
        while total + bytes > PAGE_CACHE_MAX_BYTES {
            let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, e)| e.used_at)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(gone) = entries.remove(&oldest) {
                total -= gone.bytes;
            }
        }
        let now = Instant::now();
        entries.insert(
            key,
            Entry {
                handle: handle.clone(),
                version,
                read_at: now,
                used_at: now,
                bytes,
                contents: contents.clone(),
            },
        );
    }
}
