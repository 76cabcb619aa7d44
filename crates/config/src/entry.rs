//! One `mcpServers` entry → [`McpServerSpec`]. Every key is type-checked, `${VAR}`-expanded
//! where allowed, and every problem is recorded with its JSON path (never with a value).

use std::path::Path;

use coyote_protocol::{
    ApprovalPolicy, Exposure, HttpSpec, McpServerSpec, McpTransport, StdioSpec, Timeouts,
};
use serde_json::{Map, Value};

use crate::error::{Expected, Problem, ProblemKind};
use crate::expand::{ExpandMode, VarProblem, is_var_name};
use crate::json_path::JsonPath;
use crate::keys::{ENTRY_KEYS, IGNORED_KEYS, UNSUPPORTED_KEYS, suggest};
use crate::mcp_json::McpFileContext;
use crate::warning::{ConfigWarning, WarningKind};

mod client;
mod fields;
mod oauth;
mod policy;

use fields::wrong;

pub(crate) enum EntryOutcome {
    Enabled(Box<McpServerSpec>),
    Disabled,
}

/// Accepted spellings of `type` / `transportType` (normalised before matching).
const TYPE_VALUES: &[&str] = &["stdio", "http", "streamable-http", "streamableHttp", "sse"];
const APPROVE_VALUES: &[(&str, ApprovalPolicy)] = &[
    ("destructive", ApprovalPolicy::Destructive),
    ("all", ApprovalPolicy::All),
    ("never", ApprovalPolicy::Never),
];
const EXPOSE_VALUES: &[(&str, Exposure)] = &[
    ("auto", Exposure::Auto),
    ("direct", Exposure::Direct),
    ("meta", Exposure::Meta),
    ("retrieve", Exposure::Retrieve),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdio,
    Http,
    Sse,
}

impl Kind {
    fn parse(value: &str) -> Option<Kind> {
        let norm: String = value
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect();
        match norm.as_str() {
            "stdio" => Some(Kind::Stdio),
            "http" | "streamablehttp" => Some(Kind::Http),
            "sse" => Some(Kind::Sse),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Kind::Stdio => "stdio",
            Kind::Http => "HTTP",
            Kind::Sse => "SSE",
        }
    }
}

/// Whether `env` values may be JSON numbers/booleans (Node-based clients stringify them).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scalars {
    StringsOnly,
    Stringify,
}

pub(crate) struct EntryReader<'r, 'a> {
    file: &'r Path,
    server: &'r str,
    path: JsonPath,
    cx: &'r McpFileContext<'a>,
    problems: &'r mut Vec<Problem>,
    warnings: &'r mut Vec<ConfigWarning>,
}

impl<'r, 'a> EntryReader<'r, 'a> {
    pub(crate) fn new(
        file: &'r Path,
        server: &'r str,
        path: JsonPath,
        cx: &'r McpFileContext<'a>,
        problems: &'r mut Vec<Problem>,
        warnings: &'r mut Vec<ConfigWarning>,
    ) -> Self {
        EntryReader {
            file,
            server,
            path,
            cx,
            problems,
            warnings,
        }
    }

    /// `None` when the entry has problems (they were recorded).
    pub(crate) fn read(&mut self, entry: &Value) -> Option<EntryOutcome> {
        let before = self.problems.len();
        let Value::Object(obj) = entry else {
            self.problem(self.path.clone(), wrong(Expected::Object, entry));
            return None;
        };
        // A disabled entry is not validated further: disabling is how users park a server
        // whose variables are not set on this machine.
        if self.bool(obj, "disabled") == Some(true) {
            return Some(EntryOutcome::Disabled);
        }
        self.check_keys(obj);
        let timeouts = self.timeouts(obj);
        let approve = self.choice(obj, "approve", APPROVE_VALUES);
        let expose = self.choice(obj, "expose", EXPOSE_VALUES);
        let mut auto_approve = self.string_array(obj, "autoApprove").unwrap_or_default();
        for tool in self.string_array(obj, "alwaysAllow").unwrap_or_default() {
            if !auto_approve.contains(&tool) {
                auto_approve.push(tool);
            }
        }
        let limits = self.result_limits(obj);
        let start = self.start_policy(obj);
        let transport = self.transport(obj);
        let client = self.client_settings(obj);
        let retrieve = self.retrieve_settings(obj);
        if self.problems.len() > before {
            return None;
        }
        Some(EntryOutcome::Enabled(Box::new(McpServerSpec {
            name: self.server.to_owned(),
            transport: transport?,
            timeouts,
            approve: approve.unwrap_or(self.cx.defaults.approve),
            expose: expose.unwrap_or(self.cx.defaults.expose),
            retrieve,
            auto_approve,
            client,
            limits,
            start,
            source: self.file.to_owned(),
        })))
    }

    fn check_keys(&mut self, obj: &Map<String, Value>) {
        for key in obj.keys() {
            if ENTRY_KEYS.contains(&key.as_str()) || IGNORED_KEYS.contains(&key.as_str()) {
                continue;
            }
            let kind = match UNSUPPORTED_KEYS.iter().find(|(k, _)| k == key) {
                Some((key, advice)) => WarningKind::UnsupportedKey { key, advice },
                None => WarningKind::UnknownKey {
                    key: key.clone(),
                    suggestion: suggest(key, ENTRY_KEYS),
                },
            };
            self.warn(self.path.key(key), kind);
        }
    }

    fn timeouts(&mut self, obj: &Map<String, Value>) -> Timeouts {
        let defaults = self.cx.defaults.timeouts;
        let cline = self.seconds(obj, "timeout");
        let tool = self.seconds(obj, "toolTimeoutSec");
        if cline.is_some() && tool.is_some() {
            self.warn(
                self.path.key("timeout"),
                WarningKind::Superseded {
                    key: "timeout",
                    winner: "toolTimeoutSec",
                },
            );
        }
        Timeouts {
            startup: self
                .seconds(obj, "startupTimeoutSec")
                .unwrap_or(defaults.startup),
            call: tool.or(cline).unwrap_or(defaults.call),
        }
    }

    fn transport(&mut self, obj: &Map<String, Value>) -> Option<McpTransport> {
        let before = self.problems.len();
        let declared = self.kind_key(obj, "type");
        let cline = self.kind_key(obj, "transportType");
        if self.problems.len() > before {
            // An unreadable `type` leaves the transport unknown: guessing would add noise.
            return None;
        }
        if let (Some((a, a_text)), Some((b, b_text))) = (&declared, &cline)
            && a != b
        {
            self.problem(
                self.path.key("transportType"),
                ProblemKind::ConflictingTypes {
                    type_value: a_text.clone(),
                    transport_type_value: b_text.clone(),
                },
            );
        }
        let declared = declared.or(cline);
        let untyped = declared.is_none();
        let url_key = match (obj.contains_key("url"), obj.contains_key("serverUrl")) {
            (true, true) => {
                self.warn(
                    self.path.key("serverUrl"),
                    WarningKind::Superseded {
                        key: "serverUrl",
                        winner: "url",
                    },
                );
                Some("url")
            }
            (true, false) => Some("url"),
            (false, true) => Some("serverUrl"),
            (false, false) => None,
        };
        let kind = self.kind(obj, declared, url_key)?;
        match kind {
            Kind::Stdio => {
                for key in ["headers", "bearerTokenEnv", "oauth"] {
                    self.warn_unused(obj, key, kind);
                }
                self.stdio(obj).map(McpTransport::Stdio)
            }
            Kind::Http => self.remote(obj, url_key, kind).map(|mut spec| {
                // No `type`: streamable HTTP first, legacy SSE if the server refuses its POST.
                spec.fallback_to_sse = untyped;
                McpTransport::Http(spec)
            }),
            Kind::Sse => self.remote(obj, url_key, kind).map(McpTransport::Sse),
        }
    }

    /// An HTTP or SSE server's spec (they share every key).
    fn remote(
        &mut self,
        obj: &Map<String, Value>,
        url_key: Option<&'static str>,
        kind: Kind,
    ) -> Option<HttpSpec> {
        for key in ["args", "env", "cwd"] {
            self.warn_unused(obj, key, kind);
        }
        self.http(obj, url_key.unwrap_or("url"))
    }

    /// Which transport the entry means: the declared `type` if any, else inferred from
    /// `command` / `url`. Records why when it cannot tell.
    fn kind(
        &mut self,
        obj: &Map<String, Value>,
        declared: Option<(Kind, String)>,
        url_key: Option<&'static str>,
    ) -> Option<Kind> {
        let has_command = obj.contains_key("command");
        match (&declared, has_command, url_key) {
            (Some((Kind::Stdio, _)), _, Some(key)) => {
                self.problem(self.path.key(key), conflicts(key, "stdio"));
                None
            }
            (Some((Kind::Stdio, _)), false, None) => {
                self.problem(
                    self.path.key("command"),
                    ProblemKind::MissingKey {
                        key: "command",
                        transport: "stdio",
                    },
                );
                None
            }
            (Some((Kind::Http | Kind::Sse, text)), true, _) => {
                self.problem(self.path.key("command"), conflicts("command", text));
                None
            }
            (Some((kind, _)), false, None) => {
                self.problem(
                    self.path.key("url"),
                    ProblemKind::MissingKey {
                        key: "url",
                        transport: kind.label(),
                    },
                );
                None
            }
            (Some((kind, _)), _, _) => Some(*kind),
            (None, true, Some(_)) => {
                self.problem(self.path.clone(), ProblemKind::CommandAndUrl);
                None
            }
            (None, true, None) => Some(Kind::Stdio),
            (None, false, Some(_)) => Some(Kind::Http),
            (None, false, None) => {
                let (path, kind) = if ["args", "env", "cwd"].iter().any(|k| obj.contains_key(*k)) {
                    (
                        self.path.key("command"),
                        ProblemKind::MissingKey {
                            key: "command",
                            transport: "stdio",
                        },
                    )
                } else if obj.contains_key("headers") {
                    (
                        self.path.key("url"),
                        ProblemKind::MissingKey {
                            key: "url",
                            transport: "HTTP",
                        },
                    )
                } else {
                    (self.path.clone(), ProblemKind::NoTransport)
                };
                self.problem(path, kind);
                None
            }
        }
    }

    fn stdio(&mut self, obj: &Map<String, Value>) -> Option<StdioSpec> {
        let command = self.expanded_string(obj, "command");
        if command.as_deref() == Some("") {
            self.problem(self.path.key("command"), ProblemKind::Empty);
        }
        let args_path = self.path.key("args");
        let mut args = Vec::new();
        for (i, raw) in self
            .string_array(obj, "args")
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            if let Some(arg) = self.expand(args_path.index(i), &raw) {
                args.push(arg);
            }
        }
        let env_path = self.path.key("env");
        let mut env = std::collections::BTreeMap::new();
        for (name, raw) in self
            .string_map(obj, "env", Scalars::Stringify)
            .unwrap_or_default()
        {
            if name.is_empty() || name.contains(['=', '\0']) {
                self.problem(env_path.key(&name), ProblemKind::BadEnvName { name });
                continue;
            }
            if let Some(value) = self.expand(env_path.key(&name), &raw) {
                env.insert(name, value);
            }
        }
        let cwd = match self.expanded_string(obj, "cwd") {
            Some(dir) => Some(self.cx.base_dir.join(dir)),
            None => self.cx.default_cwd.clone(),
        };
        Some(StdioSpec {
            command: command?,
            args,
            env,
            cwd,
        })
    }

    fn http(&mut self, obj: &Map<String, Value>, url_key: &'static str) -> Option<HttpSpec> {
        let url = self.expanded_string(obj, url_key);
        // `coyote mcp add` may store a URL built from variables not set yet.
        if let Some(url) = &url
            && (self.cx.mode == ExpandMode::Resolve || !url.contains("${"))
            && let Err(reason) = check_url(url)
        {
            self.problem(self.path.key(url_key), ProblemKind::BadUrl { reason });
        }
        let headers_path = self.path.key("headers");
        let mut headers = Vec::new();
        for (name, raw) in self
            .string_map(obj, "headers", Scalars::StringsOnly)
            .unwrap_or_default()
        {
            if !is_header_name(&name) {
                self.problem(headers_path.key(&name), ProblemKind::BadHeaderName { name });
                continue;
            }
            let Some(value) = self.expand(headers_path.key(&name), &raw) else {
                continue;
            };
            if value.chars().any(|c| c.is_control() && c != '\t') {
                self.problem(headers_path.key(&name), ProblemKind::BadHeaderValue);
                continue;
            }
            headers.push((name, value));
        }
        let bearer_token_env = self.string(obj, "bearerTokenEnv");
        if let Some(name) = &bearer_token_env {
            let path = self.path.key("bearerTokenEnv");
            if !is_var_name(name) {
                self.problem(path, ProblemKind::BadVarName { name: name.clone() });
            } else if self.cx.mode == ExpandMode::Resolve && self.cx.env.var(name).is_none() {
                self.problem(
                    path,
                    ProblemKind::Variable(VarProblem::Unset { var: name.clone() }),
                );
            }
        }
        let oauth = self.oauth(obj);
        if obj.contains_key("oauth") {
            let static_credentials = if bearer_token_env.is_some() {
                Some("bearerTokenEnv")
            } else if headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
            {
                Some("headers")
            } else {
                None
            };
            if let Some(winner) = static_credentials {
                self.warn(
                    self.path.key("oauth"),
                    WarningKind::Superseded {
                        key: "oauth",
                        winner,
                    },
                );
            }
        }
        Some(HttpSpec {
            url: url?,
            headers,
            bearer_token_env,
            oauth,
            fallback_to_sse: false,
        })
    }
}

fn conflicts(key: &'static str, declared: &str) -> ProblemKind {
    ProblemKind::KeyConflictsWithType {
        key,
        declared: declared.to_owned(),
    }
}

/// RFC 9110 token characters.
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// http(s) with a host. The reason never repeats the URL (it may carry a token).
fn check_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|e| e.to_string())?;
    match parsed.scheme() {
        "http" | "https" if parsed.host().is_some() => Ok(()),
        "http" | "https" => Err("no host".to_owned()),
        other => Err(format!("scheme \"{other}\" is not http or https")),
    }
}
