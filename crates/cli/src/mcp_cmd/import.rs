//! `coyote mcp import [--from SOURCE] [--force]`: copies other clients' MCP servers into the
//! user's mcp.json (the config crate does the file work) and reports each entry imported or
//! skipped, with the reason. Exit 0 when something was imported, else 1.

use coyote_config::{ConfigPaths, ImportReport, ImportSource, ProcessEnv, import_servers};
use serde_json::json;

use crate::exit::{CliError, CliResult};
use crate::output::print_json;

/// Runs the import; `json` prints `{"file", "read", "imported", "skipped"}`.
pub fn import(paths: &ConfigPaths, from: Option<&str>, force: bool, json: bool) -> CliResult {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::usage(format!("cannot read the current directory: {e}")))?;
    let sources: Vec<ImportSource> = match from {
        Some(value) => vec![ImportSource::parse(value)],
        None => ImportSource::clients().into(),
    };
    let files: Vec<_> = sources
        .iter()
        .flat_map(|s| s.candidates(&ProcessEnv, &cwd))
        .collect();
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
