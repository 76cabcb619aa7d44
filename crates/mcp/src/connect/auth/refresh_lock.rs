//! One refresh at a time across coyote processes (a REPL, a script, the session daemon) that
//! share a sign-in: a lock file beside the token store (`<id>.lock`, 0600), taken with a
//! bounded wait ([`REFRESH_LOCK_WAIT`]); whoever gets it second re-reads the store and uses the
//! token the first one stored instead of refreshing again — with rotating refresh tokens a
//! second refresh would present a refresh token the first one already spent.
//!
//! Invariants: the lock is held only around a refresh (never across an MCP request); a lock
//! that cannot be had within the wait is logged and the refresh goes ahead (a stuck process
//! must not stop every other one); the lock file holds nothing.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::StoredCredentials;

use crate::error::AuthFailure;

/// Longest wait for another process's refresh.
pub const REFRESH_LOCK_WAIT: Duration = Duration::from_secs(30);
/// How often a waiting process tries the lock again.
const RETRY_EVERY: Duration = Duration::from_millis(20);
/// rmcp refreshes when fewer than `min(this, lifetime / 2)` seconds (at least 1) remain;
/// coyote uses the same rule, so it refreshes under the lock before rmcp would without it.
const RMCP_REFRESH_BUFFER_SECS: u64 = 30;

/// A held lock file; released on drop (closing the file releases the lock).
#[derive(Debug)]
pub(crate) struct FileLock {
    _file: std::fs::File,
}

/// Takes the lock at `path` (creating it and its directory), waiting at most
/// [`REFRESH_LOCK_WAIT`]; `None` when the wait ran out.
pub(crate) async fn acquire(path: PathBuf) -> Result<Option<FileLock>, AuthFailure> {
    let work = tokio::task::spawn_blocking(move || take(&path));
    match work.await {
        Ok(result) => result,
        Err(e) => Err(AuthFailure::Store {
            reason: format!("the refresh lock could not be taken ({e})"),
        }),
    }
}

fn take(path: &Path) -> Result<Option<FileLock>, AuthFailure> {
    let failure = |e: std::io::Error| AuthFailure::Store {
        reason: format!(
            "cannot use the refresh lock {}: {e}; check the permissions of that directory",
            path.display()
        ),
    };
    if let Some(dir) = path.parent()
        && !dir.exists()
    {
        std::fs::create_dir_all(dir).map_err(failure)?;
        private_dir(dir).map_err(failure)?;
    }
    let file = open_private(path).map_err(failure)?;
    let deadline = Instant::now() + REFRESH_LOCK_WAIT;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Some(FileLock { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(RETRY_EVERY);
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                tracing::warn!(
                    lock = %path.display(),
                    "another coyote process held the refresh lock for over {} s; refreshing anyway",
                    REFRESH_LOCK_WAIT.as_secs()
                );
                return Ok(None);
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(failure(e)),
        }
    }
}

#[cfg(unix)]
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn private_dir(_: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// Whether `credentials` are due for a refresh by rmcp's rule (see
/// [`RMCP_REFRESH_BUFFER_SECS`]) and can be refreshed; `false` when the token response says
/// nothing of its expiry or holds no refresh token.
pub(crate) fn refresh_due(credentials: &StoredCredentials) -> bool {
    let response = credentials
        .token_response
        .as_ref()
        .and_then(|t| serde_json::to_value(t).ok());
    let refreshable = response
        .as_ref()
        .is_some_and(|v| v.get("refresh_token").is_some_and(|r| r.is_string()));
    let expires_in = response.and_then(|v| v.get("expires_in")?.as_u64());
    if !refreshable {
        return false;
    }
    let (Some(expires_in), Some(received_at)) = (expires_in, credentials.token_received_at) else {
        return false;
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let remaining = expires_in.saturating_sub(now.saturating_sub(received_at));
    remaining < RMCP_REFRESH_BUFFER_SECS.min(expires_in / 2).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_second_taker_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/oauth/x.lock");
        let first = acquire(path.clone()).await.unwrap().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let parent = path.parent().unwrap();
            let mode = std::fs::metadata(parent).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "a directory coyote made for locks is private");
        }
        // Another open file description of the same lock (as another process has) must wait.
        let other = open_private(&path).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(first);
        other.try_lock().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }

    fn credentials(expires_in: u64, received_at: u64) -> StoredCredentials {
        let token = serde_json::from_value(serde_json::json!({
            "access_token": "a", "token_type": "Bearer", "expires_in": expires_in,
            "refresh_token": "r"
        }))
        .unwrap();
        StoredCredentials::new("c".into(), Some(token), vec![], Some(received_at))
    }

    #[test]
    fn due_by_rmcps_rule() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert!(refresh_due(&credentials(0, now)));
        assert!(refresh_due(&credentials(3600, now - 3590)));
        assert!(!refresh_due(&credentials(3600, now)));
        let unknown = StoredCredentials::new("c".into(), None, vec![], Some(now));
        assert!(!refresh_due(&unknown));
        let mut no_refresh_token = credentials(0, now);
        let mut value = serde_json::to_value(no_refresh_token.token_response.take()).unwrap();
        value.as_object_mut().unwrap().remove("refresh_token");
        no_refresh_token.token_response = serde_json::from_value(value).unwrap();
        assert!(!refresh_due(&no_refresh_token), "nothing to refresh with");
    }
}
