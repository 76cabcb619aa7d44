//! The catalog cache: after a server ran, what it offers — its handshake info
//! (capabilities, instructions) and its tools, resources, templates and prompts — is kept on
//! disk, so the next session can declare the server without starting it.
//!
//! Invariants:
//! - One file per server entry, named by the SHA-256 of the resolved entry's name and
//!   transport (command, arguments, environment values, URL, headers): a changed entry, a
//!   changed secret or another machine's values never reuse a catalog. Files are written to a
//!   temporary name and renamed, mode 0600 in a 0700 directory; they hold no secret values.
//! - A catalog is used while it is fresh: `catalogTtlSec` of the entry when set, else the
//!   server's own `ttlMs` hint, else [`DEFAULT_CATALOG_TTL`]. A file that does not read back
//!   (another version, damage) is treated as absent.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use coyote_protocol::McpServerSpec;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::catalog::{PromptInfo, ResourceInfo, ResourceTemplateInfo, ToolInfo};
use crate::connect::Lifecycle;
use crate::server::{McpServerFeatures, ServerInfo};

/// How long a catalog is used when neither the entry nor the server says.
pub const DEFAULT_CATALOG_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);
/// Format of the files; another value reads as absent.
pub const CATALOG_CACHE_VERSION: u32 = 1;

/// One server's catalog as it was cached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedCatalog {
    /// [`CATALOG_CACHE_VERSION`].
    pub version: u32,
    /// The server's configured name (for `coyote mcp cache`).
    pub server: String,
    /// When it was written, in milliseconds since the Unix epoch.
    pub written_at_ms: u64,
    /// The smallest `ttlMs` hint the server's lists carried.
    pub server_ttl_ms: Option<u64>,
    /// What the server said about itself in the handshake.
    pub info: ServerInfo,
    /// Its tools.
    pub tools: Vec<ToolInfo>,
    /// Its resources.
    pub resources: Vec<ResourceInfo>,
    /// Its resource templates.
    pub templates: Vec<ResourceTemplateInfo>,
    /// Its prompts.
    pub prompts: Vec<PromptInfo>,
    /// The handshake it answered (`discover`: protocol 2026-07-28; `initialize`: 2025-11-25
    /// and earlier), when the start negotiated instead of being pinned: the next start goes
    /// straight to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Lifecycle>,
}

impl CachedCatalog {
    /// What the server offers, from its cached capabilities.
    pub fn features(&self) -> McpServerFeatures {
        let caps = &self.info.capabilities;
        McpServerFeatures {
            name: self.server.clone(),
            tools: caps.tools,
            resources: caps.resources,
            prompts: caps.prompts,
            completions: caps.completions,
            skills: caps.skills,
            peer_info_missing: false,
            tasks: caps.tasks,
        }
    }

    /// How long it is used for `spec`: `catalogTtlSec`, else the server's hint, else
    /// [`DEFAULT_CATALOG_TTL`].
    pub fn ttl(&self, spec: &McpServerSpec) -> Duration {
        spec.start
            .catalog_ttl
            .or(self.server_ttl_ms.map(Duration::from_millis))
            .unwrap_or(DEFAULT_CATALOG_TTL)
    }

    /// Whether it is still used at `now` for `spec`.
    pub fn is_fresh(&self, spec: &McpServerSpec, now: SystemTime) -> bool {
        let written = UNIX_EPOCH + Duration::from_millis(self.written_at_ms);
        now.duration_since(written)
            .is_ok_and(|age| age < self.ttl(spec))
    }
}

/// One cache file, for `coyote mcp cache`.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheEntry {
    /// The file.
    pub path: PathBuf,
    /// Its catalog (`None`: unreadable, another version).
    pub catalog: Option<CachedCatalog>,
}

/// A catalog cache could not be written or cleared.
#[derive(Debug, thiserror::Error)]
#[error("catalog cache {}: {source}; check the cache directory's permissions", path.display())]
pub struct CatalogCacheError {
    /// The file or directory.
    pub path: PathBuf,
    /// What failed.
    #[source]
    pub source: std::io::Error,
}

/// The directory of cached catalogs (`<cache>/mcp-catalogs`, chosen by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogCache {
    dir: PathBuf,
}

impl CatalogCache {
    /// A cache in `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        CatalogCache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `spec`'s catalog: the SHA-256 of its name and resolved transport.
    pub fn path_of(&self, spec: &McpServerSpec) -> PathBuf {
        let mut hasher = Sha256::new();
        hasher.update(spec.name.as_bytes());
        hasher.update([0u8]);
        hasher.update(serde_json::to_vec(&spec.transport).unwrap_or_default());
        self.dir
            .join(format!("{}.json", hex::encode(hasher.finalize())))
    }

    /// `spec`'s catalog if one is cached and fresh now.
    pub fn load_fresh(&self, spec: &McpServerSpec) -> Option<CachedCatalog> {
        let catalog = read(&self.path_of(spec))?;
        (catalog.server == spec.name && catalog.is_fresh(spec, SystemTime::now()))
            .then_some(catalog)
    }

    /// The handshake `spec`'s server answered when it was last started, if that was within
    /// [`DEFAULT_CATALOG_TTL`] — whether or not its catalog is still fresh (a server may ask
    /// that its lists not be kept at all; what it speaks is another matter).
    pub fn remembered_lifecycle(&self, spec: &McpServerSpec) -> Option<Lifecycle> {
        let catalog = read(&self.path_of(spec))?;
        let age = now_ms().saturating_sub(catalog.written_at_ms);
        let recent = u128::from(age) <= DEFAULT_CATALOG_TTL.as_millis();
        (catalog.server == spec.name && recent)
            .then_some(catalog.lifecycle)
            .flatten()
    }

    /// Writes `catalog` as `spec`'s (0600, atomically).
    pub fn store(
        &self,
        spec: &McpServerSpec,
        catalog: &CachedCatalog,
    ) -> Result<(), CatalogCacheError> {
        let err = |path: &Path| {
            let path = path.to_owned();
            move |source| CatalogCacheError { path, source }
        };
        create_private_dir(&self.dir).map_err(err(&self.dir))?;
        let path = self.path_of(spec);
        let bytes = serde_json::to_vec(catalog).map_err(|e| CatalogCacheError {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        let temp = path.with_extension(format!("tmp.{}", std::process::id()));
        let written = write_private(&temp, &bytes).and_then(|()| std::fs::rename(&temp, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written.map_err(err(&path))
    }

    /// Every cache file, sorted by path.
    pub fn entries(&self) -> Vec<CacheEntry> {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut entries: Vec<CacheEntry> = dir
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .map(|path| CacheEntry {
                catalog: read(&path),
                path,
            })
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        entries
    }

    /// Deletes every cache file; returns how many.
    pub fn clear(&self) -> Result<usize, CatalogCacheError> {
        let mut removed = 0;
        for entry in self.entries() {
            match std::fs::remove_file(&entry.path) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(CatalogCacheError {
                        path: entry.path,
                        source,
                    });
                }
            }
        }
        Ok(removed)
    }
}

/// Milliseconds since the Unix epoch now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn read(path: &Path) -> Option<CachedCatalog> {
    let bytes = std::fs::read(path).ok()?;
    let catalog: CachedCatalog = serde_json::from_slice(&bytes).ok()?;
    (catalog.version == CATALOG_CACHE_VERSION).then_some(catalog)
}

/// Writes `bytes` to a new file of mode 0600 (replacing a leftover of this process).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(test)]
#[path = "catalog_cache_tests.rs"]
mod tests;
