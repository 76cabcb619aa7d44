//! Skills a server publishes through the `io.modelcontextprotocol/skills` extension, as an
//! `impl ServerHandle` block built on [`ServerHandle::request`] and
//! [`ServerHandle::read_resource`]:
//!
//! - [`ServerHandle::list_skills`] sends `skills/list` (every page, with the cursor guard) and
//!   reads each entry on its own: an entry that breaks the listing rules is skipped with a
//!   reason, never the whole listing. Listing reads no skill file.
//! - [`ServerHandle::load_skill`] fetches a skill's `SKILL.md` — only when asked, never ahead
//!   of need — and [`ServerHandle::read_skill_file`] one of its other files. Both verify what
//!   arrives against the listing entry before anything of it is returned: the byte size, then
//!   the sha256 digest, and for `SKILL.md` its YAML frontmatter field by field
//!   ([`verify`]). A file that fails is refused with [`McpError::SkillRefused`]; its content
//!   goes nowhere.
//!
//! A skill whose entry says `"resources": "dynamic"` has no digests: its files are read
//! without size and digest checks (the frontmatter is still compared), and only files inside
//! the skill's directory are read through it.

use rmcp::model::{ClientRequest, CustomRequest, ServerResult};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::content::ResourceContent;
use crate::error::{McpError, SkillRefusal};
use crate::handle::ServerHandle;
use crate::listing::MAX_LIST_PAGES;

pub mod verify;

/// The extension's identifier in `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";

const LIST_METHOD: &str = "skills/list";

/// One skill as its listing entry describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skill {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// `frontmatter.name`.
    pub name: String,
    /// `frontmatter.description`.
    pub description: String,
    /// The whole frontmatter object, as listed.
    pub frontmatter: Map<String, Value>,
    /// Every file with its digest and size, `SKILL.md` included (empty when dynamic).
    pub files: Vec<SkillFile>,
    /// The entry says `"resources": "dynamic"`: no digests to verify against.
    pub dynamic: bool,
}

/// One file of a skill's listing entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// What `skills/list` returned: the usable entries, and why the others were skipped.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SkillListing {
    /// The usable entries, in the server's order.
    pub skills: Vec<Skill>,
    /// One line per skipped entry: which one and what is wrong with it.
    pub skipped: Vec<String>,
}

/// A skill whose `SKILL.md` passed verification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadedSkill {
    /// The skill, as listed.
    pub skill: Skill,
    /// The whole `SKILL.md` text (frontmatter included).
    pub text: String,
    /// The URIs of its other files, for reading on demand.
    pub other_files: Vec<String>,
}

impl Skill {
    /// The listing entry of `uri`, if the skill names that file.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.files.iter().find(|f| f.uri == uri)
    }

    /// The skill's directory: its `SKILL.md` URI without the file name, `/` kept.
    pub fn directory(&self) -> &str {
        self.uri.strip_suffix(SKILL_MD).unwrap_or(&self.uri)
    }

    /// Whether `uri` is a file of this skill: listed, or (dynamic) inside its directory.
    pub fn owns(&self, uri: &str) -> bool {
        if self.dynamic {
            uri.strip_prefix(self.directory())
                .is_some_and(|rest| !rest.is_empty() && !rest.split('/').any(|s| s == ".."))
        } else {
            self.file(uri).is_some()
        }
    }

    /// The URIs of its files other than `SKILL.md`.
    pub fn other_files(&self) -> Vec<String> {
        self.files
            .iter()
            .filter(|f| f.uri != self.uri)
            .map(|f| f.uri.clone())
            .collect()
    }
}

impl SkillListing {
    /// The skill named `name` (or whose `SKILL.md` URI is `name`).
    pub fn find(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name || s.uri == name)
    }

    /// The skill that owns the file `uri`, if any.
    pub fn owner_of(&self, uri: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.uri == uri || s.owns(uri))
    }
}

impl ServerHandle {
    /// `skills/list`, every page: the entries a client can use, and why others were skipped.
    /// Reads no skill file.
    pub async fn list_skills(&self) -> Result<SkillListing, McpError> {
        if !self.features().skills {
            return Err(McpError::Unsupported {
                server: self.name().to_owned(),
                what: "skills".to_owned(),
                hint: format!("the server does not declare the {SKILLS_EXTENSION} extension"),
            });
        }
        let mut listing = SkillListing::default();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..MAX_LIST_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            let request =
                ClientRequest::CustomRequest(CustomRequest::new(LIST_METHOD, Some(params)));
            let raw = raw_result(self.request(LIST_METHOD, request).await?);
            let entries = raw
                .get("skills")
                .and_then(Value::as_array)
                .ok_or_else(|| self.protocol("the result has no skills array"))?;
            for (index, entry) in entries.iter().enumerate() {
                match parse_entry(entry) {
                    Ok(skill) => listing.skills.push(skill),
                    Err(problem) => {
                        let which = entry
                            .get("uri")
                            .and_then(Value::as_str)
                            .map_or_else(|| format!("entry {index}"), str::to_owned);
                        tracing::warn!(server = %self.name(), "skipped skill {which}: {problem}");
                        listing.skipped.push(format!("{which}: {problem}"));
                    }
                }
            }
            match raw.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => {
                    if !seen.insert(next.to_owned()) {
                        return Err(self.protocol(&format!(
                            "it repeated the cursor {next:?} while listing skills (stopped \
                             instead of looping)"
                        )));
                    }
                    cursor = Some(next.to_owned());
                }
                _ => return Ok(listing),
            }
        }
        Err(self.protocol(&format!(
            "it returned more than {MAX_LIST_PAGES} pages of skills"
        )))
    }

    /// Fetches `skill`'s `SKILL.md` and verifies it against the entry (size, digest,
    /// frontmatter) before returning it.
    pub async fn load_skill(&self, skill: &Skill) -> Result<LoadedSkill, McpError> {
        let contents = self.read_resource(&skill.uri).await?;
        let bytes = self.verified_bytes(skill, &skill.uri, &contents)?;
        let text = String::from_utf8(bytes).map_err(|_| {
            self.refused(
                &skill.uri,
                SkillRefusal::Content {
                    what: "SKILL.md bytes that are not UTF-8".to_owned(),
                },
            )
        })?;
        verify::frontmatter(&text, &skill.frontmatter).map_err(|r| self.refused(&skill.uri, r))?;
        Ok(LoadedSkill {
            skill: skill.clone(),
            text,
            other_files: skill.other_files(),
        })
    }

    /// Reads one file of `skill` (not its `SKILL.md`: that is [`Self::load_skill`]) and
    /// verifies it against the entry before returning its contents.
    pub async fn read_skill_file(
        &self,
        skill: &Skill,
        uri: &str,
    ) -> Result<Vec<ResourceContent>, McpError> {
        if !skill.owns(uri) {
            return Err(self.refused(uri, SkillRefusal::NotListed));
        }
        let contents = self.read_resource(uri).await?;
        self.verified_bytes(skill, uri, &contents)?;
        Ok(contents)
    }

    /// The bytes of the one content item for `uri`, checked against the entry's size and
    /// digest (a dynamic skill has neither).
    fn verified_bytes(
        &self,
        skill: &Skill,
        uri: &str,
        contents: &[ResourceContent],
    ) -> Result<Vec<u8>, McpError> {
        let bytes = verify::content_bytes(uri, contents).map_err(|r| self.refused(uri, r))?;
        if !skill.dynamic {
            let listed = skill
                .file(uri)
                .ok_or_else(|| self.refused(uri, SkillRefusal::NotListed))?;
            verify::size_and_digest(listed, &bytes).map_err(|r| self.refused(uri, r))?;
        }
        Ok(bytes)
    }

    fn refused(&self, uri: &str, refusal: SkillRefusal) -> McpError {
        tracing::warn!(server = %self.name(), uri, "refused skill file: {refusal}");
        McpError::SkillRefused {
            server: self.name().to_owned(),
            uri: uri.to_owned(),
            refusal,
        }
    }

    fn protocol(&self, message: &str) -> McpError {
        McpError::Protocol {
            server: self.name().to_owned(),
            method: LIST_METHOD.to_owned(),
            message: message.to_owned(),
        }
    }
}

/// A result as JSON, whichever way rmcp typed it.
fn raw_result(result: ServerResult) -> Value {
    match result {
        ServerResult::CustomResult(raw) => raw.0,
        other => serde_json::to_value(&other).unwrap_or(Value::Null),
    }
}

/// One `skills/list` entry, or what is wrong with it.
pub(crate) fn parse_entry(entry: &Value) -> Result<Skill, String> {
    let uri = entry
        .get("uri")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
        .ok_or("it has no uri")?;
    let frontmatter = entry
        .get("frontmatter")
        .and_then(Value::as_object)
        .ok_or("it has no frontmatter object")?;
    let text = |field: &str| {
        frontmatter
            .get(field)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .ok_or(format!("its frontmatter has no {field}"))
    };
    let (name, description) = (text("name")?, text("description")?);
    let directory = uri
        .strip_suffix(SKILL_MD)
        .and_then(|d| d.strip_suffix('/'))
        .ok_or(format!("its uri does not end in /{SKILL_MD}"))?;
    if directory.rsplit('/').next() != Some(name.as_str()) {
        return Err(format!(
            "its uri's last directory is not its frontmatter name {name:?}"
        ));
    }
    let (files, dynamic) = match entry.get("resources") {
        Some(Value::String(s)) if s == "dynamic" => (Vec::new(), true),
        Some(Value::Array(items)) => (parse_files(uri, items)?, false),
        _ => return Err("its resources are neither a list nor \"dynamic\"".to_owned()),
    };
    Ok(Skill {
        uri: uri.to_owned(),
        name,
        description,
        frontmatter: frontmatter.clone(),
        files,
        dynamic,
    })
}

fn parse_files(uri: &str, items: &[Value]) -> Result<Vec<SkillFile>, String> {
    let directory = uri.strip_suffix(SKILL_MD).unwrap_or(uri);
    let mut files: Vec<SkillFile> = Vec::with_capacity(items.len());
    for item in items {
        let file_uri = item
            .get("uri")
            .and_then(Value::as_str)
            .ok_or("a resource has no uri")?;
        let digest = item
            .get("digest")
            .and_then(Value::as_str)
            .ok_or(format!("resource {file_uri} has no digest"))?;
        let size = item
            .get("size")
            .and_then(Value::as_u64)
            .ok_or(format!("resource {file_uri} has no size"))?;
        if !file_uri.starts_with(directory) || file_uri.split('/').any(|s| s == "..") {
            return Err(format!(
                "resource {file_uri} is outside the skill's directory"
            ));
        }
        if files.iter().any(|f| f.uri == file_uri) {
            return Err(format!("resource {file_uri} is listed twice"));
        }
        files.push(SkillFile {
            uri: file_uri.to_owned(),
            digest: digest.to_owned(),
            size,
        });
    }
    if !files.iter().any(|f| f.uri == uri) {
        return Err(format!("its resources do not list its own {SKILL_MD}"));
    }
    Ok(files)
}

#[cfg(test)]
#[path = "skills_tests.rs"]
mod tests;
