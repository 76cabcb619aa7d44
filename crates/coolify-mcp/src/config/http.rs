//! HTTP transport settings: bind address, port, bearer token or `--no-auth` (loopback only),
//! extra allowed hosts and origins, the OAuth authorization server (`MCP_PUBLIC_URL`),
//! `--stateless`.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use super::{Flags, HttpAuth, HttpSpec, InstanceSpec, Transport};

/// The OAuth authorization server's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthSpec {
    /// `MCP_PUBLIC_URL` without a trailing `/`: the issuer, and `<it>/mcp` the resource.
    /// `None` (tests): `http://<bound address>`.
    pub public_url: Option<String>,
    /// `MCP_OAUTH_STATE_FILE` (default `/data/oauth-state.json`), unless `state_url`.
    pub state_file: PathBuf,
    /// `--state` / `COOLIFY_MCP_STATE_URL`: a `redis://` URL whose server holds the state
    /// instead of the file (replicas on several machines).
    pub state_url: Option<String>,
    /// `MCP_ACCESS_TOKEN_TTL` seconds (default 3600).
    pub access_ttl_secs: u64,
    /// `MCP_REFRESH_TOKEN_TTL` seconds (default 28800).
    pub refresh_ttl_secs: u64,
    /// `COOLIFY_MCP_TRUSTED_PROXIES`: peers whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<IpAddr>,
    /// The default instance's base URL: sign-in tokens are checked there.
    pub coolify_url: String,
    /// The default instance's extra headers (Cloudflare Access, `--header`).
    pub coolify_headers: Vec<(String, String)>,
    /// `MCP_OAUTH_MAX_CLIENTS` (default [`DEFAULT_MAX_CLIENTS`]): registered clients kept at
    /// most; the oldest never used one makes room for a new one.
    pub max_clients: usize,
}

/// Registered OAuth clients kept at most, unless `MCP_OAUTH_MAX_CLIENTS` says otherwise.
pub const DEFAULT_MAX_CLIENTS: usize = 1000;

fn oauth_spec<'a>(
    get: &dyn Fn(&str) -> Option<&'a str>,
    default: Option<&InstanceSpec>,
    state_url: Option<&str>,
    problems: &mut Vec<String>,
) -> Option<Box<OAuthSpec>> {
    let raw = get("MCP_PUBLIC_URL")?.trim();
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("https://{raw}")
    };
    let insecure_ok = get("MCP_ALLOW_INSECURE_HTTP") == Some("true");
    match url::Url::parse(&with_scheme) {
        Ok(u) if u.scheme() == "https" || (u.scheme() == "http" && insecure_ok) => {}
        Ok(u) if u.scheme() == "http" => problems.push("MCP_PUBLIC_URL must be https (set MCP_ALLOW_INSECURE_HTTP=true to allow http, e.g. behind a TLS-terminating proxy on the same host)".into()),
        _ => problems.push("MCP_PUBLIC_URL is not an http(s) URL".into()),
    }
    let ttl = |name: &str, default: u64, problems: &mut Vec<String>| match get(name) {
        None => default,
        Some(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|n| *n >= 60)
            .unwrap_or_else(|| {
                problems.push(format!("{name} must be a number of seconds, at least 60"));
                default
            }),
    };
    let access_ttl_secs = ttl("MCP_ACCESS_TOKEN_TTL", 3600, problems);
    let refresh_ttl_secs = ttl("MCP_REFRESH_TOKEN_TTL", 28_800, problems);
    let mut trusted_proxies = Vec::new();
    for entry in get("COOLIFY_MCP_TRUSTED_PROXIES").unwrap_or("").split(',') {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        match entry.parse::<IpAddr>() {
            Ok(ip) => trusted_proxies.push(ip),
            Err(_) => problems
                .push("COOLIFY_MCP_TRUSTED_PROXIES must be a comma list of IP addresses".into()),
        }
    }
    let max_clients = match get("MCP_OAUTH_MAX_CLIENTS") {
        None => DEFAULT_MAX_CLIENTS,
        Some(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=100_000).contains(n))
            .unwrap_or_else(|| {
                problems.push(
                    "MCP_OAUTH_MAX_CLIENTS must be a number of clients from 1 to 100000".into(),
                );
                DEFAULT_MAX_CLIENTS
            }),
    };
    let default = default?;
    Some(Box::new(OAuthSpec {
        public_url: Some(with_scheme.trim_end_matches('/').to_string()),
        state_file: PathBuf::from(get("MCP_OAUTH_STATE_FILE").unwrap_or("/data/oauth-state.json")),
        state_url: state_url.map(str::to_string),
        access_ttl_secs,
        refresh_ttl_secs,
        trusted_proxies,
        coolify_url: default.url.clone(),
        coolify_headers: default.headers.clone(),
        max_clients,
    }))
}

/// The shortest `COOLIFY_MCP_HTTP_TOKEN` accepted at start-up.
pub const MIN_HTTP_TOKEN_CHARS: usize = 32;

pub(super) fn http_spec(
    env: &BTreeMap<String, String>,
    flags: &Flags,
    default: Option<&InstanceSpec>,
    problems: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Transport {
    let get = |k: &str| env.get(k).map(String::as_str).filter(|v| !v.is_empty());
    let host = flags
        .host
        .as_deref()
        .or(get("MCP_HOST"))
        .unwrap_or("127.0.0.1");
    let ip: IpAddr = match host {
        "localhost" => IpAddr::V4(Ipv4Addr::LOCALHOST),
        h => match h.trim_matches(['[', ']']).parse() {
            Ok(ip) => ip,
            Err(_) => {
                problems
                    .push("the HTTP bind address (--host / MCP_HOST) must be an IP address".into());
                IpAddr::V4(Ipv4Addr::LOCALHOST)
            }
        },
    };
    let port_raw = flags
        .port
        .as_deref()
        .or(get("MCP_PORT"))
        .or(get("PORT"))
        .unwrap_or("8080");
    let port = port_raw.parse::<u16>().unwrap_or_else(|_| {
        problems.push(
            "the HTTP port (--port / MCP_PORT / PORT) must be a number from 0 to 65535".into(),
        );
        0
    });
    let token = get("COOLIFY_MCP_HTTP_TOKEN");
    let oauth = oauth_spec(&get, default, flags.state.as_deref(), problems);
    let auth = if flags.no_auth {
        if !ip.is_loopback() {
            problems.push("--no-auth is only allowed on a loopback bind (127.0.0.1 or ::1); set COOLIFY_MCP_HTTP_TOKEN to serve other interfaces.".into());
        }
        if token.is_some() {
            warnings.push("COOLIFY_MCP_HTTP_TOKEN is set but --no-auth disables it".into());
        }
        HttpAuth::None
    } else {
        match token {
            Some(t) if t.trim() != t || t.contains(char::is_control) => {
                problems.push("COOLIFY_MCP_HTTP_TOKEN has whitespace or control characters at its ends or inside; set a plain token.".into());
                HttpAuth::None
            }
            Some(t) if t.chars().count() < MIN_HTTP_TOKEN_CHARS => {
                problems.push(format!("COOLIFY_MCP_HTTP_TOKEN is shorter than {MIN_HTTP_TOKEN_CHARS} characters, so it can be guessed; generate one with: openssl rand -hex 32"));
                HttpAuth::None
            }
            Some(t) => HttpAuth::Bearer(t.to_string()),
            None if oauth.is_some() => HttpAuth::OAuthOnly,
            None => {
                problems.push("HTTP mode needs COOLIFY_MCP_HTTP_TOKEN (clients send it as `Authorization: Bearer <token>`), MCP_PUBLIC_URL (OAuth sign-in), or --no-auth on a loopback bind.".into());
                HttpAuth::None
            }
        }
    };
    let list = |k: &str| -> Vec<String> {
        get(k)
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    let allowed_hosts = list("COOLIFY_MCP_ALLOWED_HOSTS");
    if !ip.is_loopback() && allowed_hosts.is_empty() {
        warnings.push(format!("binding {ip}, a non-loopback address, without COOLIFY_MCP_ALLOWED_HOSTS: only loopback Host headers (and the bind address itself) are accepted, so requests through a domain name are refused; list the names clients use"));
    }
    Transport::Http(HttpSpec {
        bind: SocketAddr::new(ip, port),
        auth,
        allowed_hosts,
        allowed_origins: list("COOLIFY_MCP_ALLOWED_ORIGINS"),
        oauth,
        stateless: flags.stateless,
    })
}

/// `--state` (else `COOLIFY_MCP_STATE_URL`) into `flags.state`, checked: `None` keeps the
/// state file and per-process confirmation records; a `redis://` (or `valkey://`) URL shares
/// them through that server.
pub(super) fn resolve_state(
    flags: &mut Flags,
    env: &BTreeMap<String, String>,
    problems: &mut Vec<String>,
) {
    let from_env = env
        .get("COOLIFY_MCP_STATE_URL")
        .filter(|v| !v.trim().is_empty());
    let Some(raw) = flags.state.take().or_else(|| from_env.cloned()) else {
        return;
    };
    let raw = raw.trim();
    match crate::state_url::check_url(raw) {
        Ok(()) => flags.state = Some(raw.to_string()),
        Err(why) => problems.push(format!("--state / COOLIFY_MCP_STATE_URL: {why}")),
    }
}
