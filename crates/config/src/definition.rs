//! What the role, agent and macro loaders share: the kinds of definition, their errors and
//! warnings, a directory listing, and the file helpers — safe names, reading a definition
//! file, parsing its YAML mapping, and typed access to its keys ([`Fields`]).
//!
//! Invariants: a definition name is a file stem of `[A-Za-z0-9_.-]`, not starting with `.`,
//! so a name can never address a file outside its directory; every error names the file, the
//! key and the fix.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_yaml_ng::{Mapping, Value};

use crate::app_config::ServerList;
use crate::error::ConfigError;
use crate::selection::ServerListValue;

/// What kind of definition a message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionKind {
    /// A role (`roles/NAME.md`).
    Role,
    /// An agent (`agents/NAME/config.yaml`).
    Agent,
    /// A macro (`macros/NAME.yaml`).
    Macro,
    /// A saved session.
    Session,
}

impl fmt::Display for DefinitionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DefinitionKind::Role => "role",
            DefinitionKind::Agent => "agent",
            DefinitionKind::Macro => "macro",
            DefinitionKind::Session => "session",
        })
    }
}

/// A role, agent or macro file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DefinitionError {
    /// No definition of that name exists.
    #[error("no {kind} named `{name}` in {}{}; create {} or pick one of the listed names", dir.display(), known_list(known), expected.display())]
    NotFound {
        /// What was looked for.
        kind: DefinitionKind,
        /// The name asked for.
        name: String,
        /// The directory searched.
        dir: PathBuf,
        /// The file that would define it.
        expected: PathBuf,
        /// The names that do exist.
        known: Vec<String>,
    },
    /// The name cannot be a file name of that kind.
    #[error(
        "`{name}` is not a valid {kind} name; use letters, digits, `_`, `-` and `.` (not first)"
    )]
    InvalidName {
        /// What was asked for.
        kind: DefinitionKind,
        /// The name as given.
        name: String,
    },
    /// The file could not be read.
    #[error("cannot read {}: {source}{}", file.display(), crate::bounded::read_fix(source, "; check that it exists and is readable"))]
    Io {
        /// The file.
        file: PathBuf,
        /// The read error.
        source: std::io::Error,
    },
    /// The file's content is not usable.
    #[error("{}{}: {problem}; {fix}", file.display(), key.as_ref().map(|k| format!(" (key `{k}`)")).unwrap_or_default())]
    Invalid {
        /// The file.
        file: PathBuf,
        /// The offending key (`steps[2]`, `variables[0].name`); `None` for the whole file.
        key: Option<String>,
        /// What is wrong.
        problem: String,
        /// How to fix it.
        fix: String,
    },
    /// An agent's own mcp.json is invalid.
    #[error("{}: its own mcp.json is invalid: {source}", agent_file.display())]
    McpJson {
        /// The agent's config file.
        agent_file: PathBuf,
        /// What is wrong with its mcp.json.
        #[source]
        source: ConfigError,
    },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!(" (known: {})", known.join(", "))
    }
}

impl DefinitionError {
    /// The file the error is about, if any.
    pub fn file(&self) -> Option<&Path> {
        match self {
            DefinitionError::NotFound { expected, .. } => Some(expected),
            DefinitionError::InvalidName { .. } => None,
            DefinitionError::Io { file, .. } | DefinitionError::Invalid { file, .. } => Some(file),
            DefinitionError::McpJson { agent_file, .. } => Some(agent_file),
        }
    }
}

/// A non-fatal finding about a definition file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionWarning {
    /// The file.
    pub file: PathBuf,
    /// What was found.
    pub kind: DefinitionWarningKind,
}

/// A kind of non-fatal finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefinitionWarningKind {
    /// A key coyote does not know; ignored.
    UnknownKey {
        /// The key as written.
        key: String,
    },
    /// A macro named like a builtin REPL command: `.NAME` runs the builtin; use
    /// `.macro NAME` to run the macro.
    MacroShadowedByBuiltin {
        /// The macro's name.
        name: String,
    },
}

impl fmt::Display for DefinitionWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            DefinitionWarningKind::UnknownKey { key } => write!(
                f,
                "{}: unknown key `{key}` is ignored; check its spelling",
                self.file.display()
            ),
            DefinitionWarningKind::MacroShadowedByBuiltin { name } => write!(
                f,
                "{}: macro `{name}` is shadowed by the builtin `.{name}`; run it with `.macro {name}` or rename the file",
                self.file.display()
            ),
        }
    }
}

/// Every loadable definition of a directory plus one error per file that failed.
#[derive(Debug)]
pub struct Listing<T> {
    /// Sorted by name.
    pub items: Vec<T>,
    /// One error per file that could not be loaded.
    pub errors: Vec<DefinitionError>,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Listing {
            items: Vec::new(),
            errors: Vec::new(),
        }
    }
}

pub(crate) fn invalid(file: &Path, key: Option<&str>, problem: &str, fix: &str) -> DefinitionError {
    DefinitionError::Invalid {
        file: file.to_owned(),
        key: key.map(str::to_owned),
        problem: problem.to_owned(),
        fix: fix.to_owned(),
    }
}

pub(crate) fn check_definition_name(
    kind: DefinitionKind,
    name: &str,
) -> Result<(), DefinitionError> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(DefinitionError::InvalidName {
            kind,
            name: name.to_owned(),
        })
    }
}

/// Reads a definition file; NotFound lists the names that do exist.
pub(crate) fn read_definition(
    kind: DefinitionKind,
    dir: &Path,
    name: &str,
    file: &Path,
    ext: &'static str,
) -> Result<String, DefinitionError> {
    match crate::bounded::read_bounded_text(file, crate::bounded::FileClass::Config) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let shape = match kind {
                DefinitionKind::Agent => FileShape::Directory,
                _ => FileShape::Extension(ext),
            };
            Err(DefinitionError::NotFound {
                kind,
                name: name.to_owned(),
                dir: dir.to_owned(),
                expected: file.to_owned(),
                known: definition_names(dir, shape),
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Err(invalid(
            file,
            None,
            "the file is not valid UTF-8",
            "save it as UTF-8 text",
        )),
        Err(source) => Err(DefinitionError::Io {
            file: file.to_owned(),
            source,
        }),
    }
}

/// How the definitions of a directory are laid out.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FileShape {
    /// `NAME.<ext>` files.
    Extension(&'static str),
    /// `NAME/` directories.
    Directory,
}

/// Sorted definition names of a directory (missing or unreadable directory = none).
pub(crate) fn definition_names(dir: &Path, shape: FileShape) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            let file_name = path.file_name()?.to_str()?.to_owned();
            if file_name.starts_with('.') {
                return None;
            }
            match shape {
                FileShape::Directory => path.is_dir().then_some(file_name),
                FileShape::Extension(ext) => {
                    let stem = file_name.strip_suffix(&format!(".{ext}"))?;
                    path.is_file().then(|| stem.to_owned())
                }
            }
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Parses a YAML mapping (an empty document is an empty mapping).
pub(crate) fn parse_mapping(file: &Path, text: &str) -> Result<Mapping, DefinitionError> {
    if let Some(line) = crate::bounded::yaml_too_deep(text) {
        return Err(invalid(
            file,
            None,
            &format!(
                "the YAML is nested deeper than {} levels (line {line})",
                crate::bounded::MAX_YAML_DEPTH
            ),
            "flatten it",
        ));
    }
    match serde_yaml_ng::from_str::<Value>(text) {
        Ok(Value::Mapping(map)) => Ok(map),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(_) => Err(invalid(
            file,
            None,
            "the YAML is not a mapping of `key: value` lines",
            "write one `key: value` per line (see `coyote help agents`)",
        )),
        Err(e) => {
            let at = e
                .location()
                .map(|l| format!(" at line {}, column {}", l.line(), l.column()))
                .unwrap_or_default();
            Err(invalid(
                file,
                None,
                &format!("invalid YAML{at}: {e}"),
                "fix the syntax (quote values containing `:` or `#`)",
            ))
        }
    }
}

/// Typed access to a definition's keys, with errors naming file and key.
pub(crate) struct Fields<'a> {
    file: &'a Path,
    map: &'a Mapping,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(file: &'a Path, map: &'a Mapping) -> Self {
        Fields { file, map }
    }

    pub(crate) fn file(&self) -> &'a Path {
        self.file
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// Warnings for keys not in `known`.
    pub(crate) fn unknown_keys(&self, known: &[&str]) -> Vec<DefinitionWarning> {
        self.map
            .keys()
            .map(|k| match k {
                Value::String(s) => s.clone(),
                other => serde_yaml_ng::to_string(other)
                    .unwrap_or_default()
                    .trim()
                    .to_owned(),
            })
            .filter(|k| !known.contains(&k.as_str()))
            .map(|key| DefinitionWarning {
                file: self.file.to_owned(),
                kind: DefinitionWarningKind::UnknownKey { key },
            })
            .collect()
    }

    pub(crate) fn wrong(&self, key: &str, problem: &str, fix: &str) -> DefinitionError {
        invalid(self.file, Some(key), problem, fix)
    }

    /// A string; numbers and booleans are accepted as their text (YAML reads `model: 4` as a
    /// number). Null = absent.
    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, DefinitionError> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => scalar_text(v).map(Some).ok_or_else(|| {
                self.wrong(
                    key,
                    "expected a text value",
                    &format!("write `{key}: some text`"),
                )
            }),
        }
    }

    pub(crate) fn number(&self, key: &str) -> Result<Option<f64>, DefinitionError> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(f) if f.is_finite() => Ok(Some(f)),
                _ => Err(self.wrong(
                    key,
                    "expected a finite number",
                    &format!("write `{key}: 0.7`"),
                )),
            },
            Some(_) => Err(self.wrong(key, "expected a number", &format!("write `{key}: 0.7`"))),
        }
    }

    /// A list of strings (a single string is a one-item list). Null = absent.
    pub(crate) fn string_list(&self, key: &str) -> Result<Option<Vec<String>>, DefinitionError> {
        let fix = format!("write `{key}: [a, b]`");
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Sequence(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    scalar_text(v).ok_or_else(|| {
                        self.wrong(&format!("{key}[{i}]"), "expected a text item", &fix)
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(v) => scalar_text(v)
                .map(|s| Some(vec![s]))
                .ok_or_else(|| self.wrong(key, "expected a list", &fix)),
        }
    }

    /// `enabled_mcp_servers`: absent = not set; an explicit empty value (`[]`, `""`, null
    /// written out) = none.
    pub(crate) fn server_list(&self, key: &str) -> Result<Option<ServerList>, DefinitionError> {
        let value = match self.get(key) {
            None => return Ok(None),
            Some(Value::Null) => return Ok(Some(ServerList::Names(Vec::new()))),
            Some(v) => v,
        };
        serde_yaml_ng::from_value::<ServerListValue>(value.clone())
            .map(|v| Some(ServerList::from(v)))
            .map_err(|_| {
                self.wrong(
                    key,
                    "expected `all`, a list of server names or an empty list",
                    &format!("write `{key}: [github, fs]`, `{key}: all` or `{key}: []`"),
                )
            })
    }
}

/// The text of a scalar (string, number, bool).
pub(crate) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
