//! Saved sessions: `<config>/sessions/NAME.yaml` (or `NAME.json`) holding an opaque
//! conversation payload plus its metadata (role, agent, MCP selection). The conversation type
//! belongs to coyote-session; the store is generic over it.
//!
//! Invariants:
//! - Files are written atomically (temp file + rename in the same directory) with mode 0600:
//!   a crash leaves the old file or the new one, never a torn one.
//! - A file that does not parse is reported ([`SessionStoreError::Corrupt`]) and never
//!   overwritten: saving over it fails until the user moves it away.
//! - Names are file stems of `[A-Za-z0-9_.-]` not starting with `.` (no path escapes).

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::definition::{DefinitionKind, check_definition_name};
use crate::error::ConfigError;
use crate::fsutil::{PRIVATE_FILE_MODE, write_atomic};
use crate::selection::ServerListValue;

/// The current file layout version.
pub const SESSION_FILE_VERSION: u32 = 1;

/// On-disk encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionFormat {
    /// `NAME.yaml`.
    Yaml,
    /// `NAME.json`.
    Json,
}

impl SessionFormat {
    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            SessionFormat::Yaml => "yaml",
            SessionFormat::Json => "json",
        }
    }
}

/// What a session restores besides the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SessionMeta {
    /// The role active when it was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The agent active when it was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The session's own `enabled_mcp_servers` layer (`None` = not set by the session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_mcp_servers: Option<ServerListValue>,
    /// The model, as `client:model`, active when it was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionFile<T> {
    /// The file format version ([`SESSION_FILE_VERSION`] when written).
    pub version: u32,
    /// What else the session restores.
    #[serde(default)]
    pub meta: SessionMeta,
    /// The conversation (the caller's type).
    pub conversation: T,
}

impl<T> SessionFile<T> {
    /// A file of the current version.
    pub fn new(meta: SessionMeta, conversation: T) -> Self {
        SessionFile {
            version: SESSION_FILE_VERSION,
            meta,
            conversation,
        }
    }
}

/// One saved session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionEntry {
    /// The session's name (the file name without extension).
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// Its encoding.
    pub format: SessionFormat,
}

/// Why a session could not be saved, found or loaded.
#[derive(Debug, thiserror::Error)]
pub enum SessionStoreError {
    /// The name cannot be a file name.
    #[error(
        "`{name}` is not a valid session name; use letters, digits, `_`, `-` and `.` (not first)"
    )]
    InvalidName {
        /// The name as given.
        name: String,
    },
    /// No session of that name exists.
    #[error("no session named `{name}` in {}; save one with `.session save {name}`", dir.display())]
    NotFound {
        /// The name asked for.
        name: String,
        /// The sessions directory.
        dir: PathBuf,
    },
    /// Both `NAME.yaml` and `NAME.json` exist.
    #[error("session `{name}` exists as both {} and {}; remove one of them", first.display(), second.display())]
    Ambiguous {
        /// The name asked for.
        name: String,
        /// One of the files.
        first: PathBuf,
        /// The other file.
        second: PathBuf,
    },
    /// The file does not decode as a session.
    #[error("{} is not a readable session file ({problem}); it was left untouched: move it away or pick another name", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What the decoder reported.
        problem: String,
    },
    /// The file was written by a newer coyote.
    #[error("session file {} has version {found}, this coyote reads version {SESSION_FILE_VERSION}; upgrade coyote or start a new session", path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
    },
    /// The file could not be read.
    #[error("cannot read {}: {source}{}", path.display(), crate::bounded::read_fix(source, "; check its permissions"))]
    Read {
        /// The file.
        path: PathBuf,
        /// The read error.
        source: std::io::Error,
    },
    /// The session could not be encoded.
    #[error("cannot encode the session: {message}")]
    Encode {
        /// What the encoder reported.
        message: String,
    },
    /// The file could not be written.
    #[error(transparent)]
    Write(#[from] ConfigError),
}

/// The sessions directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStore {
    dir: PathBuf,
}

impl SessionStore {
    /// `dir` is usually `ConfigPaths::sessions_dir()`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SessionStore { dir: dir.into() }
    }

    /// The sessions directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Saves atomically (0600). An existing file keeps its format; a new one uses `format`.
    /// Refuses to replace an existing file that does not parse as a session.
    pub fn save<T: Serialize>(
        &self,
        name: &str,
        file: &SessionFile<T>,
        format: SessionFormat,
    ) -> Result<PathBuf, SessionStoreError> {
        check_name(name)?;
        let (path, format) = match self.find(name)? {
            Some(existing) => {
                self.read_value(&existing)?;
                (existing.path, existing.format)
            }
            None => (self.path(name, format), format),
        };
        let bytes = match format {
            SessionFormat::Yaml => serde_yaml_ng::to_string(file)
                .map(String::into_bytes)
                .map_err(|e| SessionStoreError::Encode {
                    message: e.to_string(),
                })?,
            SessionFormat::Json => {
                serde_json::to_vec_pretty(file).map_err(|e| SessionStoreError::Encode {
                    message: e.to_string(),
                })?
            }
        };
        write_atomic(&path, &bytes, PRIVATE_FILE_MODE)?;
        Ok(path)
    }

    /// Loads `NAME.yaml` / `NAME.yml` / `NAME.json`.
    pub fn load<T: DeserializeOwned>(
        &self,
        name: &str,
    ) -> Result<SessionFile<T>, SessionStoreError> {
        check_name(name)?;
        let Some(entry) = self.find(name)? else {
            return Err(SessionStoreError::NotFound {
                name: name.to_owned(),
                dir: self.dir.clone(),
            });
        };
        let value = self.read_value(&entry)?;
        serde_json::from_value(value).map_err(|e| SessionStoreError::Corrupt {
            path: entry.path.clone(),
            problem: e.to_string(),
        })
    }

    /// Every session file, sorted by name (unreadable directory = none).
    pub fn list(&self) -> Vec<SessionEntry> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<SessionEntry> = entries
            .filter_map(Result::ok)
            .filter_map(|e| entry_of(e.path()))
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name).then(a.path.cmp(&b.path)));
        out
    }

    fn path(&self, name: &str, format: SessionFormat) -> PathBuf {
        self.dir.join(format!("{name}.{}", format.extension()))
    }

    fn find(&self, name: &str) -> Result<Option<SessionEntry>, SessionStoreError> {
        let candidates: Vec<SessionEntry> = ["yaml", "yml", "json"]
            .iter()
            .map(|ext| self.dir.join(format!("{name}.{ext}")))
            .filter(|p| p.is_file())
            .filter_map(entry_of)
            .collect();
        match candidates.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one.clone())),
            [first, second, ..] => Err(SessionStoreError::Ambiguous {
                name: name.to_owned(),
                first: first.path.clone(),
                second: second.path.clone(),
            }),
        }
    }

    /// The file as a JSON value, checked to be a session of a version we read.
    fn read_value(&self, entry: &SessionEntry) -> Result<serde_json::Value, SessionStoreError> {
        let path = &entry.path;
        let bytes = crate::bounded::read_bounded(path, crate::bounded::FileClass::Session)
            .map_err(|source| SessionStoreError::Read {
                path: path.clone(),
                source,
            })?;
        let corrupt = |problem: String| SessionStoreError::Corrupt {
            path: path.clone(),
            problem,
        };
        let value: serde_json::Value = match entry.format {
            SessionFormat::Json => {
                serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?
            }
            SessionFormat::Yaml => {
                let text = std::str::from_utf8(&bytes).map_err(|e| corrupt(e.to_string()))?;
                if let Some(line) = crate::bounded::yaml_too_deep(text) {
                    return Err(corrupt(format!(
                        "line {line}: the YAML is nested deeper than {} levels",
                        crate::bounded::MAX_YAML_DEPTH
                    )));
                }
                serde_yaml_ng::from_str(text)
                    .map_err(|e| corrupt(crate::serde_words::plain(&e.to_string())))?
            }
        };
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(v) if v == u64::from(SESSION_FILE_VERSION) => Ok(value),
            Some(v) => Err(SessionStoreError::UnsupportedVersion {
                path: path.clone(),
                found: u32::try_from(v).unwrap_or(u32::MAX),
            }),
            None => Err(corrupt("no `version` key".to_owned())),
        }
    }
}

fn check_name(name: &str) -> Result<(), SessionStoreError> {
    check_definition_name(DefinitionKind::Session, name).map_err(|_| {
        SessionStoreError::InvalidName {
            name: name.to_owned(),
        }
    })
}

fn entry_of(path: PathBuf) -> Option<SessionEntry> {
    let file_name = path.file_name()?.to_str()?;
    if file_name.starts_with('.') || !path.is_file() {
        return None;
    }
    let (stem, ext) = file_name.rsplit_once('.')?;
    let format = match ext {
        "yaml" | "yml" => SessionFormat::Yaml,
        "json" => SessionFormat::Json,
        _ => return None,
    };
    Some(SessionEntry {
        name: stem.to_owned(),
        path: path.clone(),
        format,
    })
}

#[cfg(test)]
#[path = "sessions_store_tests.rs"]
mod tests;
