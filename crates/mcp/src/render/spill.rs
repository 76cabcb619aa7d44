//! The spill store: `<root>/<sanitised server>/<sha256>.<ext>`. `root` is
//! `<cache>/mcp-resources`, chosen by the caller (the CLI: `$COYOTE_CACHE_DIR` or XDG).
//!
//! Invariants: files are written to a temporary name and renamed, so a reader never sees a
//! partial file; mode 0600, directories 0700; the same bytes always land on the same path
//! (dedup — a re-write only refreshes the mtime); `ext` comes only from a fixed mime allow-list
//! and the server part only from `[A-Za-z0-9_-]`, so no server-controlled string can steer the
//! path. After each write, if the whole tree exceeds the eviction limit, the oldest files go
//! first; `NotFound` is ignored because several coyote processes share the tree. Spilled files
//! are untrusted: nothing here executes or opens them. A big new file is synced and dropped from
//! the page cache in the background (`flush.rs`), so reading blob after blob does not grow it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use super::{RESULT_HANDLE_SCHEME, RenderError, SPILL_EVICTION_LIMIT_BYTES};

mod flush;

/// Spilled files' extension when the mime is not in the allow-list.
pub const FALLBACK_EXT: &str = "bin";
/// Longest server directory name (server names are validated to 40 bytes anyway).
const MAX_SERVER_DIR_LEN: usize = 64;
const TEMP_PREFIX: &str = ".tmp-";

/// The fixed mime → extension allow-list. The mime is compared whole (trimmed, ASCII
/// lower-cased): parameters or anything unusual fall back to `bin`.
const MIME_EXTENSIONS: &[(&str, &str)] = &[
    ("image/png", "png"),
    ("image/jpeg", "jpg"),
    ("image/jpg", "jpg"),
    ("image/gif", "gif"),
    ("image/webp", "webp"),
    ("image/svg+xml", "svg"),
    ("image/bmp", "bmp"),
    ("image/tiff", "tiff"),
    ("image/x-icon", "ico"),
    ("image/vnd.microsoft.icon", "ico"),
    ("image/avif", "avif"),
    ("image/heic", "heic"),
    ("audio/wav", "wav"),
    ("audio/x-wav", "wav"),
    ("audio/wave", "wav"),
    ("audio/mpeg", "mp3"),
    ("audio/mp3", "mp3"),
    ("audio/ogg", "ogg"),
    ("audio/flac", "flac"),
    ("audio/aac", "aac"),
    ("audio/mp4", "m4a"),
    ("audio/webm", "weba"),
    ("video/mp4", "mp4"),
    ("video/webm", "webm"),
    ("video/ogg", "ogv"),
    ("video/quicktime", "mov"),
    ("application/pdf", "pdf"),
    ("application/zip", "zip"),
    ("application/gzip", "gz"),
    ("application/x-gzip", "gz"),
    ("application/x-tar", "tar"),
    ("application/x-bzip2", "bz2"),
    ("application/x-xz", "xz"),
    ("application/zstd", "zst"),
    ("application/x-7z-compressed", "7z"),
    ("application/wasm", "wasm"),
    ("application/json", "json"),
    ("application/xml", "xml"),
    ("application/vnd.sqlite3", "sqlite"),
    ("application/x-sqlite3", "sqlite"),
    ("application/octet-stream", "bin"),
    ("text/plain", "txt"),
    ("text/markdown", "md"),
    ("text/html", "html"),
    ("text/csv", "csv"),
    ("text/xml", "xml"),
    ("font/woff", "woff"),
    ("font/woff2", "woff2"),
    ("font/ttf", "ttf"),
    ("font/otf", "otf"),
];

/// The spill extension for a claimed mime: allow-list only, and `[a-z0-9]{1,8}` or `bin`.
pub fn extension_for_mime(mime: Option<&str>) -> &'static str {
    let Some(mime) = mime else {
        return FALLBACK_EXT;
    };
    let mime = mime.trim().to_ascii_lowercase();
    MIME_EXTENSIONS
        .iter()
        .find(|(m, _)| *m == mime)
        .map(|(_, ext)| *ext)
        .filter(|ext| is_safe_ext(ext))
        .unwrap_or(FALLBACK_EXT)
}

pub(crate) fn is_safe_ext(ext: &str) -> bool {
    (1..=8).contains(&ext.len())
        && ext
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// The directory name for a server: `[A-Za-z0-9_-]` kept, everything else `_`, never empty.
pub fn sanitise_server(server: &str) -> String {
    let mut out: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_SERVER_DIR_LEN)
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out
}

/// Where spilled content lives; cheap to clone.
#[derive(Debug, Clone)]
pub struct SpillStore {
    root: PathBuf,
    eviction_limit: u64,
}

/// A file being written; becomes `<sha256>.<ext>` on [`SpillStore::commit`].
#[derive(Debug)]
pub struct TempSpill {
    file: File,
    path: PathBuf,
    dir: PathBuf,
}

impl TempSpill {
    /// Where the file is being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `bytes` to the file.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), RenderError> {
        self.file
            .write_all(bytes)
            .map_err(|source| RenderError::Io {
                path: self.path.clone(),
                source,
            })
    }
}

impl Drop for TempSpill {
    fn drop(&mut self) {
        // Committed temps were renamed away; an abandoned one (error path) is removed.
        let _ = fs::remove_file(&self.path);
    }
}

/// A stored file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpilledFile {
    /// Where the file is stored.
    pub path: PathBuf,
    /// Lower-case hex sha256 of its bytes.
    pub sha256: String,
    /// Its size in bytes.
    pub size_bytes: u64,
}

impl SpillStore {
    /// A store rooted at `root` (normally `<cache>/mcp-resources`), evicting beyond
    /// [`SPILL_EVICTION_LIMIT_BYTES`]. Nothing is created until the first write.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        SpillStore {
            root: root.into(),
            eviction_limit: SPILL_EVICTION_LIMIT_BYTES,
        }
    }

    /// Overrides the eviction limit (tests; the product uses the named constant).
    pub fn with_eviction_limit(mut self, bytes: u64) -> Self {
        self.eviction_limit = bytes;
        self
    }

    /// The directory the store lives in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory holding `server`'s files (its name made safe for a path).
    pub fn server_dir(&self, server: &str) -> PathBuf {
        self.root.join(sanitise_server(server))
    }

    /// Starts a new file for `server`.
    pub fn create_temp(&self, server: &str) -> Result<TempSpill, RenderError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = self.server_dir(server);
        create_private_dir(&dir).map_err(|source| RenderError::Io {
            path: dir.clone(),
            source,
        })?;
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let name = format!(
            "{TEMP_PREFIX}{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = dir.join(name);
        let file = private_file(&path).map_err(|source| RenderError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(TempSpill { file, path, dir })
    }

    /// Moves a finished temp to `<sha256>.<ext>` (dedup: an existing file is kept and its mtime
    /// refreshed), then evicts beyond the limit.
    pub fn commit(
        &self,
        mut temp: TempSpill,
        sha256: &str,
        ext: &str,
        size_bytes: u64,
    ) -> Result<SpilledFile, RenderError> {
        let ext = if is_safe_ext(ext) { ext } else { FALLBACK_EXT };
        let path = temp.dir.join(format!("{sha256}.{ext}"));
        temp.file.flush().map_err(|source| RenderError::Io {
            path: temp.path.clone(),
            source,
        })?;
        if path.exists() {
            // Same bytes, same path: keep the existing file, mark it recently used.
            let _ = File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(SystemTime::now()));
        } else {
            fs::rename(&temp.path, &path).map_err(|source| RenderError::Io {
                path: path.clone(),
                source,
            })?;
            // A big new file's pages go back to the kernel once on disk (flush.rs).
            if let Ok(file) = temp.file.try_clone() {
                flush::release_in_background(file, size_bytes);
            }
        }
        drop(temp);
        self.evict(&path);
        Ok(SpilledFile {
            path,
            sha256: sha256.to_string(),
            size_bytes,
        })
    }

    /// Stores `bytes` for `server` with `ext`, hashing them.
    pub fn put_bytes(
        &self,
        server: &str,
        bytes: &[u8],
        ext: &str,
    ) -> Result<SpilledFile, RenderError> {
        let sha256 = hex::encode(Sha256::digest(bytes));
        let mut temp = self.create_temp(server)?;
        temp.write_all(bytes)?;
        self.commit(temp, &sha256, ext, bytes.len() as u64)
    }

    /// Stores `bytes` whose sha256 the caller computed while receiving them. When that file
    /// exists already (dedup) nothing is written: its mtime is refreshed and eviction runs.
    pub fn put_hashed(
        &self,
        server: &str,
        bytes: &[u8],
        sha256: &str,
        ext: &str,
    ) -> Result<SpilledFile, RenderError> {
        let ext = if is_safe_ext(ext) { ext } else { FALLBACK_EXT };
        let path = self.server_dir(server).join(format!("{sha256}.{ext}"));
        let same_size = path
            .symlink_metadata()
            .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64);
        if same_size
            && File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(SystemTime::now()))
                .is_ok()
        {
            self.evict(&path);
            return Ok(SpilledFile {
                path,
                sha256: sha256.to_string(),
                size_bytes: bytes.len() as u64,
            });
        }
        let mut temp = self.create_temp(server)?;
        temp.write_all(bytes)?;
        self.commit(temp, sha256, ext, bytes.len() as u64)
    }

    /// Keeps an oversized text result; returns its `coyote-result://<sha256>` handle.
    pub fn put_result_text(&self, server: &str, text: &str) -> Result<String, RenderError> {
        let stored = self.put_bytes(server, text.as_bytes(), "txt")?;
        Ok(format!("{RESULT_HANDLE_SCHEME}{}", stored.sha256))
    }

    /// The full text behind a `coyote-result://<sha256>` handle of `server`.
    pub fn read_result_text(&self, server: &str, handle: &str) -> Result<String, RenderError> {
        let sha = handle
            .strip_prefix(RESULT_HANDLE_SCHEME)
            .filter(|s| {
                s.len() == 64
                    && s.bytes()
                        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            })
            .ok_or_else(|| RenderError::BadHandle {
                handle: handle.to_string(),
            })?;
        let path = self.server_dir(server).join(format!("{sha}.txt"));
        match fs::read_to_string(&path) {
            Ok(text) => Ok(text),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(RenderError::HandleExpired {
                handle: handle.to_string(),
                server: server.to_string(),
            }),
            Err(source) => Err(RenderError::Io { path, source }),
        }
    }

    /// Best-effort eviction of the oldest files beyond the limit, never `keep`.
    fn evict(&self, keep: &Path) {
        let mut entries = Vec::new();
        collect_files(&self.root, 0, &mut entries);
        evict_oldest(entries, self.eviction_limit, keep);
    }
}

/// One file of the tree, as seen by eviction.
#[derive(Debug, Clone)]
pub(crate) struct SpillEntry {
    pub path: PathBuf,
    pub size: u64,
    pub modified: SystemTime,
}

fn collect_files(dir: &Path, depth: usize, out: &mut Vec<SpillEntry>) {
    // The tree is root/server/file; a little slack, and never follow links.
    if depth > 2 {
        return;
    }
    let Ok(read) = fs::read_dir(dir) else { return };
    for entry in read.flatten() {
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if meta.is_dir() {
            collect_files(&entry.path(), depth + 1, out);
        } else if meta.is_file() && !entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            out.push(SpillEntry {
                path: entry.path(),
                size: meta.len(),
                modified,
            });
        }
    }
}

/// Removes oldest-mtime entries until the total is within `limit`. A file that vanished
/// meanwhile (another process evicted it) counts as removed.
pub(crate) fn evict_oldest(mut entries: Vec<SpillEntry>, limit: u64, keep: &Path) -> u64 {
    let mut total: u64 = entries.iter().map(|e| e.size).sum();
    let mut removed = 0;
    if total <= limit {
        return removed;
    }
    entries.sort_by_key(|e| e.modified);
    for entry in entries {
        if total <= limit {
            break;
        }
        if entry.path == keep {
            continue;
        }
        match fs::remove_file(&entry.path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(path = %entry.path.display(), error = %e, "cannot evict spilled file");
                continue;
            }
        }
        total = total.saturating_sub(entry.size);
    }
    removed
}

fn create_private_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
    }
    #[cfg(not(unix))]
    {
        fs::create_dir_all(dir)
    }
}

fn private_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}
