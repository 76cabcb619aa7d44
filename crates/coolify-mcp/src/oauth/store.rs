//! The OAuth state file: registered clients, pending authorization codes, access and refresh
//! tokens, shared by every process that names the same file (replicas behind a balancer).
//!
//! Invariants:
//! - the file is created 0600 and only ever replaced whole: written to a sibling temporary
//!   file (0600), synced, renamed over it; a reader sees the old state or the new one;
//! - every read-modify-write holds an exclusive `flock` on the sibling `<file>.lock`, so two
//!   processes never lose each other's writes (reads take it shared);
//! - codes and tokens are stored as SHA-256 hex digests, never in the clear: a copy of the
//!   file signs nobody in;
//! - every token belongs to a family (one sign-in) and is bound to one resource URL;
//! - the user's Coolify token is kept only sealed under the secret that grants it, never in
//!   the clear and never under a key the file holds;
//! - expired entries are dropped on every write, and so are registrations never used for a
//!   sign-in once [`UNUSED_CLIENT_TTL_SECS`] old;
//! - the file never exceeds [`MAX_STATE_BYTES`]: a change that would grow it beyond is refused.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Why the state file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Reading, locking or replacing the file failed.
    #[error("OAuth state file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The new state would exceed [`MAX_STATE_BYTES`]; nothing was written.
    #[error("OAuth state file {path} would exceed {MAX_STATE_BYTES} bytes; nothing was written")]
    TooLarge {
        /// The file.
        path: String,
    },
    /// The file is not the JSON this server writes.
    #[error("OAuth state file {path} is not valid state JSON ({reason})")]
    Corrupt {
        /// The file.
        path: String,
        /// The parser's reason.
        reason: String,
    },
    /// The shared state store (Redis) could not be reached or refused the command.
    #[error(
        "the state store {url} is unavailable ({reason}); check that it runs and that --state / COOLIFY_MCP_STATE_URL names it"
    )]
    Unavailable {
        /// The store's URL without its password.
        url: String,
        /// The client's reason.
        reason: String,
    },
}

/// The largest state file written: a change that would grow it beyond is refused.
pub const MAX_STATE_BYTES: usize = 8 * 1024 * 1024;
/// A registration never used for a sign-in is dropped this long after it was made.
pub const UNUSED_CLIENT_TTL_SECS: u64 = 24 * 3600;

/// A registered client (dynamic client registration; public clients only).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Client {
    /// Exact redirect URIs it registered.
    pub redirect_uris: Vec<String>,
    /// Its display name, when given.
    #[serde(default)]
    pub client_name: Option<String>,
    /// Registration time, seconds since the epoch.
    pub issued_at: u64,
    /// A sign-in of it completed (a code was redeemed): it is never evicted to make room.
    /// Registrations written by an older version (no field) count as used, so an upgrade
    /// drops none of them.
    #[serde(default = "registered_before_tracking")]
    pub used: bool,
}

fn registered_before_tracking() -> bool {
    true
}

/// A pending authorization code.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Code {
    /// The client it was issued to.
    pub client_id: String,
    /// The redirect URI it was issued for.
    pub redirect_uri: String,
    /// The PKCE S256 challenge.
    pub challenge: String,
    /// The resource (this server's canonical MCP URL) the code grants access to.
    #[serde(default)]
    pub resource: String,
    /// The signing-in user's Coolify token, sealed under the code (`sealed`).
    #[serde(default)]
    pub sealed_token: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
}

/// An issued token (access or refresh).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Grant {
    /// The client it was issued to.
    pub client_id: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// The sign-in it descends from: every token rotated out of one authorization code shares
    /// it, so a reused refresh token can revoke them all.
    #[serde(default)]
    pub family: String,
    /// The canonical MCP URL (RFC 8707 resource) the token is good for; a token without one
    /// (written by an older version) is good for none.
    #[serde(default)]
    pub resource: String,
    /// The signed-in user's Coolify token, sealed under this token (`sealed`): calls under
    /// the grant use it, so a grant never exceeds what the user's own token may do. A grant
    /// without one (written by an older version) opens nothing.
    #[serde(default)]
    pub sealed_token: String,
}

/// A refresh token that was already rotated: kept until it would have expired, so that its
/// reuse is recognised (and revokes its family) instead of looking merely unknown.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Spent {
    /// The family of the token.
    pub family: String,
    /// When the token would have expired, seconds since the epoch.
    pub exp: u64,
}

/// Everything the file holds. Keys of `codes`, `access` and `refresh` are SHA-256 digests.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct State {
    /// Registered clients by id.
    #[serde(default)]
    pub clients: BTreeMap<String, Client>,
    /// Pending codes.
    #[serde(default)]
    pub codes: BTreeMap<String, Code>,
    /// Access tokens.
    #[serde(default)]
    pub access: BTreeMap<String, Grant>,
    /// Refresh tokens.
    #[serde(default)]
    pub refresh: BTreeMap<String, Grant>,
    /// Refresh tokens already rotated (reuse detection).
    #[serde(default)]
    pub spent_refresh: BTreeMap<String, Spent>,
}

impl State {
    fn purge(&mut self, now: u64) {
        self.codes.retain(|_, c| c.exp > now);
        self.access.retain(|_, g| g.exp > now);
        self.refresh.retain(|_, g| g.exp > now);
        self.spent_refresh.retain(|_, s| s.exp > now);
        self.clients
            .retain(|_, c| c.used || c.issued_at.saturating_add(UNUSED_CLIENT_TTL_SECS) > now);
    }

    /// Make room for one more client under `max`: drop the oldest never-used registrations.
    /// False when every kept client has been used (nothing may be dropped).
    pub fn make_room(&mut self, max: usize) -> bool {
        while self.clients.len() >= max {
            let oldest = self
                .clients
                .iter()
                .filter(|(_, c)| !c.used)
                .min_by_key(|(_, c)| c.issued_at)
                .map(|(id, _)| id.clone());
            match oldest {
                Some(id) => {
                    self.clients.remove(&id);
                }
                None => return false,
            }
        }
        true
    }

    /// Revoke every access and refresh token of `family`.
    pub fn revoke_family(&mut self, family: &str) {
        self.access.retain(|_, g| g.family != family);
        self.refresh.retain(|_, g| g.family != family);
    }
}

/// SHA-256 hex of a secret: how codes and tokens are keyed.
pub fn digest(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Seconds since the epoch.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// One version of the state file, as [`Store::stamp`] sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    inode: u64,
    len: u64,
    mtime_ns: i128,
}

/// The state file (cheap to clone).
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    /// A store at `path` (created on first write).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: self.path.display().to_string(),
            source,
        }
    }

    fn lock_file(&self) -> Result<File, StoreError> {
        let mut lock = self.path.clone().into_os_string();
        lock.push(".lock");
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(PathBuf::from(lock))
            .map_err(|e| self.io(e))
    }

    fn load_unlocked(&self) -> Result<State, StoreError> {
        match std::fs::read(&self.path) {
            Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => Ok(State::default()),
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| StoreError::Corrupt {
                path: self.path.display().to_string(),
                reason: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State::default()),
            Err(e) => Err(self.io(e)),
        }
    }

    /// What identifies the file's current version without reading it: every write replaces the
    /// file (a new inode) and changes its modification time. `None` when there is no file.
    pub fn stamp(&self) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(&self.path).ok()?;
        Some(Stamp {
            inode: m.ino(),
            len: m.len(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        })
    }

    /// The current state (under a shared lock).
    pub fn load(&self) -> Result<State, StoreError> {
        let lock = self.lock_file()?;
        lock.lock_shared().map_err(|e| self.io(e))?;
        let state = self.load_unlocked();
        let _ = lock.unlock();
        state
    }

    /// Read, change and replace the state under the exclusive lock; `change`'s answer.
    pub fn update<T>(&self, change: impl FnOnce(&mut State) -> T) -> Result<T, StoreError> {
        let lock = self.lock_file()?;
        lock.lock().map_err(|e| self.io(e))?;
        let result = self.update_locked(change);
        let _ = lock.unlock();
        result
    }

    fn update_locked<T>(&self, change: impl FnOnce(&mut State) -> T) -> Result<T, StoreError> {
        let mut state = self.load_unlocked()?;
        let answer = change(&mut state);
        state.purge(now_secs());
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(format!(".tmp.{}", std::process::id()));
        let tmp = PathBuf::from(tmp);
        let body = serde_json::to_vec_pretty(&state).map_err(|e| StoreError::Corrupt {
            path: self.path.display().to_string(),
            reason: e.to_string(),
        })?;
        if body.len() > MAX_STATE_BYTES {
            return Err(StoreError::TooLarge {
                path: self.path.display().to_string(),
            });
        }
        let write = || -> std::io::Result<()> {
            let mut f = OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(&body)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            self.io(e)
        })?;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn registrations_from_an_older_file_count_as_used_and_are_kept() {
        let mut state: State = serde_json::from_str(
            r#"{"clients":{"mcp_client_old":{"redirect_uris":["http://127.0.0.1:9/cb"],"issued_at":0}}}"#,
        )
        .unwrap();
        assert!(state.clients["mcp_client_old"].used);
        state.purge(now_secs());
        assert!(!state.make_room(1), "a used client is never evicted");
        assert!(state.clients.contains_key("mcp_client_old"));
    }

    #[test]
    fn writes_are_0600_hashed_and_survive_concurrent_writers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let a = Store::new(&path);
        let b = Store::new(&path);
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let s = if i % 2 == 0 { a.clone() } else { b.clone() };
                std::thread::spawn(move || {
                    for j in 0..10 {
                        s.update(|st| {
                            st.access.insert(
                                digest(&format!("tok-{i}-{j}")),
                                Grant {
                                    client_id: "c".into(),
                                    exp: u64::MAX,
                                    family: "f".into(),
                                    resource: "r".into(),
                                    sealed_token: String::new(),
                                },
                            );
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let state = a.load().unwrap();
        assert_eq!(state.access.len(), 80, "no write was lost");
        assert!(state.access.contains_key(&digest("tok-3-7")));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("tok-3-7"), "tokens are stored hashed");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
