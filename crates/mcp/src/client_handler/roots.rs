//! Roots: the directories coyote tells servers they may work in (`roots/list`).
//!
//! [`Roots`] is the session's list, shared by every connection of a runtime (clones share it);
//! by default the git root of the working directory, else the working directory
//! ([`Roots::for_working_dir`]). A server whose mcp.json entry has its own `"roots"` gets those
//! instead and is not told about changes of the session's list. When the list changes
//! (`.roots add|remove` in the REPL), the runtime sends `notifications/roots/list_changed` to
//! the servers that use it ([`crate::McpRuntime::add_root`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Serialize};

/// Characters kept as they are in a `file://` path: RFC 3986 unreserved characters and `/`.
const PATH_KEEP: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One root as a server receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootEntry {
    /// `file://` URI of the directory.
    pub uri: String,
    /// The directory's last path component, as a display name.
    pub name: Option<String>,
}

impl RootEntry {
    /// The entry for `dir` (used as given: callers pass absolute paths).
    pub fn for_dir(dir: &Path) -> Self {
        RootEntry {
            uri: file_uri(dir),
            name: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .filter(|n| !n.is_empty()),
        }
    }
}

/// `file://` URI of an absolute path, percent-encoded.
pub fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy();
    format!("file://{}", utf8_percent_encode(&text, PATH_KEEP))
}

/// The nearest directory at or above `dir` that holds a `.git` (directory or file, as in a
/// worktree); `None` outside a repository.
pub fn git_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The session's roots; clones share the list.
#[derive(Debug, Clone, Default)]
pub struct Roots {
    dirs: Arc<Mutex<Vec<PathBuf>>>,
}

impl Roots {
    /// A list of these directories.
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Roots {
            dirs: Arc::new(Mutex::new(dirs)),
        }
    }

    /// The default: the git root of `cwd` if it is in a repository, else `cwd`.
    pub fn for_working_dir(cwd: &Path) -> Self {
        Roots::new(vec![git_root(cwd).unwrap_or_else(|| cwd.to_path_buf())])
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<PathBuf>> {
        self.dirs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The directories, in the order they were added.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.lock().clone()
    }

    /// Adds `dir`; `false` when it is already in the list.
    pub(crate) fn add(&self, dir: PathBuf) -> bool {
        let mut dirs = self.lock();
        if dirs.contains(&dir) {
            return false;
        }
        dirs.push(dir);
        true
    }

    /// Removes `dir`; `false` when it was not in the list.
    pub(crate) fn remove(&self, dir: &Path) -> bool {
        let mut dirs = self.lock();
        let before = dirs.len();
        dirs.retain(|d| d != dir);
        dirs.len() != before
    }

    /// The list as `roots/list` answers it.
    pub fn entries(&self) -> Vec<RootEntry> {
        self.lock().iter().map(|d| RootEntry::for_dir(d)).collect()
    }
}

/// Where one connection's roots come from.
#[derive(Debug, Clone)]
pub(crate) enum RootSource {
    /// The session's list (told about changes).
    Shared(Roots),
    /// The server's own `"roots"` from mcp.json (fixed).
    Own(Vec<PathBuf>),
}

impl RootSource {
    pub(crate) fn entries(&self) -> Vec<RootEntry> {
        match self {
            RootSource::Shared(roots) => roots.entries(),
            RootSource::Own(dirs) => dirs.iter().map(|d| RootEntry::for_dir(d)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_are_percent_encoded() {
        assert_eq!(
            file_uri(Path::new("/home/me/src/a b/c#d")),
            "file:///home/me/src/a%20b/c%23d"
        );
        let entry = RootEntry::for_dir(Path::new("/srv/app"));
        assert_eq!(entry.uri, "file:///srv/app");
        assert_eq!(entry.name.as_deref(), Some("app"));
    }

    #[test]
    fn the_default_is_the_git_root_else_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        let nested = repo.join("a/b");
        std::fs::create_dir_all(&nested).unwrap();
        assert_eq!(Roots::for_working_dir(&nested).dirs(), vec![nested.clone()]);
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(Roots::for_working_dir(&nested).dirs(), vec![repo.clone()]);
    }

    #[test]
    fn add_and_remove_change_every_clone() {
        let roots = Roots::new(vec![PathBuf::from("/a")]);
        let other = roots.clone();
        assert!(roots.add(PathBuf::from("/b")));
        assert!(!roots.add(PathBuf::from("/b")));
        assert_eq!(other.dirs(), vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        assert!(other.remove(Path::new("/a")));
        assert!(!other.remove(Path::new("/a")));
        assert_eq!(roots.entries().len(), 1);
    }
}
