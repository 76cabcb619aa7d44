//! Trust of project-local `.coyote/mcp.json` and `.mcp.json` files. Such a file arrives with a cloned
//! repository and can start arbitrary programs, so it is used only after the user trusted that
//! exact content at that exact path once. Decisions live in
//! `<state>/trusted-projects.json` (`{"version":1,"projects":{PATH:{"sha256":HEX}}}`),
//! written atomically with mode 0600.
//!
//! Invariants: trust is keyed by (canonical path, sha256 of the bytes) — editing the file or
//! moving the same content elsewhere needs a new decision. An unreadable store trusts nothing
//! (the safe direction) and is replaced on the next decision.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{ConfigError, IoOp};
use crate::fsutil::{PRIVATE_FILE_MODE, write_atomic};
use crate::paths::ConfigPaths;

/// What the store says about a project file's current content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustStatus {
    /// Trusted with exactly this content.
    Trusted,
    /// Never trusted (or trust was revoked).
    Untrusted,
    /// Trusted once, but the content changed since.
    Changed,
}

/// The user's answer (interactive yes/no, or `--trust-project`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustDecision {
    /// Remember this content as trusted.
    Trust,
    /// Do not use it; forget any earlier trust of this path.
    Distrust,
}

/// A project-local mcp.json found by the loader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFile {
    /// `<root>/.coyote/mcp.json` or `<root>/.mcp.json`.
    pub path: PathBuf,
    /// The project root (the directory holding `.coyote/` or `.mcp.json`).
    pub root: PathBuf,
    /// Lowercase hex sha256 of the file's bytes as read.
    pub sha256: String,
    /// Whether the user trusted it (and this exact content).
    pub status: TrustStatus,
}

impl ProjectFile {
    /// The user trusted this exact content.
    pub fn is_trusted(&self) -> bool {
        self.status == TrustStatus::Trusted
    }
}

/// The remembered decisions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    projects: BTreeMap<String, StoreEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct StoreEntry {
    sha256: String,
}

const STORE_VERSION: u32 = 1;

impl TrustStore {
    /// The store in the state dir (`trusted-projects.json`).
    pub fn new(paths: &ConfigPaths) -> Self {
        TrustStore {
            path: paths.trusted_projects(),
        }
    }

    /// A store at `path` (tests; the product uses [`TrustStore::new`]).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        TrustStore { path: path.into() }
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The status of `file` with content hash `sha256`. `Err(reason)` when the store exists
    /// but cannot be read or parsed (callers treat that as untrusted and warn).
    pub fn status(&self, file: &Path, sha256: &str) -> Result<TrustStatus, String> {
        let store = self.read()?;
        Ok(match store.projects.get(&key(file)) {
            Some(entry) if entry.sha256 == sha256 => TrustStatus::Trusted,
            Some(_) => TrustStatus::Changed,
            None => TrustStatus::Untrusted,
        })
    }

    /// Remembers `file` as trusted with content hash `sha256`.
    pub fn trust(&self, file: &Path, sha256: &str) -> Result<(), ConfigError> {
        let mut store = self.read().unwrap_or_default();
        store.projects.insert(
            key(file),
            StoreEntry {
                sha256: sha256.to_owned(),
            },
        );
        self.write(store)
    }

    /// Forgets any trust of `file`. No-op when there is none.
    pub fn revoke(&self, file: &Path) -> Result<(), ConfigError> {
        let mut store = self.read().unwrap_or_default();
        if store.projects.remove(&key(file)).is_none() {
            return Ok(());
        }
        self.write(store)
    }

    /// Applies the user's answer about `project`.
    pub fn decide(
        &self,
        project: &ProjectFile,
        decision: TrustDecision,
    ) -> Result<(), ConfigError> {
        match decision {
            TrustDecision::Trust => self.trust(&project.path, &project.sha256),
            TrustDecision::Distrust => self.revoke(&project.path),
        }
    }

    fn read(&self) -> Result<StoreFile, String> {
        let text = match crate::bounded::read_bounded_text(
            &self.path,
            crate::bounded::FileClass::Config,
        ) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(StoreFile::default()),
            Err(e) => return Err(e.to_string()),
        };
        let store: StoreFile = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        if store.version != STORE_VERSION {
            return Err(format!("unknown version {}", store.version));
        }
        Ok(store)
    }

    fn write(&self, mut store: StoreFile) -> Result<(), ConfigError> {
        store.version = STORE_VERSION;
        let mut text = serde_json::to_string_pretty(&store).map_err(|e| ConfigError::Io {
            path: self.path.clone(),
            op: IoOp::Write,
            source: std::io::Error::other(e),
        })?;
        text.push('\n');
        write_atomic(&self.path, text.as_bytes(), PRIVATE_FILE_MODE)
    }
}

/// Lowercase hex sha256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The canonical path as the store key, so `./x/../.coyote` and a symlinked checkout agree.
fn key(file: &Path) -> String {
    fs::canonicalize(file)
        .unwrap_or_else(|_| file.to_owned())
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
