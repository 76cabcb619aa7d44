//! The checks a fetched skill file passes before any of it is used, as pure functions over
//! the bytes and the listing entry: the size first (a wrong length is refused without
//! hashing), then the sha256 digest, and for `SKILL.md` its YAML frontmatter compared field by
//! field with the entry's `frontmatter` (a field missing on one side counts as `null`, as an
//! absent key and an explicit `null` mean the same).

use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use super::SkillFile;
use crate::content::ResourceContent;
use crate::error::SkillRefusal;

/// The bytes of the one item of `contents` for `uri`: a text item's UTF-8, a blob decoded.
pub(crate) fn content_bytes(
    uri: &str,
    contents: &[ResourceContent],
) -> Result<Vec<u8>, SkillRefusal> {
    let matching: Vec<&ResourceContent> = contents
        .iter()
        .filter(|c| match c {
            ResourceContent::Text { uri: u, .. } | ResourceContent::Blob { uri: u, .. } => u == uri,
            ResourceContent::Invalid { .. } => true,
        })
        .collect();
    let content = |what: String| SkillRefusal::Content { what };
    match matching.as_slice() {
        [ResourceContent::Text { text, .. }] => Ok(text.as_bytes().to_vec()),
        [ResourceContent::Blob { blob_base64, .. }] => {
            let cleaned: String = blob_base64
                .chars()
                .filter(|c| !c.is_ascii_whitespace())
                .collect();
            base64::engine::general_purpose::STANDARD
                .decode(cleaned)
                .map_err(|e| content(format!("a blob that is not base64 ({e})")))
        }
        [ResourceContent::Invalid { reason, .. }] => {
            Err(content(format!("an unreadable item ({reason})")))
        }
        [] => Err(content(format!("no content item for {uri}"))),
        many => Err(content(format!("{} content items for {uri}", many.len()))),
    }
}

/// The size, then the digest, of `bytes` against the listing's entry.
pub fn size_and_digest(listed: &SkillFile, bytes: &[u8]) -> Result<(), SkillRefusal> {
    let actual = bytes.len() as u64;
    if actual != listed.size {
        return Err(SkillRefusal::Size {
            expected: listed.size,
            actual,
        });
    }
    if !is_sha256_digest(&listed.digest) {
        return Err(SkillRefusal::MalformedDigest {
            digest: listed.digest.clone(),
        });
    }
    let actual = sha256_digest(bytes);
    if actual != listed.digest {
        return Err(SkillRefusal::Digest {
            expected: listed.digest.clone(),
            actual,
        });
    }
    Ok(())
}

/// `sha256:` and 64 lowercase hex digits of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

fn is_sha256_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// `SKILL.md`'s frontmatter against the listing's, field by field.
pub fn frontmatter(text: &str, listed: &Map<String, Value>) -> Result<(), SkillRefusal> {
    let file = parse_frontmatter(text)?;
    let mut fields: Vec<&String> = file.keys().chain(listed.keys()).collect();
    fields.sort();
    fields.dedup();
    for field in fields {
        let in_file = file.get(field).unwrap_or(&Value::Null);
        let in_listing = listed.get(field).unwrap_or(&Value::Null);
        if in_file != in_listing {
            return Err(SkillRefusal::FrontmatterMismatch {
                field: field.clone(),
                file: in_file.to_string(),
                listed: in_listing.to_string(),
            });
        }
    }
    Ok(())
}

/// The YAML mapping between the leading `---` line and the next `---` line.
pub fn parse_frontmatter(text: &str) -> Result<Map<String, Value>, SkillRefusal> {
    let problem = |problem: &str| SkillRefusal::Frontmatter {
        problem: problem.to_owned(),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(|l| l.trim_end_matches(['\r', '\n'])) != Some("---") {
        return Err(problem("the file does not begin with a --- line"));
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end_matches(['\r', '\n']).trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err(problem("no closing --- line"));
    }
    match serde_yaml_ng::from_str::<Value>(&yaml) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(problem("it is not a mapping")),
        Err(e) => Err(SkillRefusal::Frontmatter {
            problem: format!("YAML error: {e}"),
        }),
    }
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
