//! Roles: `<config>/roles/NAME.md`, YAML front matter (`model`, `temperature`,
//! `enabled_mcp_servers`, `description`) and the system prompt as the body. The error, warning
//! and field helpers it shares with the agent and macro loaders are in `definition`.
//!
//! Invariants:
//! - Loading never panics: a malformed file is a [`DefinitionError`] naming the file, the key
//!   and the fix; listing collects one error per bad file and still returns every good one.
//! - A definition name is a file stem of `[A-Za-z0-9_.-]`, not starting with `.`, so a name can
//!   never address a file outside its directory.
//! - Unknown keys are warnings (returned as data), never errors: newer files keep loading.

use std::path::{Path, PathBuf};

use serde_yaml_ng::Mapping;

use crate::app_config::ServerList;
use crate::definition::{
    DefinitionError, DefinitionKind, DefinitionWarning, Fields, FileShape, Listing,
    check_definition_name, definition_names, invalid, parse_mapping, read_definition,
};

/// One role.
#[derive(Debug, Clone, PartialEq)]
pub struct Role {
    /// The role's name (its file name without `.md`).
    pub name: String,
    /// Its file.
    pub file: PathBuf,
    /// `model:`, as `client:model`, if the role sets one.
    pub model: Option<String>,
    /// `temperature:`, if the role sets one.
    pub temperature: Option<f64>,
    /// `None` = not set by the role (the next layer decides).
    pub enabled_mcp_servers: Option<ServerList>,
    /// `description:`, for `.list roles`.
    pub description: Option<String>,
    /// The body: the system prompt.
    pub prompt: String,
    /// What was odd but usable in its file.
    pub warnings: Vec<DefinitionWarning>,
}

const ROLE_KEYS: &[&str] = &["model", "temperature", "enabled_mcp_servers", "description"];

/// Loads `<roles_dir>/NAME.md`.
pub fn load_role(roles_dir: &Path, name: &str) -> Result<Role, DefinitionError> {
    check_definition_name(DefinitionKind::Role, name)?;
    let file = roles_dir.join(format!("{name}.md"));
    let text = read_definition(DefinitionKind::Role, roles_dir, name, &file, "md")?;
    parse_role(name, &file, &text)
}

/// Every `*.md` role of the directory (a missing directory has none).
pub fn list_roles(roles_dir: &Path) -> Listing<Role> {
    let mut listing = Listing::default();
    for name in definition_names(roles_dir, FileShape::Extension("md")) {
        match load_role(roles_dir, &name) {
            Ok(role) => listing.items.push(role),
            Err(e) => listing.errors.push(e),
        }
    }
    listing
}

/// Parses a role file's text; `file` is used in messages.
pub fn parse_role(name: &str, file: &Path, text: &str) -> Result<Role, DefinitionError> {
    let (front, body) = split_front_matter(file, text)?;
    let map = match front {
        Some(front) => parse_mapping(file, front)?,
        None => Mapping::new(),
    };
    let fields = Fields::new(file, &map);
    let warnings = fields.unknown_keys(ROLE_KEYS);
    Ok(Role {
        name: name.to_owned(),
        file: file.to_owned(),
        model: fields.string("model")?,
        temperature: fields.number("temperature")?,
        enabled_mcp_servers: fields.server_list("enabled_mcp_servers")?,
        description: fields.string("description")?,
        prompt: body.trim().to_owned(),
        warnings,
    })
}

/// Splits `---\n<yaml>\n---\n<body>`; a file not starting with `---` is all body.
fn split_front_matter<'t>(
    file: &Path,
    text: &'t str,
) -> Result<(Option<&'t str>, &'t str), DefinitionError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((None, text));
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((Some(&rest[..offset]), &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(invalid(
        file,
        None,
        "the front matter opened by `---` is never closed",
        "end the YAML header with a line containing only `---`, followed by the prompt",
    ))
}

#[cfg(test)]
#[path = "roles_tests.rs"]
mod tests;
