//! One mcp.json document → validated [`McpServerSpec`]s, in file order (Raw → spec in one
//! exhaustive pass; ARCHITECTURE style rule 3).
//!
//! The format is Claude Desktop's `{"mcpServers": {NAME: ENTRY}}`; entries pasted from Claude
//! Code, Cursor, Cline, Roo and Windsurf load unchanged (see `keys` for what is honoured).
//! Problems are collected over the whole file so the user fixes them in one go; any problem
//! makes the file unusable ([`ConfigError::Invalid`]). Warnings are returned as data.

use std::path::{Path, PathBuf};

use coyote_protocol::{ApprovalPolicy, Exposure, McpServerSpec, Timeouts};
use serde_json::{Map, Value};

use crate::dupes::duplicate_keys;
use crate::entry::{EntryOutcome, EntryReader};
use crate::env::EnvLookup;
use crate::error::{
    ConfigError, Expected, IoOp, MAX_SERVER_NAME_BYTES, NameProblem, Problem, ProblemKind,
};
use crate::expand::{ExpandContext, ExpandMode};
use crate::json_path::JsonPath;
use crate::keys::{TOP_LEVEL_KEYS, suggest};
use crate::warning::{ConfigWarning, WarningKind};

/// Values used when an entry does not set them (config.yaml may change them later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerDefaults {
    /// `startupTimeoutSec` / `toolTimeoutSec` when not set.
    pub timeouts: Timeouts,
    /// `approve` when not set.
    pub approve: ApprovalPolicy,
    /// `expose` when not set.
    pub expose: Exposure,
}

/// What a file's entries are resolved against.
#[derive(Clone)]
pub struct McpFileContext<'a> {
    pub(crate) env: &'a dyn EnvLookup,
    /// Relative `cwd` values are joined to this (the file's "home": config dir or project root).
    pub(crate) base_dir: PathBuf,
    /// `${workspaceFolder}`.
    pub(crate) workspace: PathBuf,
    /// `cwd` of stdio servers that do not set one (`None`: inherit coyote's).
    pub(crate) default_cwd: Option<PathBuf>,
    pub(crate) defaults: ServerDefaults,
    pub(crate) mode: ExpandMode,
    pub(crate) entry_errors: EntryErrors,
}

/// What a problem inside one server's entry does to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum EntryErrors {
    /// The file is unusable ([`ConfigError::Invalid`]): `coyote mcp add`, strict checks.
    #[default]
    Fatal,
    /// Only that server is: it is listed in [`McpFile::broken`] and the others load.
    PerServer,
}

impl<'a> McpFileContext<'a> {
    /// Entries resolved against `base_dir` (relative `cwd`, `${workspaceFolder}`); stdio
    /// servers inherit coyote's working directory unless [`Self::default_cwd`] is set.
    pub fn new(env: &'a dyn EnvLookup, base_dir: impl Into<PathBuf>) -> Self {
        let base_dir = base_dir.into();
        McpFileContext {
            env,
            workspace: base_dir.clone(),
            base_dir,
            default_cwd: None,
            defaults: ServerDefaults::default(),
            mode: ExpandMode::Resolve,
            entry_errors: EntryErrors::Fatal,
        }
    }

    /// The value of `${workspaceFolder}` (default: the base dir).
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workspace = dir.into();
        self
    }

    /// Working directory for stdio servers without `cwd` (project files use the project root).
    pub fn default_cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.default_cwd = Some(dir.into());
        self
    }

    /// Values for keys an entry leaves out.
    pub fn defaults(mut self, defaults: ServerDefaults) -> Self {
        self.defaults = defaults;
        self
    }

    /// A problem inside one entry disables that server only ([`McpFile::broken`]); problems
    /// of the file itself (invalid JSON, a bad server name, a wrong top level) still make it
    /// unusable.
    pub fn per_server_errors(mut self) -> Self {
        self.entry_errors = EntryErrors::PerServer;
        self
    }

    pub(crate) fn syntax_only(mut self) -> Self {
        self.mode = ExpandMode::SyntaxOnly;
        self
    }

    pub(crate) fn expander(&self) -> ExpandContext<'_> {
        ExpandContext {
            env: self.env,
            workspace: &self.workspace,
            mode: self.mode,
        }
    }
}

/// The usable content of one mcp.json.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpFile {
    /// Enabled servers, in file order.
    pub servers: Vec<McpServerSpec>,
    /// Entries with `"disabled": true` (not validated further).
    pub disabled: Vec<DisabledServer>,
    /// Entries with problems, each disabled on its own (only with
    /// [`McpFileContext::per_server_errors`]).
    pub broken: Vec<BrokenServer>,
    /// What was odd but usable in the file.
    pub warnings: Vec<ConfigWarning>,
}

/// An entry that cannot be used (an unset variable, a bad field): that server is disabled,
/// the others work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenServer {
    /// The server's name.
    pub name: String,
    /// The file the entry is in.
    pub source: PathBuf,
    /// What is wrong with it, in document order (never empty).
    pub problems: Vec<Problem>,
}

impl BrokenServer {
    /// The entry's problems as the error a strict load would have reported for the file
    /// (`coyote mcp …` naming this very server exits 2 with it).
    pub fn to_error(&self) -> ConfigError {
        ConfigError::Invalid {
            path: self.source.clone(),
            problems: self.problems.clone(),
        }
    }
}

impl std::fmt::Display for BrokenServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MCP server '{}' is disabled: its entry in {} cannot be used: ",
            self.name,
            self.source.display()
        )?;
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

/// An entry with `"disabled": true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisabledServer {
    /// The server's name.
    pub name: String,
    /// The file that disabled it.
    pub source: PathBuf,
}

/// Reads and validates `file`. A missing file is an empty configuration.
pub fn load_mcp_file(file: &Path, cx: &McpFileContext<'_>) -> Result<McpFile, ConfigError> {
    match crate::bounded::read_bounded(file, crate::bounded::FileClass::Config) {
        Ok(bytes) => parse_mcp_json(decode_utf8(file, &bytes)?, file, cx),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(McpFile::default()),
        Err(source) => Err(ConfigError::Io {
            path: file.to_owned(),
            op: IoOp::Read,
            source,
        }),
    }
}

/// The bytes as text; invalid UTF-8 is a syntax error at its line and column.
pub(crate) fn decode_utf8<'b>(file: &Path, bytes: &'b [u8]) -> Result<&'b str, ConfigError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        ConfigError::Syntax {
            path: file.to_owned(),
            line,
            column: valid.len() - line_start + 1,
            message: "invalid UTF-8".to_owned(),
        }
    })
}

/// Validates mcp.json text; `file` is only used in messages and as each spec's `source`.
pub fn parse_mcp_json(
    text: &str,
    file: &Path,
    cx: &McpFileContext<'_>,
) -> Result<McpFile, ConfigError> {
    let mut out = McpFile::default();
    let mut problems = Vec::new();
    let Some(servers) = parse_document(text, file, &mut out.warnings, &mut problems)? else {
        return finish(file, out, problems);
    };
    let servers_path = JsonPath::root().key("mcpServers");
    for (name, entry) in &servers {
        let path = servers_path.key(name);
        if let Err(reason) = check_server_name(name) {
            problems.push(Problem {
                path: path.clone(),
                server: None,
                kind: ProblemKind::BadName {
                    name: name.clone(),
                    reason,
                },
            });
            continue;
        }
        let mut reader = EntryReader::new(file, name, path, cx, &mut problems, &mut out.warnings);
        match reader.read(entry) {
            Some(EntryOutcome::Enabled(spec)) => out.servers.push(*spec),
            Some(EntryOutcome::Disabled) => out.disabled.push(DisabledServer {
                name: name.clone(),
                source: file.to_owned(),
            }),
            None => {}
        }
    }
    // Only entries are wrong: each disables its server. A problem of the file itself keeps
    // every problem together (the user fixes them in one go).
    if cx.entry_errors == EntryErrors::PerServer && problems.iter().all(|p| p.server.is_some()) {
        out.broken = broken_servers(file, std::mem::take(&mut problems));
    }
    finish(file, out, problems)
}

/// Entry problems grouped by server, in document order.
fn broken_servers(file: &Path, problems: Vec<Problem>) -> Vec<BrokenServer> {
    let mut broken: Vec<BrokenServer> = Vec::new();
    for problem in problems {
        let name = problem.server.clone().unwrap_or_default();
        match broken.iter_mut().find(|b| b.name == name) {
            Some(server) => server.problems.push(problem),
            None => broken.push(BrokenServer {
                name,
                source: file.to_owned(),
                problems: vec![problem],
            }),
        }
    }
    broken
}

fn finish(file: &Path, out: McpFile, problems: Vec<Problem>) -> Result<McpFile, ConfigError> {
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(ConfigError::Invalid {
            path: file.to_owned(),
            problems,
        })
    }
}

/// Parses the text, warns about duplicate and unknown top-level keys, and returns the
/// `mcpServers` object (`None` when absent or unusable — then `problems` says why).
pub(crate) fn parse_document(
    text: &str,
    file: &Path,
    warnings: &mut Vec<ConfigWarning>,
    problems: &mut Vec<Problem>,
) -> Result<Option<Map<String, Value>>, ConfigError> {
    // Editors on Windows save "UTF-8 with BOM"; serde_json rejects the BOM.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // `touch mcp.json` is a valid (empty) configuration.
    if text.trim().is_empty() {
        return Ok(None);
    }
    let root: Value = serde_json::from_str(text).map_err(|e| syntax_error(file, &e))?;
    for path in duplicate_keys(text) {
        let key = path.last_key().unwrap_or_default().to_owned();
        warnings.push(ConfigWarning {
            file: file.to_owned(),
            path,
            kind: WarningKind::DuplicateKey { key },
        });
    }
    let Value::Object(mut root) = root else {
        problems.push(Problem {
            path: JsonPath::root(),
            server: None,
            kind: ProblemKind::WrongType {
                expected: Expected::Object,
                found: json_type(&root),
            },
        });
        return Ok(None);
    };
    for key in root
        .keys()
        .filter(|k| !TOP_LEVEL_KEYS.contains(&k.as_str()))
    {
        warnings.push(ConfigWarning {
            file: file.to_owned(),
            path: JsonPath::root().key(key),
            kind: WarningKind::UnknownKey {
                key: key.clone(),
                suggestion: suggest(key, TOP_LEVEL_KEYS),
            },
        });
    }
    match root.shift_remove("mcpServers") {
        None => Ok(None),
        Some(Value::Object(servers)) => Ok(Some(servers)),
        Some(other) => {
            problems.push(Problem {
                path: JsonPath::root().key("mcpServers"),
                server: None,
                kind: ProblemKind::WrongType {
                    expected: Expected::Object,
                    found: json_type(&other),
                },
            });
            Ok(None)
        }
    }
}

pub(crate) fn syntax_error(file: &Path, e: &serde_json::Error) -> ConfigError {
    // serde_json appends " at line L column C"; we print the position as file:L:C instead.
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    // serde_json says column 0 for a position at the start of a line; editors count from 1.
    ConfigError::Syntax {
        path: file.to_owned(),
        line: e.line(),
        column: e.column().max(1),
        message,
    }
}

/// `[A-Za-z0-9_-]{1,40}`: the name becomes part of function names (`mcp_invoke_<name>`).
pub fn check_server_name(name: &str) -> Result<(), NameProblem> {
    if name.is_empty() {
        return Err(NameProblem::Empty);
    }
    if let Some(ch) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(NameProblem::BadChar { ch });
    }
    if name.len() > MAX_SERVER_NAME_BYTES {
        return Err(NameProblem::TooLong { bytes: name.len() });
    }
    Ok(())
}

/// A JSON type's name for messages (never the value).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[path = "mcp_json_tests.rs"]
mod tests;
