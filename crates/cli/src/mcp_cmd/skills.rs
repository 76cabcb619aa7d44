//! `coyote mcp skills [SERVER]`: the skills servers publish (the io.modelcontextprotocol/skills
//! extension), as a table (name, description, files, SKILL.md URI) or JSON (`--json`: one row
//! per skill with its `frontmatter` and `files`, each file's `uri`, `digest` and `size`). It
//! lists only: no skill file is fetched — a skill's files are read, and verified, when it is
//! used. Entries the server listed but that break the listing rules are named on stderr.

use coyote_mcp::McpRuntime;

use super::list::{emit, gather};
use crate::args::OutputArgs;
use crate::exit::CliResult;

pub async fn skills(runtime: &McpRuntime, only: Option<&str>, out: OutputArgs) -> CliResult {
    let g = gather(runtime, only, |h| async move {
        if !h.info().capabilities.skills {
            return None;
        }
        Some(h.list_skills().await.map(|listing| {
            for skipped in &listing.skipped {
                crate::term::note_line(&format!(
                    "note: MCP server '{}' listed a skill coyote cannot use: {skipped}",
                    h.name()
                ));
            }
            listing.skills
        }))
    })
    .await;
    emit(
        &g,
        out,
        vec!["server", "skill", "description", "files", "uri"],
        |s, skill| {
            let files = if skill.dynamic {
                "dynamic".to_owned()
            } else {
                skill.files.len().to_string()
            };
            vec![
                s.to_owned(),
                skill.name.clone(),
                skill.description.clone(),
                files,
                skill.uri.clone(),
            ]
        },
    )
}
