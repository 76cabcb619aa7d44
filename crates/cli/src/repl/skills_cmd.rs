//! `.skills [SERVER]`: the skills the enabled MCP servers publish (the
//! io.modelcontextprotocol/skills extension) — name, description, files and `SKILL.md` URI —
//! from `skills/list` only: no skill file is fetched here. The model loads a skill by reading
//! its `SKILL.md` (docs/meta-functions.md), and coyote verifies every file before use.

use coyote_mcp::McpRuntime;

use super::views::{Redactor, bounded, enabled_servers};
use crate::output::Table;

/// The table of skills, then one line per server that could not be listed, has no skills,
/// or listed an entry coyote cannot use.
pub async fn skills(
    runtime: &McpRuntime,
    enabled: &dyn Fn(&str) -> bool,
    only: Option<&str>,
    redactor: &Redactor,
) -> String {
    let servers: Vec<_> = enabled_servers(runtime, enabled)
        .into_iter()
        .filter(|(name, _)| only.is_none_or(|o| o == name))
        .collect();
    if servers.is_empty() {
        return match only {
            Some(name) => format!("No enabled MCP server is named '{name}'; see `.mcp status`.\n"),
            None => "No MCP servers are enabled; configure one with `coyote mcp add`.\n".to_owned(),
        };
    }
    let mut table = Table::new(vec!["server", "skill", "description", "files", "uri"]);
    let mut notes = Vec::new();
    for (name, handle) in servers {
        let handle = match handle {
            Ok(handle) => handle,
            Err(e) => {
                notes.push(format!("{name}: {e}"));
                continue;
            }
        };
        if !handle.features().skills {
            if only.is_some() {
                notes.push(format!("{name}: publishes no skills"));
            }
            continue;
        }
        match bounded(handle.list_skills()).await {
            Ok(listing) => {
                for skill in listing.skills {
                    let files = if skill.dynamic {
                        "dynamic".to_owned()
                    } else {
                        skill.files.len().to_string()
                    };
                    table.row(vec![
                        name.clone(),
                        skill.name,
                        skill.description,
                        files,
                        skill.uri,
                    ]);
                }
                for skipped in listing.skipped {
                    notes.push(format!(
                        "{name}: skipped a skill coyote cannot use: {skipped}"
                    ));
                }
            }
            Err(e) => notes.push(format!("{name}: listing failed: {e}")),
        }
    }
    let mut out = table.render();
    for note in notes {
        out.push_str(&note);
        out.push('\n');
    }
    redactor.redact(&out)
}

#[cfg(test)]
#[path = "skills_cmd_tests.rs"]
mod tests;
