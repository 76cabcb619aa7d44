//! Startup configuration: environment variables and flags → one validated [`Config`].
//!
//! Raw inputs (an env map and the argument list) are converted once, exhaustively; the rest
//! of the server never reads the environment. Invariants:
//! - every problem is collected in one pass and reported together ([`StartupError`]);
//! - no message ever echoes a token, secret or header value;
//! - a mode switch that is not exactly `1`, `true`, `0` or `false` is an error, so a typo
//!   can never silently leave writes enabled;
//! - unauthenticated HTTP (`--no-auth`) is only possible on a loopback bind.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;

mod fleet;
mod http;
mod instance;

use fleet::parse_instances;
use http::http_spec;
pub use http::{DEFAULT_MAX_CLIENTS, MIN_HTTP_TOKEN_CHARS, OAuthSpec};
pub use instance::{
    DEFAULT_REQUEST_TIMEOUT, InstanceSpec, MAX_REQUEST_TIMEOUT, MIN_REQUEST_TIMEOUT,
    REQUEST_TIMEOUT_VAR, TokenSource, request_timeout_from_secs,
};

/// Which tools are registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessMode {
    /// Every tool is registered.
    ReadWrite,
    /// Only tools annotated read-only are registered.
    ReadOnly,
}

/// What happens to a guarded operation when the client cannot be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HumanPolicy {
    /// Ask when the client supports elicitation, otherwise run unconfirmed (stdio default).
    AskWhenPossible,
    /// Refuse guarded operations when the client cannot be asked (HTTP default).
    RequireHuman,
}

/// `COOLIFY_MCP_ELICITATION`: only the exact string `off` disables asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitationSetting {
    /// Ask the client to confirm guarded operations when it supports elicitation.
    Enabled,
    /// Never ask (`COOLIFY_MCP_ELICITATION=off`).
    Off,
}

/// HTTP authentication.
#[derive(Clone, PartialEq, Eq)]
pub enum HttpAuth {
    /// `Authorization: Bearer <token>` required on every request.
    Bearer(String),
    /// `--no-auth`: loopback binds only.
    None,
    /// No static token: OAuth access tokens only (`MCP_PUBLIC_URL` set, no
    /// `COOLIFY_MCP_HTTP_TOKEN`).
    OAuthOnly,
}

impl fmt::Debug for HttpAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpAuth::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            HttpAuth::None => f.write_str("None"),
            HttpAuth::OAuthOnly => f.write_str("OAuthOnly"),
        }
    }
}

/// Streamable HTTP settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSpec {
    /// The address to listen on.
    pub bind: SocketAddr,
    /// How clients authenticate.
    pub auth: HttpAuth,
    /// Extra `Host` values accepted besides the loopback names (`COOLIFY_MCP_ALLOWED_HOSTS`).
    pub allowed_hosts: Vec<String>,
    /// Extra `Origin` values accepted besides loopback origins (`COOLIFY_MCP_ALLOWED_ORIGINS`).
    pub allowed_origins: Vec<String>,
    /// The OAuth authorization server, when `MCP_PUBLIC_URL` is set.
    pub oauth: Option<Box<OAuthSpec>>,
    /// `--stateless`: no MCP sessions; every request stands alone (replicas need no affinity).
    pub stateless: bool,
}

/// Transport selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// JSON-RPC over stdin/stdout (the default).
    Stdio,
    /// Streamable HTTP with these settings.
    Http(HttpSpec),
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Never empty; the first entry is the default instance.
    pub instances: Vec<InstanceSpec>,
    /// Which tools are registered.
    pub access: AccessMode,
    /// What happens to a guarded operation when the client cannot be asked.
    pub human: HumanPolicy,
    /// Whether the client may be asked.
    pub elicitation: ElicitationSetting,
    /// stdio or streamable HTTP.
    pub transport: Transport,
    /// Printed as `coolify-mcp: warning: <text>` at startup.
    pub warnings: Vec<String>,
    /// One audit line per tool call on stderr (`COOLIFY_MCP_AUDIT`; default on over HTTP).
    pub audit: bool,
    /// `MCP_REQUEST_STATE_KEY` (at least 32 bytes); `None` = a key generated per process.
    pub request_state_key: Option<String>,
    /// `--state` / `COOLIFY_MCP_STATE_URL`: the Redis server that records used confirmations
    /// (and, with OAuth, the sign-in state); `None` = this process and the state file.
    pub state_url: Option<String>,
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Serve with this configuration.
    Run(Box<Config>),
    /// Print the usage text and exit.
    Help,
    /// Print the version and exit.
    Version,
}

/// Every startup problem, listed together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct StartupError {
    /// One line per problem, each saying what to fix.
    pub problems: Vec<String>,
}

impl fmt::Display for StartupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("coolify-mcp cannot start:")?;
        for p in &self.problems {
            write!(f, "\n  - {p}")?;
        }
        Ok(())
    }
}

/// Usage text for `--help`.
pub const USAGE: &str = "\
coolify-mcp — MCP server for Coolify

USAGE: coolify-mcp [OPTIONS]
       coolify-mcp doctor [--json] [--header \"Key: Value\"]   check the environment and Coolify

OPTIONS:
  --transport <stdio|http>  transport (default stdio; env MCP_TRANSPORT)
  --host <ADDR>             HTTP bind address (default 127.0.0.1; env MCP_HOST)
  --port <N>                HTTP port (default 8080; env MCP_PORT or PORT)
  --no-auth                 HTTP without a bearer token (loopback binds only)
  --stateless               HTTP without sessions (replicas behind any load balancer)
  --state <redis://…>       keep sign-ins, used confirmations and rate limits in Redis/Valkey,
                            shared by replicas on several machines (env COOLIFY_MCP_STATE_URL)
  --read-only               register read-only tools only (env COOLIFY_MCP_READONLY, MCP_READONLY)
  --require-human           refuse guarded operations when the client cannot confirm
                            (env COOLIFY_MCP_REQUIRE_HUMAN; default on for HTTP)
  --header \"Key: Value\"     extra header for the default instance (repeatable)
  -h, --help                this text
  -V, --version             print the version

Coolify: COOLIFY_BASE_URL, COOLIFY_ACCESS_TOKEN or COOLIFY_ACCESS_TOKEN_FILE,
COOLIFY_INSTANCES (fleet; an entry may set \"request_timeout\" in seconds),
COOLIFY_REQUEST_TIMEOUT (seconds per request, default 30),
CF_ACCESS_CLIENT_ID/CF_ACCESS_CLIENT_SECRET.
HTTP: COOLIFY_MCP_HTTP_TOKEN (required unless --no-auth or OAuth), MCP_PUBLIC_URL (turns on
OAuth sign-in), MCP_OAUTH_STATE_FILE, COOLIFY_MCP_TRUSTED_PROXIES, COOLIFY_MCP_AUDIT.
";

#[derive(Default)]
struct Flags {
    transport: Option<String>,
    host: Option<String>,
    port: Option<String>,
    no_auth: bool,
    stateless: bool,
    state: Option<String>,
    read_only: bool,
    require_human: bool,
    headers: Vec<String>,
    help: bool,
    version: bool,
}

fn parse_flags(args: &[String], problems: &mut Vec<String>) -> Flags {
    let mut flags = Flags::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |problems: &mut Vec<String>| -> Option<String> {
            inline.clone().or_else(|| it.next().cloned()).or_else(|| {
                problems.push(format!("{name} needs a value"));
                None
            })
        };
        match name {
            "--transport" => flags.transport = value(problems),
            "--host" => flags.host = value(problems),
            "--port" => flags.port = value(problems),
            "--header" => flags.headers.extend(value(problems)),
            "--state" => flags.state = value(problems),
            "--no-auth" => flags.no_auth = true,
            "--stateless" => flags.stateless = true,
            "--read-only" => flags.read_only = true,
            "--require-human" => flags.require_human = true,
            "-h" | "--help" => flags.help = true,
            "-V" | "--version" => flags.version = true,
            other => problems.push(format!(
                "unknown argument \"{}\"; run coolify-mcp --help for the options",
                clip(other, 40)
            )),
        }
    }
    flags
}

/// Parse the process inputs. `env` is the full environment; `args` excludes argv\[0].
pub fn parse(env: &BTreeMap<String, String>, args: &[String]) -> Result<Command, StartupError> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut flags = parse_flags(args, &mut problems);
    http::resolve_state(&mut flags, env, &mut problems);
    if flags.help {
        return Ok(Command::Help);
    }
    if flags.version {
        return Ok(Command::Version);
    }
    let get = |k: &str| env.get(k).map(String::as_str).filter(|v| !v.is_empty());

    for name in [
        "COOLIFY_BASE_URL",
        "COOLIFY_ACCESS_TOKEN",
        "COOLIFY_ACCESS_TOKEN_FILE",
        "CF_ACCESS_CLIENT_ID",
        "CF_ACCESS_CLIENT_SECRET",
        "COOLIFY_MCP_HTTP_TOKEN",
    ] {
        if get(name).is_some_and(looks_unexpanded) {
            problems.push(format!(
                "{name} contains an unexpanded ${{VAR}} placeholder — the literal text reached this process instead of the value. Set the real value directly."
            ));
        }
    }
    check_token_shape(get("COOLIFY_ACCESS_TOKEN"), &mut problems);
    let base_url = check_base_url(get("COOLIFY_BASE_URL"), &mut problems, &mut warnings);
    let default_headers =
        default_instance_headers(get, &flags.headers, &mut problems, &mut warnings);

    let instances_json = get("COOLIFY_INSTANCES");
    let mut instances = Vec::new();
    let request_timeout = instance::request_timeout_env(get(REQUEST_TIMEOUT_VAR), &mut problems);
    instance::push_default(
        instance::DefaultInstance {
            base_url,
            token: get("COOLIFY_ACCESS_TOKEN"),
            token_file: get("COOLIFY_ACCESS_TOKEN_FILE"),
            headers: default_headers,
            request_timeout,
            fleet_configured: instances_json.is_some(),
        },
        &mut instances,
        &mut problems,
    );
    if let Some(raw) = instances_json {
        parse_instances(raw, request_timeout, &mut instances, &mut problems);
    }
    if instances.is_empty() && problems.is_empty() {
        problems.push("No Coolify instance configured".into());
    }

    let access = if flags.read_only
        | switch(env, "MCP_READONLY", &mut problems).unwrap_or(false)
        | switch(env, "COOLIFY_MCP_READONLY", &mut problems).unwrap_or(false)
    {
        AccessMode::ReadOnly
    } else {
        AccessMode::ReadWrite
    };
    let elicitation = match env.get("COOLIFY_MCP_ELICITATION").map(String::as_str) {
        Some("off") => ElicitationSetting::Off,
        _ => ElicitationSetting::Enabled,
    };
    let transport_name = flags
        .transport
        .clone()
        .or_else(|| get("MCP_TRANSPORT").map(str::to_string));
    let transport = match transport_name.as_deref() {
        None | Some("stdio") => Transport::Stdio,
        Some("http") => http_spec(env, &flags, instances.first(), &mut problems, &mut warnings),
        Some(_) => {
            problems
                .push("the transport must be stdio or http (--transport / MCP_TRANSPORT)".into());
            Transport::Stdio
        }
    };
    let human_env = switch(env, "COOLIFY_MCP_REQUIRE_HUMAN", &mut problems);
    let human_default = matches!(transport, Transport::Http(_));
    let human = if flags.require_human || human_env.unwrap_or(human_default) {
        HumanPolicy::RequireHuman
    } else {
        HumanPolicy::AskWhenPossible
    };
    let audit = crate::audit::enabled_by(
        env.get("COOLIFY_MCP_AUDIT").map(String::as_str),
        matches!(transport, Transport::Http(_)),
    );
    let request_state_key = get(crate::request_state::KEY_VAR).map(str::to_string);
    if request_state_key
        .as_ref()
        .is_some_and(|k| k.len() < crate::request_state::MIN_KEY_BYTES)
    {
        problems.push(crate::request_state::KeyTooShort.to_string());
    }
    if request_state_key.is_none()
        && human == HumanPolicy::RequireHuman
        && matches!(transport, Transport::Http(_))
    {
        warnings.push(format!("{} is not set: 2026-07-28 confirmations are signed with a key made for this process, so a restart or another replica refuses them (set it to 32+ random bytes shared by every replica)", crate::request_state::KEY_VAR));
    }
    if !problems.is_empty() {
        return Err(StartupError { problems });
    }
    Ok(Command::Run(Box::new(Config {
        instances,
        access,
        human,
        elicitation,
        transport,
        warnings,
        audit,
        request_state_key,
        state_url: flags.state,
    })))
}

/// `1`/`true` → Some(true), `0`/`false` → Some(false), unset/empty → None, anything else is
/// a startup problem.
fn switch(env: &BTreeMap<String, String>, name: &str, problems: &mut Vec<String>) -> Option<bool> {
    match env.get(name).map(String::as_str) {
        None | Some("") => None,
        Some("1" | "true") => Some(true),
        Some("0" | "false") => Some(false),
        Some(_) => {
            problems.push(format!(
                "{name} must be 1, true, 0 or false; anything else is refused so a typo cannot leave the mode off."
            ));
            None
        }
    }
}

fn looks_unexpanded(value: &str) -> bool {
    if value.contains("${") {
        return true;
    }
    let mut chars = value.chars();
    chars.next() == Some('$')
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && value[1..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn check_token_shape(token: Option<&str>, problems: &mut Vec<String>) {
    let Some(token) = token.filter(|t| !looks_unexpanded(t)) else {
        return;
    };
    let core = token.trim_end();
    if core.contains(['\0', '\r', '\n']) {
        problems.push("COOLIFY_ACCESS_TOKEN contains a line break or NUL — every request would fail before it is even sent. Re-paste the token without it.".into());
    } else if core.starts_with([' ', '\t']) {
        problems.push("COOLIFY_ACCESS_TOKEN has leading whitespace, which becomes part of the credential — Coolify rejects every request with 401. Re-paste the token without it.".into());
    }
}

fn check_base_url(
    raw: Option<&str>,
    problems: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let raw = raw?;
    if looks_unexpanded(raw) {
        return None;
    }
    let Ok(parsed) = url::Url::parse(raw) else {
        problems.push("COOLIFY_BASE_URL is not a usable URL (a missing http:// or https:// scheme is the usual cause). Set it to your Coolify URL, e.g. https://coolify.example.com".into());
        return None;
    };
    if parsed.scheme() != "http" && parsed.scheme() != "https" {
        problems.push(format!(
            "COOLIFY_BASE_URL has scheme \"{}:\" — it must be http or https.",
            clip(parsed.scheme(), 16)
        ));
        return None;
    }
    let path = parsed.path().trim_end_matches('/');
    if path.ends_with("/api/v1") {
        problems.push("COOLIFY_BASE_URL ends with /api/v1. The server appends /api/v1 itself, so every request would hit /api/v1/api/v1 and 404. Set it to the bare Coolify URL.".into());
        return None;
    }
    if path.ends_with("/api") {
        warnings.push("COOLIFY_BASE_URL ends with /api. The server appends /api/v1 itself — unless this is a deliberate proxy prefix, set it to the bare Coolify URL.".into());
    }
    Some(raw.strip_suffix('/').unwrap_or(raw).to_string())
}

/// Headers for the default instance: the Cloudflare Access pair, then `--header` flags
/// (later names replace earlier ones, case-insensitively).
fn default_instance_headers<'a>(
    get: impl Fn(&str) -> Option<&'a str>,
    flags: &[String],
    problems: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut set = |name: &str, value: &str| {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name.to_string(), value.to_string()));
    };
    let id = get("CF_ACCESS_CLIENT_ID");
    let secret = get("CF_ACCESS_CLIENT_SECRET");
    for (name, value) in [
        ("CF_ACCESS_CLIENT_ID", id),
        ("CF_ACCESS_CLIENT_SECRET", secret),
    ] {
        if value.is_some_and(|v| !looks_unexpanded(v) && v.trim().contains(['\0', '\r', '\n'])) {
            problems.push(format!("{name} contains a line break or NUL — every request to Coolify would fail before it is even sent. Re-paste it without it."));
        }
    }
    match (id, secret) {
        (Some(id), Some(secret)) => {
            set("CF-Access-Client-Id", id.trim());
            set("CF-Access-Client-Secret", secret.trim());
        }
        (Some(_), None) => problems.push("CF_ACCESS_CLIENT_ID is set but CF_ACCESS_CLIENT_SECRET is not. Cloudflare Access service tokens need both, or neither.".into()),
        (None, Some(_)) => problems.push("CF_ACCESS_CLIENT_SECRET is set but CF_ACCESS_CLIENT_ID is not. Cloudflare Access service tokens need both, or neither.".into()),
        (None, None) => {}
    }
    for flag in flags {
        let Some((name, value)) = flag.split_once(':') else {
            problems.push("--header needs the form \"Key: Value\"".into());
            continue;
        };
        let name = name.trim();
        if name.eq_ignore_ascii_case("authorization") || name.eq_ignore_ascii_case("content-type") {
            warnings.push(format!(
                "--header {} is ignored: the server sets it itself",
                clip(name, 40)
            ));
            continue;
        }
        set(name, value.trim());
    }
    headers
}

/// Cut a user-supplied string for an error message (`…` when cut).
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}
