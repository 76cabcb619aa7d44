//! `coyote mcp cache [clear]`: the cached server catalogs — which servers a chat can
//! declare without starting them, when each was cached and what it holds — and deleting them.

use coyote_config::ConfigPaths;
use coyote_mcp::catalog_cache::CacheEntry;
use serde_json::{Value, json};

use crate::args::{CacheAction, OutputArgs};
use crate::exit::{CliError, CliResult};
use crate::output::{Table, print, print_json};

pub fn run(paths: &ConfigPaths, action: Option<CacheAction>, out: OutputArgs) -> CliResult {
    let cache = crate::setup::catalog_cache(paths);
    match action {
        Some(CacheAction::Clear) => {
            let removed = cache
                .clear()
                .map_err(|e| CliError::failure(e.to_string()))?;
            if out.json {
                return print_json(&json!({ "removed": removed }));
            }
            crate::capture::stderr_line(&format!(
                "coyote: removed {removed} cached catalog(s) from {}",
                cache.dir().display()
            ));
            Ok(())
        }
        None => {
            let rows: Vec<Value> = cache.entries().iter().map(row).collect();
            if out.json {
                return print_json(&rows);
            }
            let mut table = Table::new(vec![
                "server",
                "cached at",
                "tools",
                "resources",
                "templates",
                "prompts",
            ]);
            for r in &rows {
                let n = |k: &str| r[k].as_u64().map_or("-".to_owned(), |n| n.to_string());
                table.row(vec![
                    r["server"].as_str().unwrap_or("(unreadable)").to_owned(),
                    r["written_at_ms"]
                        .as_u64()
                        .map_or("-".to_owned(), |ms| format!("{}s ago", age_secs(ms))),
                    n("tools"),
                    n("resources"),
                    n("templates"),
                    n("prompts"),
                ]);
            }
            print(&table.render())
        }
    }
}

/// One file as `--json` shows it (snake_case keys).
fn row(entry: &CacheEntry) -> Value {
    let path = entry.path.display().to_string();
    match &entry.catalog {
        Some(c) => json!({
            "server": c.server,
            "path": path,
            "written_at_ms": c.written_at_ms,
            "server_ttl_ms": c.server_ttl_ms,
            "tools": c.tools.len(),
            "resources": c.resources.len(),
            "templates": c.templates.len(),
            "prompts": c.prompts.len(),
        }),
        None => json!({ "server": null, "path": path }),
    }
}

fn age_secs(written_at_ms: u64) -> u64 {
    coyote_mcp::catalog_cache::now_ms().saturating_sub(written_at_ms) / 1000
}
