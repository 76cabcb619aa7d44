//! Where the bearer token comes from, and when it is re-read.
//!
//! Invariants:
//! - an inline token never changes;
//! - a token file is read (and trimmed) once at build time — missing or empty is a
//!   [`BuildError`] — then re-stat'ed before every request and re-read when its mtime moved;
//! - [`TokenSource::refresh`] (used after a 401) re-reads regardless of mtime and reports
//!   whether the value changed, which is the only condition for the single retry;
//! - if the file vanishes or turns unreadable/empty later, the last good token is kept;
//! - the token is never formatted: [`Secret`]'s `Debug` prints `***`.
//!
//! File I/O here is synchronous on purpose: one `stat` of a small local file per request, with
//! no await in between, so no lock is ever held across an await.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::error::BuildError;

/// How the client obtains its token.
#[derive(Clone, PartialEq, Eq)]
pub enum TokenSpec {
    /// A fixed token (e.g. `COOLIFY_ACCESS_TOKEN`).
    Inline(String),
    /// A file holding the token (e.g. `COOLIFY_ACCESS_TOKEN_FILE`), re-read on rotation.
    File(PathBuf),
}

impl std::fmt::Debug for TokenSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Inline(_) => f.write_str("Inline(***)"),
            Self::File(path) => f.debug_tuple("File").field(path).finish(),
        }
    }
}

/// A token value whose `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(pub(crate) String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// What a forced re-read found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refresh {
    /// A different token is now current: retrying makes sense.
    Changed,
    /// Same token, inline token, or the file could not be read.
    Unchanged,
}

#[derive(Debug)]
pub(crate) struct FileState {
    value: Secret,
    mtime: Option<SystemTime>,
}

/// The token source of one client.
#[derive(Debug)]
pub(crate) enum TokenSource {
    Inline(Secret),
    File {
        path: PathBuf,
        state: Mutex<FileState>,
    },
}

impl TokenSource {
    pub(crate) fn new(spec: TokenSpec) -> Result<Self, BuildError> {
        match spec {
            TokenSpec::Inline(token) => {
                if token.trim().is_empty() {
                    return Err(BuildError::EmptyToken);
                }
                Ok(Self::Inline(Secret(token)))
            }
            TokenSpec::File(path) => {
                let (value, mtime) = read_token_file(&path)?;
                Ok(Self::File {
                    path,
                    state: Mutex::new(FileState { value, mtime }),
                })
            }
        }
    }

    /// The token to send now; re-reads the file when its mtime moved.
    pub(crate) fn current(&self) -> Secret {
        match self {
            Self::Inline(secret) => secret.clone(),
            Self::File { path, state } => {
                let mut state = state
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
                // A vanished file keeps the last good token: an atomic replace may unlink
                // briefly, and a really gone token shows up as a 401 that says so.
                if mtime.is_some()
                    && mtime != state.mtime
                    && let Ok((value, mtime)) = read_token_file(path)
                {
                    state.value = value;
                    state.mtime = mtime;
                }
                state.value.clone()
            }
        }
    }

    /// Force a re-read ignoring the mtime cache (after a 401) and say whether the token moved.
    pub(crate) fn refresh(&self) -> Refresh {
        match self {
            Self::Inline(_) => Refresh::Unchanged,
            Self::File { path, state } => {
                let Ok((value, mtime)) = read_token_file(path) else {
                    return Refresh::Unchanged;
                };
                let mut state = state
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                let changed = state.value != value;
                state.value = value;
                state.mtime = mtime;
                if changed {
                    Refresh::Changed
                } else {
                    Refresh::Unchanged
                }
            }
        }
    }
}

/// Stat first, then read: if the file is rewritten in between, the older mtime is stored and
/// the next request re-reads (errs towards one extra read, never a stale token).
fn read_token_file(path: &Path) -> Result<(Secret, Option<SystemTime>), BuildError> {
    let unreadable = |e: std::io::Error| BuildError::TokenFileUnreadable {
        path: path.to_path_buf(),
        reason: e.kind().to_string(),
    };
    let mtime = std::fs::metadata(path).map_err(unreadable)?.modified().ok();
    let raw = std::fs::read_to_string(path).map_err(unreadable)?;
    // `echo token > file` appends a newline; a bearer header carrying it would be malformed.
    let token = raw.trim();
    if token.is_empty() {
        return Err(BuildError::TokenFileEmpty {
            path: path.to_path_buf(),
        });
    }
    Ok((Secret(token.to_owned()), mtime))
}
