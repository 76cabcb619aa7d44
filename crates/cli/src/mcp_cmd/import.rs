//! `coyote mcp import [--from SOURCE] [--force]`: copies other clients' MCP servers into the
//! user's mcp.json (the config crate does the file work) and reports each entry imported or
//! skipped, with the reason. Exit 0 when something was imported, else 1.
//!
//! Without `--from`, a project's own files (`.mcp.json`, `.cursor/mcp.json`, found from the
//! working directory up) are someone else's until the user trusts them: once copied into the
//! user's own mcp.json their commands would start in every directory. Such a file is read only
//! when trusted — already, with `--trust-project`, or by a yes to the same question the loader
//! asks — and skipped with a note otherwise (also when nobody can answer). A source named with
//! `--from` is the user's explicit choice and is read as it is.

use std::ffi::OsStr;
use std::io::IsTerminal;
use std::path::Path;

use coyote_config::{
    ConfigPaths, ImportReport, ImportSource, ProcessEnv, SHARED_PROJECT_FILE, TrustDecision,
    TrustStatus, TrustStore, import_servers, sha256_hex,
};
use serde_json::json;

use crate::exit::{CliError, CliResult};
use crate::output::print_json;

/// How `coyote mcp import` runs.
#[derive(Debug, Clone, Copy)]
pub struct ImportOptions {
    /// Replace entries that exist.
    pub force: bool,
    /// Print `{"file", "read", "imported", "skipped"}`.
    pub json: bool,
    /// `--trust-project`: trust the project's `.mcp.json` without asking.
    pub trust_project: bool,
}

/// Runs the import.
pub fn import(paths: &ConfigPaths, from: Option<&str>, options: ImportOptions) -> CliResult {
    let ImportOptions { force, json, .. } = options;
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::usage(format!("cannot read the current directory: {e}")))?;
    let sources: Vec<ImportSource> = match from {
        Some(value) => vec![ImportSource::parse(value)],
        None => ImportSource::clients().into(),
    };
    let mut files: Vec<_> = sources
        .iter()
        .flat_map(|s| s.candidates(&ProcessEnv, &cwd))
        .collect();
    if from.is_none() {
        files.retain(|file| trusted_or_not_a_project_file(paths, file, options.trust_project));
    }
    if let Some(ImportSource::File(_)) = sources.first()
        && let Some(file) = files.first().filter(|f| !f.is_file())
    {
        return Err(CliError::usage(format!(
            "{} does not exist; --from takes claude-desktop, claude-code, cursor or a file path",
            file.display()
        )));
    }
    let target = paths.mcp_json();
    let report =
        import_servers(&target, &files, force).map_err(|e| CliError::usage(e.to_string()))?;
    if json {
        print_json(&report_json(&target, &report))?;
    } else {
        describe(&target, &files, &report);
    }
    if report.imported.is_empty() {
        return Err(CliError::silent());
    }
    Ok(())
}

fn report_json(target: &std::path::Path, report: &ImportReport) -> serde_json::Value {
    json!({
        "file": target,
        "read": report.read,
        "imported": report.imported.iter().map(|i| json!({
            "name": i.name, "from": i.from, "replaced": i.replaced,
        })).collect::<Vec<_>>(),
        "skipped": report.skipped.iter().map(|s| json!({
            "name": s.name, "from": s.from, "reason": s.reason,
        })).collect::<Vec<_>>(),
    })
}

fn describe(target: &std::path::Path, files: &[std::path::PathBuf], report: &ImportReport) {
    if report.read.is_empty() {
        let looked: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        crate::term::note_line(&format!(
            "nothing to import: none of these files exists: {}",
            looked.join(", ")
        ));
        return;
    }
    for i in &report.imported {
        let verb = if i.replaced { "replaced" } else { "imported" };
        crate::term::note_line(&format!("{verb} '{}' from {}", i.name, i.from.display()));
    }
    for s in &report.skipped {
        crate::term::note_line(&format!(
            "skipped '{}' from {}: {}",
            s.name,
            s.from.display(),
            s.reason
        ));
    }
    let summary = if report.imported.is_empty() {
        format!("nothing imported into {}", target.display())
    } else {
        format!(
            "{} server(s) written to {}",
            report.imported.len(),
            target.display()
        )
    };
    crate::term::note_line(&summary);
}

/// Whether `file` may be read: not a project's `.mcp.json`, or one the user trusts (asked
/// here when a terminal can answer). A skipped file gets a note saying how to trust it.
fn trusted_or_not_a_project_file(paths: &ConfigPaths, file: &Path, trust_project: bool) -> bool {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let cursor_project = file.file_name() == Some(OsStr::new("mcp.json"))
        && file
            .parent()
            .filter(|dir| dir.file_name() == Some(OsStr::new(".cursor")))
            .and_then(Path::parent)
            .is_some_and(|root| Some(root) != home.as_deref());
    if file.file_name() != Some(OsStr::new(SHARED_PROJECT_FILE)) && !cursor_project {
        return true;
    }
    let Ok(bytes) = std::fs::read(file) else {
        return true; // missing: reported with the other files that do not exist
    };
    let store = TrustStore::new(paths);
    let sha256 = sha256_hex(&bytes);
    if store.status(file, &sha256) == Ok(TrustStatus::Trusted) {
        return true;
    }
    let decision = if trust_project {
        Some(TrustDecision::Trust)
    } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        Some(crate::setup::ask_trust(&file.display().to_string()))
    } else {
        None
    };
    match decision {
        Some(TrustDecision::Trust) => match store.trust(file, &sha256) {
            Ok(()) => true,
            Err(e) => {
                crate::term::warning_line(&format!("cannot remember the trust: {e}"));
                true
            }
        },
        Some(TrustDecision::Distrust) | None => {
            crate::term::note_line(&format!(
                "skipped {}: this project's file is not trusted, and its servers would start \
                 in every directory once imported; trust it with --trust-project (or answer \
                 yes when asked on a terminal), or name it with --from FILE",
                file.display()
            ));
            false
        }
    }
}
