//! HTTP transport settings: bind address, port, bearer token or `--no-auth` (loopback only),
//! extra allowed hosts and origins.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use super::{Flags, HttpAuth, HttpSpec, Transport};

/// The shortest `COOLIFY_MCP_HTTP_TOKEN` accepted at start-up.
pub const MIN_HTTP_TOKEN_CHARS: usize = 32;

pub(super) fn http_spec(
    env: &BTreeMap<String, String>,
    flags: &Flags,
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
            None => {
                problems.push("HTTP mode needs COOLIFY_MCP_HTTP_TOKEN (clients send it as `Authorization: Bearer <token>`), or --no-auth on a loopback bind.".into());
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
    })
}
