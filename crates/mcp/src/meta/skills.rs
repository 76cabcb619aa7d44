//! How the model sees and uses a server's skills: a compact index in the description of
//! `mcp_read_<server>` (names, and descriptions while they fit in [`SKILLS_INDEX_MAX_BYTES`];
//! the rest behind [`SKILLS_INDEX_URI`]), and reads of a skill's files routed through
//! verification. The index is built from `skills/list` only — no file is fetched until the
//! model reads one. A read of a skill's `SKILL.md` loads the skill (fetched, size, digest and
//! frontmatter verified, then paged like any text) and names the skill's other files; a read
//! of one of those verifies it the same way. A file that fails is refused: its content never
//! reaches the model.

use serde_json::Value;

use super::actions::{Output, ReadRequest, off_runtime};
use super::error::DispatchError;
use crate::handle::ServerHandle;
use crate::render::{render_resource_contents, render_text};
use crate::skills::{SKILL_MD, Skill, SkillListing};

/// The most bytes the skills index adds to `mcp_read_`'s description, so a server with every
/// meta-function and skills stays inside the declarations budget (docs/meta-functions.md).
pub const SKILLS_INDEX_MAX_BYTES: usize = 96;
/// Longest description shown for one skill in the index (cut on a character boundary).
const DESCRIPTION_MAX_BYTES: usize = 40;
/// A coyote URI, read through `mcp_read_<server>`, that lists every skill of the server with
/// its description and `SKILL.md` URI.
pub const SKILLS_INDEX_URI: &str = "coyote-skills://";

/// Whether every skill's `SKILL.md` is at `skill://<name>/SKILL.md` (then the index says the
/// pattern once instead of each URI).
fn conventional(skill: &Skill) -> bool {
    skill.uri == format!("skill://{}/{SKILL_MD}", skill.name)
}

/// The sentence added to `mcp_read_`'s description for a server with skills; `None` without.
/// Names with descriptions when they all fit in [`SKILLS_INDEX_MAX_BYTES`], else names, and
/// what does not fit is counted and left to [`SKILLS_INDEX_URI`].
pub(crate) fn index(listing: &SkillListing) -> Option<String> {
    if listing.skills.is_empty() {
        return None;
    }
    let all_conventional = listing.skills.iter().all(conventional);
    let tail = if all_conventional {
        " (read skill://<name>/SKILL.md first)."
    } else {
        " (read its SKILL.md uri first)."
    };
    let label = |s: &Skill| {
        if all_conventional {
            s.name.clone()
        } else {
            s.uri.clone()
        }
    };
    let budget = SKILLS_INDEX_MAX_BYTES.saturating_sub(HEAD.len() + tail.len());
    let fits = |items: &[String]| items.join(", ").len() <= budget;
    let described: Vec<String> = listing
        .skills
        .iter()
        .map(|s| {
            format!(
                "{} ({})",
                label(s),
                cut(&s.description, DESCRIPTION_MAX_BYTES)
            )
        })
        .collect();
    let named: Vec<String> = listing.skills.iter().map(label).collect();
    let body = if fits(&described) {
        described.join(", ")
    } else if fits(&named) {
        named.join(", ")
    } else {
        let mut shown: Vec<String> = Vec::new();
        for name in &named {
            let rest = named.len() - shown.len() - 1;
            let mut candidate = shown.clone();
            candidate.push(name.clone());
            candidate.push(format!("+{rest} in {SKILLS_INDEX_URI}"));
            if !fits(&candidate) {
                break;
            }
            shown.push(name.clone());
        }
        let hidden = named.len() - shown.len();
        if shown.is_empty() {
            format!("{hidden}, listed in {SKILLS_INDEX_URI}")
        } else {
            shown.push(format!("+{hidden} in {SKILLS_INDEX_URI}"));
            shown.join(", ")
        }
    };
    Some(format!("{HEAD}{body}{tail}"))
}

const HEAD: &str = " Skills: ";

/// `text` cut to at most `max` bytes on a character boundary, `…` marking a cut.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", text[..end].trim_end())
}

/// The whole index as text: one skill per line with its description and `SKILL.md` URI.
fn full_index(listing: &SkillListing) -> String {
    let mut text = String::new();
    for skill in &listing.skills {
        text.push_str(&format!(
            "{}: {}\n  read {}\n",
            skill.name, skill.description, skill.uri
        ));
    }
    text
}

/// A read of a skill's file (or of [`SKILLS_INDEX_URI`]), verified; `None` when `req` is no
/// skill read and takes the ordinary path.
pub(crate) async fn read(
    handle: &ServerHandle,
    listing: Option<&SkillListing>,
    out: Output<'_>,
    req: &ReadRequest,
) -> Option<Result<Value, DispatchError>> {
    let options = req.options.clone().within(out.max_result_bytes);
    let uri = req.uri.as_str();
    let Some(listing) = listing else {
        // Nothing to verify against: a skill:// file must not be used unverified.
        return uri.starts_with("skill://").then(|| {
            Err(DispatchError::Server(crate::error::McpError::Unsupported {
                server: handle.name().to_owned(),
                what: format!("reading {uri}"),
                hint: "its skills could not be listed, so the file cannot be verified".to_owned(),
            }))
        });
    };
    if uri == SKILLS_INDEX_URI {
        let text = full_index(listing);
        let rendered = render_text(uri, Some("text/plain"), &text, &options);
        return Some(Ok(serde_json::to_value(rendered).unwrap_or(Value::Null)));
    }
    let skill = listing.owner_of(uri)?.clone();
    Some(if skill.uri == uri {
        load(handle, &skill, &options).await
    } else {
        match handle.read_skill_file(&skill, uri).await {
            Ok(contents) => Ok(off_runtime(handle, out, move |ctx| {
                render_resource_contents(contents, &options, ctx)
            })
            .await),
            Err(e) => Err(e.into()),
        }
    })
}

/// `SKILL.md`, verified, paged like any text, with the skill's other files named.
async fn load(
    handle: &ServerHandle,
    skill: &Skill,
    options: &crate::render::ReadOptions,
) -> Result<Value, DispatchError> {
    let loaded = handle.load_skill(skill).await?;
    let rendered = render_text(&skill.uri, Some("text/markdown"), &loaded.text, options);
    let mut value = serde_json::to_value(rendered).unwrap_or(Value::Null);
    if !loaded.other_files.is_empty()
        && let Some(object) = value.as_object_mut()
    {
        object.insert("skill_files".to_owned(), loaded.other_files.into());
    }
    Ok(value)
}

#[cfg(test)]
#[path = "skills_tests.rs"]
mod tests;
