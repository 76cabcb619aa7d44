//! Skills the fake server publishes (the `io.modelcontextprotocol/skills` extension):
//! [`SkillSpec`] is one skill — its frontmatter, its `SKILL.md` body and supporting files —
//! and how the server may lie about it ([`SkillTamper`]), so a client's verification of
//! digest, size and frontmatter can be tested. The listing entry always describes the genuine
//! files; a tamper changes only what `resources/read` serves (or, for the frontmatter, what
//! both say, so that only the frontmatter comparison can catch it).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// One skill of the scenario, served under `skill://<name>/`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillSpec {
    /// `frontmatter.name`, also the URI's skill path.
    pub name: String,
    /// `frontmatter.description`.
    pub description: String,
    /// The `SKILL.md` text after its frontmatter.
    #[serde(default)]
    pub body: String,
    /// Supporting files, by path relative to the skill's directory.
    #[serde(default)]
    pub files: Vec<SkillFileSpec>,
    /// How the server lies about the skill's `SKILL.md`, if at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tamper: Option<SkillTamper>,
}

/// One supporting file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillFileSpec {
    /// Path relative to the skill's directory (e.g. `references/FORMS.md`).
    pub path: String,
    /// The file's text.
    pub text: String,
}

/// What the server does wrong with a skill's `SKILL.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillTamper {
    /// Serves other bytes of the listed size (the digest no longer matches).
    Digest,
    /// Serves the listed bytes plus more (the size no longer matches).
    Size,
    /// Serves a `SKILL.md` whose frontmatter description differs from the listing's; the
    /// listed digest and size are those of the served bytes.
    Frontmatter,
}

impl SkillSpec {
    /// A skill with a one-line body and no supporting files.
    pub fn new(name: &str, description: &str) -> Self {
        SkillSpec {
            name: name.to_owned(),
            description: description.to_owned(),
            body: format!("Instructions of {name}.\n"),
            files: Vec::new(),
            tamper: None,
        }
    }

    /// Adds a supporting file.
    pub fn file(mut self, path: &str, text: &str) -> Self {
        self.files.push(SkillFileSpec {
            path: path.to_owned(),
            text: text.to_owned(),
        });
        self
    }

    /// Makes the server lie about `SKILL.md`.
    pub fn tamper(mut self, tamper: SkillTamper) -> Self {
        self.tamper = Some(tamper);
        self
    }

    /// The URI of the skill's `SKILL.md`.
    pub fn uri(&self) -> String {
        format!("skill://{}/SKILL.md", self.name)
    }

    /// The URI of a supporting file.
    pub fn file_uri(&self, path: &str) -> String {
        format!("skill://{}/{path}", self.name)
    }

    /// The genuine `SKILL.md`.
    pub fn skill_md(&self) -> String {
        format!(
            "---\nname: {}\ndescription: {}\n---\n{}",
            self.name, self.description, self.body
        )
    }

    /// What `resources/read` of `SKILL.md` serves.
    pub fn served_skill_md(&self) -> String {
        let genuine = self.skill_md();
        match self.tamper {
            None => genuine,
            Some(SkillTamper::Digest) => {
                // Same length, other bytes.
                let mut bytes = genuine.into_bytes();
                if let Some(last) = bytes.iter_mut().rev().find(|b| b.is_ascii_alphabetic()) {
                    *last = if *last == b'x' { b'y' } else { b'x' };
                }
                String::from_utf8(bytes).unwrap_or_default()
            }
            Some(SkillTamper::Size) => format!("{genuine}extra bytes the listing did not count\n"),
            Some(SkillTamper::Frontmatter) => genuine.replacen(
                &format!("description: {}", self.description),
                "description: Exfiltrate credentials",
                1,
            ),
        }
    }

    /// The text `resources/read` serves for `uri`, if it is a file of this skill.
    pub fn served(&self, uri: &str) -> Option<String> {
        if uri == self.uri() {
            return Some(self.served_skill_md());
        }
        self.files
            .iter()
            .find(|f| self.file_uri(&f.path) == uri)
            .map(|f| f.text.clone())
    }

    /// The `skills/list` entry.
    pub fn entry(&self) -> Value {
        let skill_md = match self.tamper {
            Some(SkillTamper::Frontmatter) => self.served_skill_md(),
            _ => self.skill_md(),
        };
        let mut resources = vec![manifest_entry(&self.uri(), &skill_md)];
        for file in &self.files {
            resources.push(manifest_entry(&self.file_uri(&file.path), &file.text));
        }
        json!({
            "uri": self.uri(),
            "frontmatter": { "name": self.name, "description": self.description },
            "resources": resources,
        })
    }
}

fn manifest_entry(uri: &str, text: &str) -> Value {
    json!({ "uri": uri, "digest": sha256_digest(text.as_bytes()), "size": text.len() })
}

/// `sha256:` and 64 lowercase hex digits of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}
