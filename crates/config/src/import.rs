//! `coyote mcp import`: copies the MCP servers other clients configured (Claude Desktop, Claude
//! Code, Cursor, or any file in the same `{"mcpServers": {…}}` format) into coyote's mcp.json.
//!
//! Invariants: an imported entry is copied verbatim (every key, in its order), so it loads in
//! coyote exactly as it loads from its own file; an entry coyote would reject (bad name,
//! invalid keys) is skipped with the reason instead of written; an existing name is skipped
//! unless the caller forces a replacement; the target is written once, atomically, and only
//! when something was imported.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::edit::{read_document, servers_mut, validate_raw, write_document};
use crate::env::EnvLookup;
use crate::error::{ConfigError, IoOp};
use crate::loader::find_project_files;
use crate::mcp_json::syntax_error;

/// Where to import from (`--from`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportSource {
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Claude Code: the project's `.mcp.json`, then the user's `~/.claude.json`.
    ClaudeCode,
    /// Cursor: the project's `.cursor/mcp.json`, then `~/.cursor/mcp.json`.
    Cursor,
    /// Any file with an `mcpServers` object.
    File(PathBuf),
}

impl ImportSource {
    /// Parses a `--from` value: a client name or else a file path.
    pub fn parse(value: &str) -> ImportSource {
        match value {
            "claude-desktop" => ImportSource::ClaudeDesktop,
            "claude-code" => ImportSource::ClaudeCode,
            "cursor" => ImportSource::Cursor,
            path => ImportSource::File(PathBuf::from(path)),
        }
    }

    /// Every client source, in the order `coyote mcp import` without `--from` reads them.
    pub fn clients() -> [ImportSource; 3] {
        [
            ImportSource::ClaudeCode,
            ImportSource::Cursor,
            ImportSource::ClaudeDesktop,
        ]
    }

    /// The files this source stands for, existing or not, in the order they are read. `cwd`
    /// starts the project search; `env` gives `HOME` and `XDG_CONFIG_HOME`.
    pub fn candidates(&self, env: &dyn EnvLookup, cwd: &Path) -> Vec<PathBuf> {
        let var = |name: &str| env.var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = var("HOME");
        match self {
            ImportSource::File(path) => vec![cwd.join(path)],
            ImportSource::ClaudeDesktop => {
                let mut files = Vec::new();
                if cfg!(target_os = "macos")
                    && let Some(home) = &home
                {
                    files.push(home.join("Library/Application Support/Claude"));
                }
                if let Some(dir) = var("XDG_CONFIG_HOME").filter(|p| p.is_absolute()) {
                    files.push(dir.join("Claude"));
                } else if let Some(home) = &home {
                    files.push(home.join(".config/Claude"));
                }
                files
                    .into_iter()
                    .map(|dir| dir.join("claude_desktop_config.json"))
                    .collect()
            }
            ImportSource::ClaudeCode => {
                let mut files: Vec<PathBuf> = find_project_files(cwd)
                    .into_iter()
                    .filter(|(root, file)| *file == root.join(crate::SHARED_PROJECT_FILE))
                    .map(|(_, file)| file)
                    .collect();
                files.extend(home.map(|h| h.join(".claude.json")));
                files
            }
            ImportSource::Cursor => {
                let project = cwd
                    .ancestors()
                    .map(|dir| dir.join(".cursor/mcp.json"))
                    .find(|file| file.is_file());
                let user = home.map(|h| h.join(".cursor/mcp.json"));
                project.into_iter().chain(user).collect()
            }
        }
    }
}

/// One entry copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedServer {
    /// Its name.
    pub name: String,
    /// The file it came from.
    pub from: PathBuf,
    /// It replaced an entry of the same name (`--force`).
    pub replaced: bool,
}

/// One entry not copied, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedServer {
    /// Its name.
    pub name: String,
    /// The file it came from.
    pub from: PathBuf,
    /// Why it was not imported (one sentence, with the fix).
    pub reason: String,
}

/// What [`import_servers`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportReport {
    /// The files that existed and were read.
    pub read: Vec<PathBuf>,
    /// Entries written to the target.
    pub imported: Vec<ImportedServer>,
    /// Entries left out.
    pub skipped: Vec<SkippedServer>,
}

/// Copies the `mcpServers` entries of every existing file of `sources` (in order) into the
/// mcp.json at `target`. A name already in the target is skipped unless `force`; a name seen in
/// an earlier source of the same run is skipped either way. Missing source files are not
/// errors (see [`ImportReport::read`]); unreadable or invalid JSON ones are.
pub fn import_servers(
    target: &Path,
    sources: &[PathBuf],
    force: bool,
) -> Result<ImportReport, ConfigError> {
    let mut root = read_document(target)?.unwrap_or_default();
    let mut report = ImportReport::default();
    let existing: Vec<String> = servers_mut(target, &mut root)?.keys().cloned().collect();
    for source in sources {
        let Some(entries) = read_source(source)? else {
            continue;
        };
        report.read.push(source.clone());
        for (name, entry) in entries {
            let skip = |reason: String| SkippedServer {
                name: name.clone(),
                from: source.clone(),
                reason,
            };
            if let Some(earlier) = report.imported.iter().find(|i| i.name == name) {
                let reason = format!("already imported from {}", earlier.from.display());
                report.skipped.push(skip(reason));
                continue;
            }
            if let Some(reason) = refusal(target, &name, &entry, &existing, force) {
                report.skipped.push(skip(reason));
                continue;
            }
            let servers = servers_mut(target, &mut root)?;
            servers.insert(name.clone(), entry);
            report.imported.push(ImportedServer {
                replaced: existing.contains(&name),
                name,
                from: source.clone(),
            });
        }
    }
    if !report.imported.is_empty() {
        write_document(target, root)?;
    }
    Ok(report)
}

/// Why `entry` cannot be imported as `name`, if it cannot.
fn refusal(
    target: &Path,
    name: &str,
    entry: &Value,
    existing: &[String],
    force: bool,
) -> Option<String> {
    if existing.iter().any(|n| n == name) && !force {
        return Some(format!(
            "{} already has a server of that name; pass --force to replace it",
            target.display()
        ));
    }
    if let Err(error) = validate_raw(target, name, entry) {
        let detail = match error {
            ConfigError::Invalid { problems, .. } => problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
            other => other.to_string(),
        };
        return Some(format!("coyote would reject the entry: {detail}"));
    }
    None
}

/// The `mcpServers` entries of `file`, `None` when it does not exist.
fn read_source(file: &Path) -> Result<Option<Map<String, Value>>, ConfigError> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Io {
                path: file.to_owned(),
                op: IoOp::Read,
                source,
            });
        }
    };
    let doc: Value = serde_json::from_str(&text).map_err(|e| syntax_error(file, &e))?;
    Ok(Some(
        doc.get("mcpServers")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
    ))
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;
