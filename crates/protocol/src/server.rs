//! Validated MCP server specs, produced by `coyote-config` from mcp.json and consumed by
//! `coyote-mcp`. Values here are already expanded (`${VAR}` resolved); the `Debug` impls
//! redact env values, header values and URLs' secrets so a spec can be logged safely.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol_pin::ProtocolPin;

use crate::oauth::OAuthSpec;

/// Default time allowed for spawn/connect + `initialize`.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Default inactivity timeout of one request (reset by progress notifications).
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// One configured MCP server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerSpec {
    /// Validated name: `[A-Za-z0-9_-]{1,40}`; it becomes part of function names.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// Its startup and call deadlines.
    pub timeouts: Timeouts,
    /// When the user must approve a tool call (`"approve"` in mcp.json).
    pub approve: ApprovalPolicy,
    /// How the server's tools are shown to the model (`"expose"` in mcp.json).
    pub expose: Exposure,
    /// How many tools `retrieve` declares per request, and their token budget
    /// (`"retrieveTopK"`, `"retrieveMaxTokens"`).
    #[serde(default)]
    pub retrieve: RetrieveSettings,
    /// Tools the user pre-approved in the file (`autoApprove` / `alwaysAllow`).
    pub auto_approve: Vec<String>,
    /// What the server may ask of coyote: sampling, roots, the instructions' budget.
    pub client: ClientFeatureSettings,
    /// What one result of the server may cost the model (`maxResultBytes`, `toolLimits`).
    pub limits: ResultLimits,
    /// When the server starts and how long its cached catalog is used (`start`,
    /// `catalogTtlSec`).
    pub start: StartPolicy,
    /// The file this entry came from (for messages).
    pub source: PathBuf,
}

/// What a server's results may cost the model: bytes of one result that reach it
/// (`"maxResultBytes"` and `"toolLimits": {"<tool>": {"maxResultBytes": N}}` in mcp.json). A
/// tool's limit wins over the server's, which wins over the default the session derives from
/// the model's context window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultLimits {
    /// The server's limit (`None`: the default).
    pub max_result_bytes: Option<u64>,
    /// Per tool, by its MCP name.
    pub tools: BTreeMap<String, u64>,
}

/// When a server starts, and how long its cached catalog may stand in for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartPolicy {
    /// `"start"` in mcp.json.
    pub mode: StartMode,
    /// `"catalogTtlSec"`: how long a cached catalog is used, overriding the server's own
    /// `ttlMs` hint and the 7-day default.
    pub catalog_ttl: Option<Duration>,
    /// `"protocol"`: the revision the server is spoken to in, instead of negotiating.
    pub protocol: Option<ProtocolPin>,
}

/// `"start"` of an mcp.json entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartMode {
    /// Declared from its cached catalog without starting; started by the first call that
    /// needs it (no cache yet: started at once, like `eager`).
    #[default]
    Lazy,
    /// Started with the session, whatever the cache holds.
    Eager,
}

impl fmt::Debug for McpServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServerSpec")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("timeouts", &self.timeouts)
            .field("approve", &self.approve)
            .field("expose", &self.expose)
            .field("client", &self.client)
            .field("limits", &self.limits)
            .field("start", &self.start)
            .field("source", &self.source)
            .finish()
    }
}

/// How to reach the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpTransport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio(StdioSpec),
    /// Streamable HTTP.
    Http(HttpSpec),
    /// Legacy HTTP+SSE (2024-11-05): a GET opens the event stream, whose `endpoint` event
    /// names the URL messages are POSTed to.
    Sse(HttpSpec),
}

impl McpTransport {
    /// Short label for tables: `stdio`, `http`, `sse`.
    pub fn label(&self) -> &'static str {
        match self {
            McpTransport::Stdio(_) => "stdio",
            McpTransport::Http(_) => "http",
            McpTransport::Sse(_) => "sse",
        }
    }
}

/// A child process speaking MCP on stdin/stdout.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StdioSpec {
    /// The program to run (looked up on PATH).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment variables (values never logged).
    pub env: BTreeMap<String, String>,
    /// Working directory; `None` inherits coyote's.
    pub cwd: Option<PathBuf>,
}

impl fmt::Debug for StdioSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let env: Vec<String> = self.env.keys().map(|k| format!("{k}=<redacted>")).collect();
        f.debug_struct("StdioSpec")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &env)
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// An HTTP endpoint.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpSpec {
    /// The endpoint URL.
    pub url: String,
    /// Extra request headers, in file order.
    pub headers: Vec<(String, String)>,
    /// Name of an env var holding a bearer token (`bearerTokenEnv` in mcp.json).
    pub bearer_token_env: Option<String>,
    /// How to sign in when the server asks for OAuth (`"oauth"` in mcp.json; unused when
    /// `bearer_token_env` or an `Authorization` header supplies the credentials).
    #[serde(default, skip_serializing_if = "OAuthSpec::is_default")]
    pub oauth: OAuthSpec,
    /// The entry named no `"type"`: when the `initialize` POST of streamable HTTP is answered
    /// 400, 404 or 405, the legacy HTTP+SSE transport is tried at the same URL.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback_to_sse: bool,
}

impl fmt::Debug for HttpSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<String> = self
            .headers
            .iter()
            .map(|(k, _)| format!("{k}: <redacted>"))
            .collect();
        f.debug_struct("HttpSpec")
            .field("url", &redact_url(&self.url))
            .field("headers", &headers)
            .field("bearer_token_env", &self.bearer_token_env)
            .field("oauth", &self.oauth)
            .field("fallback_to_sse", &self.fallback_to_sse)
            .finish()
    }
}

/// Per-server timeouts (`startupTimeoutSec`, `toolTimeoutSec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeouts {
    /// Spawn/connect plus the `initialize` handshake (`startupTimeoutSec`).
    pub startup: Duration,
    /// Inactivity timeout of one request; progress notifications reset it.
    pub call: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            startup: DEFAULT_STARTUP_TIMEOUT,
            call: DEFAULT_TOOL_TIMEOUT,
        }
    }
}

/// When the user is asked before a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalPolicy {
    /// Ask for tools annotated `destructiveHint: true`.
    #[default]
    Destructive,
    /// Ask for every tool not annotated `readOnlyHint: true`.
    All,
    /// Never ask.
    Never,
}

/// Largest `maxTokens` a server's sampling request may ask for unless `samplingMaxTokens` says.
pub const DEFAULT_SAMPLING_MAX_TOKENS: u32 = 4096;
/// Sampling requests one server may make per minute unless `samplingPerMinute` says.
pub const DEFAULT_SAMPLING_PER_MINUTE: u32 = 10;
/// Bytes of a server's `instructions` given to the model unless `instructionsMaxBytes` says.
pub const DEFAULT_INSTRUCTIONS_MAX_BYTES: usize = 2000;

/// Whether a server may ask the model to answer (`"sampling"` in mcp.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplingMode {
    /// Sampling is offered; each request needs the user's consent (or `--allow-sampling`).
    #[default]
    Ask,
    /// Sampling is not offered to this server and every request is declined.
    Never,
}

/// What one server may ask of coyote, from its mcp.json entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientFeatureSettings {
    /// `"sampling"`: `ask` (default) or `never`.
    pub sampling: SamplingMode,
    /// `"samplingMaxTokens"`: a request asking for more `maxTokens` is refused.
    pub sampling_max_tokens: u32,
    /// `"samplingPerMinute"`: requests beyond this many in the last minute are refused.
    pub sampling_per_minute: u32,
    /// `"roots"`: the directories this server is told about; `None` uses the session's roots
    /// (the git root of the working directory, else the working directory).
    pub roots: Option<Vec<PathBuf>>,
    /// `"instructionsMaxBytes"`: how much of the server's `instructions` the model sees
    /// (0: none).
    pub instructions_max_bytes: usize,
}

impl Default for ClientFeatureSettings {
    fn default() -> Self {
        ClientFeatureSettings {
            sampling: SamplingMode::Ask,
            sampling_max_tokens: DEFAULT_SAMPLING_MAX_TOKENS,
            sampling_per_minute: DEFAULT_SAMPLING_PER_MINUTE,
            roots: None,
            instructions_max_bytes: DEFAULT_INSTRUCTIONS_MAX_BYTES,
        }
    }
}

/// How a server's tools are declared to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exposure {
    /// Direct while the declarations fit a budget, else retrieve.
    #[default]
    Auto,
    /// Each tool declared as itself (`<server>__<tool>`).
    Direct,
    /// The five meta-functions.
    Meta,
    /// Per request, the tools that fit the conversation best declared as themselves, beside
    /// the search/invoke pair for the rest.
    Retrieve,
}

/// `retrieve`'s size per request: declared tools chosen by rank, and the estimated tokens
/// their declarations may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetrieveSettings {
    /// `"retrieveTopK"`: tools declared by rank (tools named by the user or already called in
    /// the turn come on top).
    pub top_k: usize,
    /// `"retrieveMaxTokens"`: estimated tokens the ranked tools' declarations may take.
    pub max_tokens: usize,
}

/// Default of `"retrieveTopK"`.
pub const DEFAULT_RETRIEVE_TOP_K: usize = 8;
/// Default of `"retrieveMaxTokens"`.
pub const DEFAULT_RETRIEVE_MAX_TOKENS: usize = 1_500;

impl Default for RetrieveSettings {
    fn default() -> Self {
        RetrieveSettings {
            top_k: DEFAULT_RETRIEVE_TOP_K,
            max_tokens: DEFAULT_RETRIEVE_MAX_TOKENS,
        }
    }
}

/// A path segment that looks like a key or token: at least 20 characters of the URL-safe
/// token alphabet, with letters and digits both (names and words rarely are; keys always).
fn secret_like(segment: &str) -> bool {
    segment.len() >= 20
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'%'))
        && segment.bytes().any(|b| b.is_ascii_digit())
        && segment.bytes().any(|b| b.is_ascii_alphabetic())
}

/// `path` with its token-like segments ([`secret_like`]) replaced by `<redacted>`.
fn redact_path(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            if secret_like(segment) {
                "<redacted>"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The URL with its user-info, query values and token-like path segments hidden:
/// `https://user:pw@h/p/sk9f3Ka72mQ1xZ8pL4vN?token=x` becomes
/// `https://<redacted>@h/p/<redacted>?token=<redacted>`. Tokens are often put there (a
/// hosted server's key as a path segment, too); logs must not see them.
pub fn redact_url(url: &str) -> String {
    let (base, fragment) = url
        .split_once('#')
        .map_or((url, None), |(b, f)| (b, Some(f)));
    let (base, query) = base
        .split_once('?')
        .map_or((base, None), |(b, q)| (b, Some(q)));
    let mut out = match base.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
            let path = redact_path(path);
            match authority.rsplit_once('@') {
                Some((_, host)) => format!("{scheme}://<redacted>@{host}{path}"),
                None => format!("{scheme}://{authority}{path}"),
            }
        }
        None => base.to_string(),
    };
    if let Some(q) = query {
        let parts: Vec<String> = q
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) => format!("{k}=<redacted>"),
                None => kv.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&parts.join("&"));
    }
    if fragment.is_some() {
        out.push_str("#<redacted>");
    }
    out
}

/// `text` with every `http://` / `https://` URL in it passed through [`redact_url`] (a URL ends
/// at whitespace, a quote, `<`, `>`, `)` or `]`). For text we do not control, such as a
/// library's log line that prints a request's URL. Borrowed when nothing needs hiding.
pub fn redact_urls_in(text: &str) -> std::borrow::Cow<'_, str> {
    let needs = |url: &str| {
        url.contains('?')
            || url.contains('#')
            || url.contains('@')
            || url.split('/').any(secret_like)
    };
    let ends = |c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | ')' | ']' | '`');
    let mut out = String::new();
    let mut copied = 0;
    let mut search = 0;
    while let Some(found) = text[search..].find("://") {
        let colons = search + found;
        let scheme_start = text[..colons]
            .rfind(|c: char| !c.is_ascii_alphanumeric())
            .map_or(0, |i| i + 1);
        let scheme = &text[scheme_start..colons];
        let end = text[colons..].find(ends).map_or(text.len(), |i| colons + i);
        let url = &text[scheme_start..end];
        if matches!(scheme, "http" | "https") && needs(url) {
            out.push_str(&text[copied..scheme_start]);
            out.push_str(&redact_url(url));
            copied = end;
        }
        search = end.max(colons + 3);
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_inside_text_are_redacted() {
        let line = r#"Client(reqwest::Error { url: "http://127.0.0.1:1/mcp?key=SECRET", x }) and https://u:pw@h/p ok"#;
        let redacted = redact_urls_in(line);
        assert!(
            !redacted.contains("SECRET") && !redacted.contains("pw"),
            "{redacted}"
        );
        assert!(
            redacted.contains("http://127.0.0.1:1/mcp?key=<redacted>"),
            "{redacted}"
        );
        assert!(redacted.ends_with(" ok"), "{redacted}");
        let plain = "see https://example.com/docs and ftp://x?y";
        assert!(matches!(
            redact_urls_in(plain),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn url_secrets_are_redacted() {
        assert_eq!(
            redact_url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            redact_url("https://u:pw@h.example/p?token=abc&x=1#frag"),
            "https://<redacted>@h.example/p?token=<redacted>&x=<redacted>#<redacted>"
        );
    }

    #[test]
    fn token_like_path_segments_are_redacted_and_ordinary_ones_kept() {
        assert_eq!(
            redact_url("https://mcp.example.com/v1/sk9f3Ka72mQ1xZ8pL4vN/sse"),
            "https://mcp.example.com/v1/<redacted>/sse"
        );
        for kept in [
            "https://mcp.example.com/mcp",
            "https://api.example.com/v1/organizations/settings-and-preferences",
            "http://127.0.0.1:8080/v2/items/12345",
        ] {
            assert_eq!(redact_url(kept), kept);
            assert!(matches!(
                redact_urls_in(kept),
                std::borrow::Cow::Borrowed(_)
            ));
        }
        let line = "HTTP status client error (404 Not Found) for url \
                    (http://127.0.0.1:9/a1b2c3d4e5f6g7h8i9j0k/sse)";
        assert_eq!(
            redact_urls_in(line),
            "HTTP status client error (404 Not Found) for url (http://127.0.0.1:9/<redacted>/sse)"
        );
    }

    #[test]
    fn debug_of_specs_shows_no_secret() {
        let http = HttpSpec {
            url: "http://127.0.0.1:1/mcp?key=SECRET1".into(),
            headers: vec![("Authorization".into(), "Bearer SECRET2".into())],
            bearer_token_env: Some("TOKEN_VAR".into()),
            oauth: OAuthSpec {
                client_secret: Some("SECRET4".into()),
                ..OAuthSpec::default()
            },
            fallback_to_sse: false,
        };
        let stdio = StdioSpec {
            command: "srv".into(),
            args: vec![],
            env: [("API_KEY".to_string(), "SECRET3".to_string())].into(),
            cwd: None,
        };
        let text = format!("{http:?} {stdio:?}");
        for secret in ["SECRET1", "SECRET2", "SECRET3", "SECRET4"] {
            assert!(!text.contains(secret), "{text}");
        }
    }
}
