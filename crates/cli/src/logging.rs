//! Logging for the `coyote` binary: `tracing` events go to `<state>/logs/coyote.log` (created
//! 0600, appended), never to stdout (which belongs to the UI and to `--json` output). MCP
//! servers' stderr arrives here through `coyote-mcp`, tagged with the server name (and limited
//! per server there). The level comes from `--log-level`/`$COYOTE_LOG` (default `info`). If the
//! file cannot be opened, logging is off — a log problem never stops a command.
//!
//! Every URL written to the log has its query values and user-info hidden
//! ([`coyote_protocol::redact_urls_in`]), whoever logged it.
//!
//! The log rotates by size: past [`LOG_ROTATE_BYTES`] it becomes `coyote.log.1` (the previous
//! `.1` becomes `.2`, the previous `.2` is deleted), so at most [`LOG_FILES_KEPT`] files exist.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// Size past which `coyote.log` is rotated: 10 MiB.
pub const LOG_ROTATE_BYTES: u64 = 10 * 1024 * 1024;
/// Log files kept: `coyote.log`, `coyote.log.1`, `coyote.log.2`.
pub const LOG_FILES_KEPT: u32 = 3;

/// Opens the log file and installs the global subscriber. Returns the path when logging is on.
pub fn init(log_dir: &Path, level: Option<&str>) -> Option<PathBuf> {
    std::fs::create_dir_all(log_dir).ok()?;
    let path = log_dir.join("coyote.log");
    let file = RotatingFile::open(&path, LOG_ROTATE_BYTES).ok()?;
    let mut filter =
        EnvFilter::try_new(level.unwrap_or("info")).unwrap_or_else(|_| EnvFilter::new("info"));
    // rmcp's OAuth code logs authorization codes and token responses at debug level: never
    // below info, whatever the chosen level (tokens stay out of coyote.log).
    if let Ok(cap) = "rmcp::transport::auth=info".parse() {
        filter = filter.add_directive(cap);
    }
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init()
        .ok()?;
    Some(path)
}

/// An append-only file that rotates itself once it would pass `limit` bytes.
struct RotatingFile {
    path: PathBuf,
    file: File,
    size: u64,
    limit: u64,
}

impl RotatingFile {
    fn open(path: &Path, limit: u64) -> io::Result<Self> {
        let file = open_append(path)?;
        let size = file.metadata()?.len();
        let mut this = RotatingFile {
            path: path.to_owned(),
            file,
            size,
            limit,
        };
        if this.size >= limit {
            this.rotate()?;
        }
        Ok(this)
    }

    /// `coyote.log.N` for N ≥ 1.
    fn numbered(&self, n: u32) -> PathBuf {
        let mut name = self.path.clone().into_os_string();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    fn rotate(&mut self) -> io::Result<()> {
        for n in (1..LOG_FILES_KEPT - 1).rev() {
            match std::fs::rename(self.numbered(n), self.numbered(n + 1)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        std::fs::rename(&self.path, self.numbered(1))?;
        self.file = open_append(&self.path)?;
        self.size = 0;
        Ok(())
    }
}

impl Write for RotatingFile {
    /// Writes `buf` whole, with the query values and user-info of every URL in it hidden:
    /// libraries log request URLs (rmcp prints a failed request's `reqwest::Error`), and a
    /// configured URL may carry a token.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let redacted = coyote_protocol::redact_urls_in(&text);
        let bytes = match (&text, &redacted) {
            (std::borrow::Cow::Borrowed(_), std::borrow::Cow::Borrowed(_)) => buf,
            _ => redacted.as_bytes(),
        };
        if self.size > 0 && self.size + bytes.len() as u64 > self.limit {
            // A failed rotation keeps writing to the current file rather than losing lines.
            let _ = self.rotate();
        }
        self.file.write_all(bytes)?;
        self.size += bytes.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

fn open_append(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_rotates_past_the_limit_keeping_three() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("coyote.log");
        let mut log = RotatingFile::open(&path, 100).expect("open");
        for n in 0..10 {
            log.write_all(format!("{n:039}\n").as_bytes())
                .expect("write");
        }
        let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
        let line = |n: u32| format!("{n:039}\n");
        // 40-byte lines, two per 100-byte file: 8+9 current, 6+7 in .1, 4+5 in .2.
        assert_eq!(read(path.clone()), line(8) + &line(9));
        assert_eq!(read(log.numbered(1)), line(6) + &line(7));
        assert_eq!(read(log.numbered(2)), line(4) + &line(5));
        assert!(!log.numbered(3).exists());
    }
}
