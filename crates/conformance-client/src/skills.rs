//! The skills scenarios of the conformance suite (`sep-2640-client-…`), driven through
//! coyote-mcp's skills API exactly as the product uses it: list the skills (no file is read);
//! where the scenario checks verification, load each skill — its `SKILL.md` fetched and
//! verified — and only once it loaded read its other files, verified too. A refusal is
//! reported on stderr and fails the run after every skill was tried.

use anyhow::bail;
use coyote_mcp::ServerHandle;

/// How far a scenario uses the skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// List them only (`sep-2640-client-no-prefetch`).
    List,
    /// List, load each and read its files (`sep-2640-client-verify-*`).
    Load,
}

/// The use a skills scenario asks for; `None` for any other scenario.
pub(crate) fn scenario(name: &str) -> Option<Use> {
    match name {
        "sep-2640-client-no-prefetch" => Some(Use::List),
        name if name.starts_with("sep-2640-client-verify-") => Some(Use::Load),
        _ => None,
    }
}

pub(crate) async fn run(handle: &ServerHandle, how: Use) -> anyhow::Result<()> {
    let listing = handle.list_skills().await?;
    for skill in &listing.skills {
        eprintln!(
            "skill {}: {} ({})",
            skill.name, skill.description, skill.uri
        );
    }
    for skipped in &listing.skipped {
        eprintln!("skipped: {skipped}");
    }
    if how == Use::List {
        return Ok(());
    }
    let mut refused = Vec::new();
    for skill in &listing.skills {
        let loaded = match handle.load_skill(skill).await {
            Ok(loaded) => loaded,
            Err(error) => {
                eprintln!("{error}");
                refused.push(skill.name.clone());
                continue;
            }
        };
        eprintln!("loaded {} ({} bytes)", skill.name, loaded.text.len());
        for uri in &loaded.other_files {
            match handle.read_skill_file(skill, uri).await {
                Ok(_) => eprintln!("read {uri}"),
                Err(error) => {
                    eprintln!("{error}");
                    refused.push(uri.clone());
                }
            }
        }
    }
    if refused.is_empty() {
        Ok(())
    } else {
        bail!("refused: {}", refused.join(", "))
    }
}
