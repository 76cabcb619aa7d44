//! Logging for the `coyote` binary: `tracing` events go to `<state>/log/coyote.log` (created
//! 0600, appended), never to stdout (which belongs to the UI and to `--json` output). MCP
//! servers' stderr arrives here through `coyote-mcp`, tagged with the server name. The level
//! comes from `--log-level`/`$COYOTE_LOG` (default `info`). If the file cannot be opened,
//! logging is off — a log problem never stops a command.

use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// Opens the log file and installs the global subscriber. Returns the path when logging is on.
pub fn init(log_dir: &Path, level: Option<&str>) -> Option<PathBuf> {
    std::fs::create_dir_all(log_dir).ok()?;
    let path = log_dir.join("coyote.log");
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
        .ok()?;
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
