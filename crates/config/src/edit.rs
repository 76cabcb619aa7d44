//! `coyote mcp add` / `coyote mcp remove`: typed entries and atomic edits of an mcp.json.
//!
//! Invariants: the other entries, their key order and any keys coyote does not know survive an
//! edit (the document is edited as a `serde_json` value with `preserve_order`); formatting is
//! normalised to two-space JSON. A file that is not valid JSON is never overwritten. A new entry
//! is validated like a loaded one, except that `${VAR}` need not be set yet. Nothing is replaced
//! unless the caller said so ([`IfExists::Replace`]).

use std::fmt;
use std::path::Path;

use serde_json::{Map, Value};

use crate::env::MapEnv;
use crate::error::{ConfigError, Expected, IoOp, Problem, ProblemKind};
use crate::fsutil::{PRIVATE_FILE_MODE, write_atomic};
use crate::json_path::JsonPath;
use crate::mcp_json::{McpFileContext, json_type, parse_document, parse_mcp_json, syntax_error};

/// A server entry to write. Build with [`ServerEntry::stdio`], [`ServerEntry::http`] or
/// [`ServerEntry::sse`] and the builder methods of the returned type.
#[derive(Clone, PartialEq, Eq)]
pub enum ServerEntry {
    /// A program speaking MCP on stdin/stdout.
    Stdio(StdioEntry),
    /// A server over HTTP (streamable or legacy SSE).
    Http(HttpEntry),
}

/// `{"command", "args", "env", "cwd"}`.
#[derive(Clone, PartialEq, Eq)]
pub struct StdioEntry {
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    cwd: Option<String>,
}

/// `{"type": "http"|"sse", "url", "headers", "oauth": {"clientId", "scopes"}}`.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpEntry {
    transport: HttpTransport,
    url: String,
    headers: Vec<(String, String)>,
    client_id: Option<String>,
    scopes: Vec<String>,
}

/// Which HTTP transport an entry declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpTransport {
    /// Streamable HTTP (`"type": "http"`).
    StreamableHttp,
    /// Legacy HTTP+SSE (`"type": "sse"`).
    Sse,
}

impl ServerEntry {
    /// A program speaking MCP on stdin/stdout (`coyote mcp add NAME -- CMD ARGS…`).
    pub fn stdio(command: impl Into<String>) -> StdioEntry {
        StdioEntry {
            command: command.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
        }
    }

    /// A streamable-HTTP server (`coyote mcp add NAME --url URL`).
    pub fn http(url: impl Into<String>) -> HttpEntry {
        HttpEntry {
            transport: HttpTransport::StreamableHttp,
            url: url.into(),
            headers: Vec::new(),
            client_id: None,
            scopes: Vec::new(),
        }
    }

    /// A legacy SSE server.
    pub fn sse(url: impl Into<String>) -> HttpEntry {
        HttpEntry {
            transport: HttpTransport::Sse,
            url: url.into(),
            headers: Vec::new(),
            client_id: None,
            scopes: Vec::new(),
        }
    }

    /// The entry as mcp.json writes it.
    pub fn to_json(&self) -> Value {
        let mut obj = Map::new();
        match self {
            ServerEntry::Stdio(e) => {
                obj.insert("command".into(), e.command.clone().into());
                if !e.args.is_empty() {
                    obj.insert("args".into(), e.args.clone().into());
                }
                if !e.env.is_empty() {
                    obj.insert("env".into(), string_map(&e.env));
                }
                if let Some(cwd) = &e.cwd {
                    obj.insert("cwd".into(), cwd.clone().into());
                }
            }
            ServerEntry::Http(e) => {
                let kind = match e.transport {
                    HttpTransport::StreamableHttp => "http",
                    HttpTransport::Sse => "sse",
                };
                obj.insert("type".into(), kind.into());
                obj.insert("url".into(), e.url.clone().into());
                if !e.headers.is_empty() {
                    obj.insert("headers".into(), string_map(&e.headers));
                }
                let mut oauth = Map::new();
                if let Some(id) = &e.client_id {
                    oauth.insert("clientId".into(), id.clone().into());
                }
                if !e.scopes.is_empty() {
                    oauth.insert("scopes".into(), e.scopes.clone().into());
                }
                if !oauth.is_empty() {
                    obj.insert("oauth".into(), Value::Object(oauth));
                }
            }
        }
        Value::Object(obj)
    }
}

fn string_map(pairs: &[(String, String)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect(),
    )
}

impl StdioEntry {
    /// Appends one argument.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Appends several arguments.
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// One `env` variable (`-e NAME=VALUE`); a repeated name keeps the last value.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.env.retain(|(k, _)| *k != name);
        self.env.push((name, value.into()));
        self
    }

    /// Sets the working directory (`cwd`).
    pub fn cwd(mut self, dir: impl Into<String>) -> Self {
        self.cwd = Some(dir.into());
        self
    }
}

impl HttpEntry {
    /// One request header (`--header "Name: value"`); a repeated name keeps the last value.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(&name));
        self.headers.push((name, value.into()));
        self
    }
}

impl HttpEntry {
    /// A client registered with the server's authorization server (`--client-id`).
    pub fn client_id(mut self, id: impl Into<String>) -> Self {
        self.client_id = Some(id.into());
        self
    }

    /// One OAuth scope to ask for (`--scope`, repeatable); duplicates are dropped.
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        let scope = scope.into();
        if !self.scopes.contains(&scope) {
            self.scopes.push(scope);
        }
        self
    }
}

impl From<StdioEntry> for ServerEntry {
    fn from(e: StdioEntry) -> Self {
        ServerEntry::Stdio(e)
    }
}

impl From<HttpEntry> for ServerEntry {
    fn from(e: HttpEntry) -> Self {
        ServerEntry::Http(e)
    }
}

// Values may be secrets: Debug shows names only.
impl fmt::Debug for ServerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |pairs: &[(String, String)]| -> Vec<String> {
            pairs
                .iter()
                .map(|(k, _)| format!("{k}=<redacted>"))
                .collect()
        };
        match self {
            ServerEntry::Stdio(e) => f
                .debug_struct("Stdio")
                .field("command", &e.command)
                .field("args", &e.args)
                .field("env", &names(&e.env))
                .field("cwd", &e.cwd)
                .finish(),
            ServerEntry::Http(e) => f
                .debug_struct("Http")
                .field("transport", &e.transport)
                .field("url", &"<redacted>")
                .field("headers", &names(&e.headers))
                .field("client_id", &e.client_id)
                .field("scopes", &e.scopes)
                .finish(),
        }
    }
}

impl fmt::Debug for StdioEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&ServerEntry::Stdio(self.clone()), f)
    }
}

impl fmt::Debug for HttpEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&ServerEntry::Http(self.clone()), f)
    }
}

/// Splits `-e NAME=VALUE`.
pub fn parse_env_assignment(arg: &str) -> Result<(String, String), ConfigError> {
    match arg.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(ConfigError::BadArgument {
            flag: "-e/--env",
            expected: "NAME=VALUE",
            example: "-e API_TOKEN=${API_TOKEN}",
        }),
    }
}

/// Splits `--header "Name: value"` (the space after ':' is optional).
pub fn parse_header(arg: &str) -> Result<(String, String), ConfigError> {
    match arg.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim_start().to_owned()))
        }
        _ => Err(ConfigError::BadArgument {
            flag: "--header",
            expected: "\"Name: value\"",
            example: "--header \"Authorization: Bearer ${TOKEN}\"",
        }),
    }
}

/// What to do when the name is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IfExists {
    /// Fail with [`ConfigError::ServerExists`].
    #[default]
    Refuse,
    /// Replace the entry in place (its position is kept).
    Replace,
}

/// What [`add_server`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddOutcome {
    /// The server was new.
    Added,
    /// An entry of that name was replaced.
    Replaced,
}

/// Adds (or replaces) server `name` in the mcp.json at `path`, creating file and directory.
pub fn add_server(
    path: &Path,
    name: &str,
    entry: &ServerEntry,
    if_exists: IfExists,
) -> Result<AddOutcome, ConfigError> {
    validate_entry(path, name, entry)?;
    let mut root = read_document(path)?.unwrap_or_default();
    let servers = servers_mut(path, &mut root)?;
    let outcome = match (servers.contains_key(name), if_exists) {
        (true, IfExists::Refuse) => {
            return Err(ConfigError::ServerExists {
                path: path.to_owned(),
                name: name.to_owned(),
            });
        }
        (true, IfExists::Replace) => AddOutcome::Replaced,
        (false, _) => AddOutcome::Added,
    };
    servers.insert(name.to_owned(), entry.to_json());
    write_document(path, root)?;
    Ok(outcome)
}

/// Removes server `name` from the mcp.json at `path`.
pub fn remove_server(path: &Path, name: &str) -> Result<(), ConfigError> {
    let unknown = |known: Vec<String>| ConfigError::UnknownServer {
        path: path.to_owned(),
        name: name.to_owned(),
        known,
    };
    let Some(mut root) = read_document(path)? else {
        return Err(unknown(Vec::new()));
    };
    let servers = servers_mut(path, &mut root)?;
    if servers.shift_remove(name).is_none() {
        return Err(unknown(servers.keys().cloned().collect()));
    }
    write_document(path, root)
}

/// Checks `entry` as the loader would, without requiring its `${VAR}`s to be set.
fn validate_entry(path: &Path, name: &str, entry: &ServerEntry) -> Result<(), ConfigError> {
    validate_raw(path, name, &entry.to_json())
}

/// Checks an entry's JSON as the loader would, without requiring its `${VAR}`s to be set.
pub(crate) fn validate_raw(path: &Path, name: &str, entry: &Value) -> Result<(), ConfigError> {
    let mut servers = Map::new();
    servers.insert(name.to_owned(), entry.clone());
    let doc = Value::Object(Map::from_iter([(
        "mcpServers".to_owned(),
        Value::Object(servers),
    )]));
    let env = MapEnv::new();
    let base = path.parent().unwrap_or(Path::new("."));
    let cx = McpFileContext::new(&env, base).syntax_only();
    parse_mcp_json(&doc.to_string(), path, &cx).map(|_| ())
}

/// The top-level object, `None` when the file does not exist. Invalid JSON is an error: the
/// file is left alone rather than replaced.
pub(crate) fn read_document(path: &Path) -> Result<Option<Map<String, Value>>, ConfigError> {
    let text = match crate::bounded::read_bounded_text(path, crate::bounded::FileClass::Config) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Io {
                path: path.to_owned(),
                op: IoOp::Read,
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    // Reuse the loader's checks for the document shape so both report the same problems.
    let mut problems = Vec::new();
    parse_document(&text, path, &mut Vec::new(), &mut problems)?;
    if !problems.is_empty() {
        return Err(ConfigError::Invalid {
            path: path.to_owned(),
            problems,
        });
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    match serde_json::from_str(text).map_err(|e| syntax_error(path, &e))? {
        Value::Object(root) => Ok(Some(root)),
        _ => Ok(None),
    }
}

pub(crate) fn servers_mut<'r>(
    path: &Path,
    root: &'r mut Map<String, Value>,
) -> Result<&'r mut Map<String, Value>, ConfigError> {
    let value = root
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let found = json_type(value);
    value.as_object_mut().ok_or_else(|| ConfigError::Invalid {
        path: path.to_owned(),
        problems: vec![Problem {
            path: JsonPath::root().key("mcpServers"),
            server: None,
            kind: ProblemKind::WrongType {
                expected: Expected::Object,
                found,
            },
        }],
    })
}

#[expect(
    clippy::expect_used,
    reason = "a serde_json::Value always serialises: its map keys are strings"
)]
pub(crate) fn write_document(path: &Path, root: Map<String, Value>) -> Result<(), ConfigError> {
    let mut text =
        serde_json::to_string_pretty(&Value::Object(root)).expect("a JSON value always serialises");
    text.push('\n');
    write_atomic(path, text.as_bytes(), PRIVATE_FILE_MODE)
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
