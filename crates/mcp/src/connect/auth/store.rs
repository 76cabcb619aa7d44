//! Where sign-ins live: one [`SignInRecord`] per server URL + configured client id (so renaming
//! a server keeps its login), in a [`TokenStore`] — a 0600 file under a 0700 directory by
//! default, the OS keyring when chosen ([`super::keyring`]), or memory (tests, one-shot tools).
//!
//! Invariants: a record is written whole (temp file + rename) and read whole; a record that
//! does not parse is treated as absent (and logged without its contents); no token ever enters
//! a log line, an error message or `Debug` output. Stores are synchronous: callers run them on
//! a blocking thread, bounded in time ([`RecordCell`]).

use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use rmcp::transport::auth::{AuthorizationMetadata, StoredCredentials};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::refresh_lock::{FileLock, acquire};
use crate::error::AuthFailure;

/// Which record: the server URL plus the configured client id (`None`: coyote registers one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StoreKey {
    /// The server's URL as configured.
    pub server_url: String,
    /// The configured `clientId`, if any.
    pub client_id: Option<String>,
}

impl StoreKey {
    /// A stable, file-name-safe id (hex of a hash; the URL itself may hold secrets).
    pub(crate) fn id(&self) -> String {
        let mut hash = Sha256::new();
        hash.update(self.server_url.as_bytes());
        hash.update([0]);
        hash.update(self.client_id.as_deref().unwrap_or("").as_bytes());
        hex::encode(&hash.finalize()[..16])
    }
}

/// The client that signed in.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClientRecord {
    pub(crate) client_id: String,
    /// From dynamic registration; configured secrets stay in mcp.json.
    pub(crate) client_secret: Option<String>,
    pub(crate) redirect_uri: String,
    /// Registered by coyote (dynamic registration), so it may be re-registered freely.
    pub(crate) registered: bool,
}

impl fmt::Debug for ClientRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientRecord")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("redirect_uri", &self.redirect_uri)
            .field("registered", &self.registered)
            .finish()
    }
}

/// Everything remembered about one sign-in.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(crate) struct SignInRecord {
    pub(crate) server_url: String,
    pub(crate) configured_client_id: Option<String>,
    pub(crate) client: Option<ClientRecord>,
    /// The authorization server's metadata, so tokens refresh without a new discovery.
    pub(crate) metadata: Option<AuthorizationMetadata>,
    /// Tokens and granted scopes (rmcp's shape).
    pub(crate) credentials: Option<StoredCredentials>,
    /// Scopes a server asked for with 403 `insufficient_scope` while no sign-in could run;
    /// the next sign-in asks for them too.
    #[serde(default)]
    pub(crate) pending_scopes: Vec<String>,
    /// The DPoP key (PKCS#8, base64) tokens of this sign-in are bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dpop_key: Option<String>,
}

impl SignInRecord {
    pub(crate) fn new(key: &StoreKey) -> Self {
        SignInRecord {
            server_url: key.server_url.clone(),
            configured_client_id: key.client_id.clone(),
            ..SignInRecord::default()
        }
    }

    pub(crate) fn has_tokens(&self) -> bool {
        self.credentials
            .as_ref()
            .is_some_and(|c| c.token_response.is_some())
    }

    pub(crate) fn granted_scopes(&self) -> Vec<String> {
        self.credentials
            .as_ref()
            .map(|c| c.granted_scopes.clone())
            .unwrap_or_default()
    }
}

impl fmt::Debug for SignInRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignInRecord")
            .field("server_url", &coyote_protocol::redact_url(&self.server_url))
            .field("client", &self.client)
            .field("has_tokens", &self.has_tokens())
            .field("pending_scopes", &self.pending_scopes)
            .field("has_dpop_key", &self.dpop_key.is_some())
            .finish_non_exhaustive()
    }
}

/// A place for sign-in records. Synchronous: run it on a blocking thread.
pub(crate) trait TokenStore: Send + Sync {
    fn load(&self, key: &StoreKey) -> Result<Option<SignInRecord>, AuthFailure>;
    fn save(&self, key: &StoreKey, record: &SignInRecord) -> Result<(), AuthFailure>;
    /// `true` when something was deleted.
    fn delete(&self, key: &StoreKey) -> Result<bool, AuthFailure>;
    /// For messages: `the file store in /home/u/.local/state/coyote/oauth`.
    fn describe(&self) -> String;
    /// The lock file that serialises refreshes of `key` across processes (none in memory).
    fn lock_path(&self, _key: &StoreKey) -> Option<PathBuf> {
        None
    }
}

/// One JSON file per record, `<dir>/<key id>.json`, mode 0600 in a 0700 directory.
pub(crate) struct FileStore {
    dir: PathBuf,
}

impl FileStore {
    pub(crate) fn new(dir: PathBuf) -> Self {
        FileStore { dir }
    }

    fn path(&self, key: &StoreKey) -> PathBuf {
        self.dir.join(format!("{}.json", key.id()))
    }

    fn ensure_dir(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        set_mode(&self.dir, 0o700)
    }
}

fn store_failure(what: &str, path: &Path, e: std::io::Error) -> AuthFailure {
    AuthFailure::Store {
        reason: format!(
            "cannot {what} {}: {e}; check the permissions of that directory",
            path.display()
        ),
    }
}

impl TokenStore for FileStore {
    fn load(&self, key: &StoreKey) -> Result<Option<SignInRecord>, AuthFailure> {
        let path = self.path(key);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(store_failure("read", &path, e)),
        };
        match serde_json::from_slice::<SignInRecord>(&bytes) {
            Ok(record) if record.server_url == key.server_url => Ok(Some(record)),
            Ok(_) => Ok(None),
            Err(e) => {
                tracing::warn!(
                    file = %path.display(),
                    line = e.line(),
                    "unreadable sign-in record ignored (a new sign-in replaces it)"
                );
                Ok(None)
            }
        }
    }

    fn save(&self, key: &StoreKey, record: &SignInRecord) -> Result<(), AuthFailure> {
        let path = self.path(key);
        self.ensure_dir()
            .map_err(|e| store_failure("create", &self.dir, e))?;
        let json = serde_json::to_vec_pretty(record).map_err(|e| AuthFailure::Store {
            reason: e.to_string(),
        })?;
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let written = (|| {
            let mut file = open_private(&tmp)?;
            file.write_all(&json)?;
            file.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(store_failure("write", &path, e));
        }
        Ok(())
    }

    fn delete(&self, key: &StoreKey) -> Result<bool, AuthFailure> {
        let path = self.path(key);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(store_failure("delete", &path, e)),
        }
    }

    fn describe(&self) -> String {
        format!("the file store in {}", self.dir.display())
    }

    fn lock_path(&self, key: &StoreKey) -> Option<PathBuf> {
        Some(self.dir.join(format!("{}.lock", key.id())))
    }
}

#[cfg(unix)]
fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::create(path)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> std::io::Result<()> {
    Ok(())
}

/// Records in memory only (tests, the conformance shim).
#[derive(Default)]
pub(crate) struct MemoryStore(Mutex<HashMap<StoreKey, SignInRecord>>);

impl TokenStore for MemoryStore {
    fn load(&self, key: &StoreKey) -> Result<Option<SignInRecord>, AuthFailure> {
        Ok(self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .cloned())
    }

    fn save(&self, key: &StoreKey, record: &SignInRecord) -> Result<(), AuthFailure> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.clone(), record.clone());
        Ok(())
    }

    fn delete(&self, key: &StoreKey) -> Result<bool, AuthFailure> {
        Ok(self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(key)
            .is_some())
    }

    fn describe(&self) -> String {
        "memory (nothing is kept after coyote exits)".to_owned()
    }
}

/// Bound of one store operation (a keyring may wait for an unlock prompt).
const STORE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs a store operation on a blocking thread, bounded by [`STORE_TIMEOUT`].
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, AuthFailure> + Send + 'static,
) -> Result<T, AuthFailure> {
    match tokio::time::timeout(STORE_TIMEOUT, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => Err(AuthFailure::Store {
            reason: e.to_string(),
        }),
        Err(_) => Err(AuthFailure::Store {
            reason: format!(
                "the token store did not answer within {} s (a locked keyring waiting for its \
                 password?)",
                STORE_TIMEOUT.as_secs()
            ),
        }),
    }
}

/// One server's record in memory, written through to its store. Shared by the flows and by
/// rmcp (as its credential store, [`super::credentials`]). The memory copy is the truth while
/// coyote runs; every change is persisted whole on a blocking thread, latest state wins.
pub(crate) struct RecordCell {
    key: StoreKey,
    store: Arc<dyn TokenStore>,
    memory: Mutex<SignInRecord>,
    /// Serialises writes so an older snapshot never overwrites a newer one.
    persisting: Arc<Mutex<()>>,
    /// One refresh at a time in this process (the lock file does it across processes).
    refresh_gate: Arc<tokio::sync::Mutex<()>>,
    /// Set while coyote's own refresh holds the gate, so rmcp's refresh inside it does not
    /// take it again.
    pub(crate) refreshing: AtomicBool,
}

/// The refresh gate and lock file of a record, held; the record was re-read under them.
pub(crate) struct RefreshGuard {
    _gate: tokio::sync::OwnedMutexGuard<()>,
    _file: Option<FileLock>,
}

impl RecordCell {
    /// Loads the record (on a blocking thread); absent → an empty one.
    pub(crate) async fn load(
        key: StoreKey,
        store: Arc<dyn TokenStore>,
    ) -> Result<Arc<Self>, AuthFailure> {
        let loaded = {
            let (key, store) = (key.clone(), store.clone());
            blocking(move || store.load(&key)).await?
        };
        let record = loaded.unwrap_or_else(|| SignInRecord::new(&key));
        Ok(Arc::new(RecordCell {
            key,
            store,
            memory: Mutex::new(record),
            persisting: Arc::new(Mutex::new(())),
            refresh_gate: Arc::new(tokio::sync::Mutex::new(())),
            refreshing: AtomicBool::new(false),
        }))
    }

    /// Takes the refresh gate and lock file, then re-reads the record from the store (another
    /// process may have refreshed meanwhile).
    pub(crate) async fn coordinate(self: &Arc<Self>) -> Result<RefreshGuard, AuthFailure> {
        let gate = self.refresh_gate.clone().lock_owned().await;
        let file = match self.store.lock_path(&self.key) {
            Some(path) => acquire(path).await?,
            None => None,
        };
        let (key, store) = (self.key.clone(), self.store.clone());
        if let Some(stored) = blocking(move || store.load(&key)).await? {
            *self.memory.lock().unwrap_or_else(|p| p.into_inner()) = stored;
        }
        Ok(RefreshGuard {
            _gate: gate,
            _file: file,
        })
    }

    /// For messages: where this record is kept.
    pub(crate) fn store_description(&self) -> String {
        self.store.describe()
    }

    pub(crate) fn credentials(&self) -> Option<StoredCredentials> {
        self.memory
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .credentials
            .clone()
    }

    pub(crate) fn get(&self) -> SignInRecord {
        self.memory
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Changes the record in memory, then persists it.
    pub(crate) async fn update(
        self: &Arc<Self>,
        change: impl FnOnce(&mut SignInRecord),
    ) -> Result<(), AuthFailure> {
        change(&mut self.memory.lock().unwrap_or_else(|p| p.into_inner()));
        self.persist().await
    }

    async fn persist(self: &Arc<Self>) -> Result<(), AuthFailure> {
        let cell = self.clone();
        blocking(move || {
            let _one_writer = cell.persisting.lock().unwrap_or_else(|p| p.into_inner());
            let snapshot = cell.get();
            cell.store.save(&cell.key, &snapshot)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> StoreKey {
        StoreKey {
            server_url: "https://mcp.example/mcp".into(),
            client_id: None,
        }
    }

    #[test]
    fn file_store_round_trip_with_private_modes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state/oauth");
        let store = FileStore::new(dir.clone());
        assert!(store.load(&key()).unwrap().is_none());
        let mut record = SignInRecord::new(&key());
        record.pending_scopes = vec!["write".into()];
        store.save(&key(), &record).unwrap();
        let loaded = store.load(&key()).unwrap().unwrap();
        assert_eq!(loaded.pending_scopes, ["write"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir), 0o700);
            assert_eq!(mode(&store.path(&key())), 0o600);
        }
        // Another client id is another record; the same URL with it finds nothing.
        let other = StoreKey {
            client_id: Some("app".into()),
            ..key()
        };
        assert!(store.load(&other).unwrap().is_none());
        assert!(store.delete(&key()).unwrap());
        assert!(!store.delete(&key()).unwrap());
        assert!(store.load(&key()).unwrap().is_none());
    }

    #[test]
    fn a_corrupt_file_reads_as_absent() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::new(tmp.path().to_owned());
        std::fs::write(store.path(&key()), b"{not json").unwrap();
        assert!(store.load(&key()).unwrap().is_none());
    }
}
