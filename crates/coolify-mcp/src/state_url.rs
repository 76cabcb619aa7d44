//! The `--state` URL (`COOLIFY_MCP_STATE_URL`): which Redis/Valkey URLs this build can reach,
//! and how a URL is shown in messages.
//!
//! Ground floor: imports nothing from the crate (`config` checks the setting with it,
//! `oauth::redis_store` connects with it).
//!
//! Invariants:
//! - a URL is never shown with its password;
//! - `rediss://`/`valkeys://` (TLS) are refused with what to do instead: this build carries no
//!   TLS stack for Redis.

/// The URL shown in messages: the password (if any) left out.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(None);
            }
            u.to_string()
        }
        Err(_) => "(unparsable URL)".to_string(),
    }
}

/// Whether `url` names a Redis server this build can reach; the reason when not.
pub fn check_url(url: &str) -> Result<(), String> {
    let scheme = url.split_once("://").map_or("", |(s, _)| s);
    match scheme {
        "redis" | "valkey" | "redis+unix" | "valkey+unix" | "unix" => {}
        "rediss" | "valkeys" => {
            return Err(format!(
                "{} asks for TLS, which this build does not offer; reach Redis over a private network, a unix socket or a TLS tunnel and use redis://",
                redacted(url)
            ));
        }
        _ => {
            return Err(format!(
                "{} is not a redis:// or valkey:// URL",
                redacted(url)
            ));
        }
    }
    redis::Client::open(url)
        .map(|_| ())
        .map_err(|e| format!("{} is not a usable Redis URL ({e})", redacted(url)))
}

#[cfg(test)]
#[path = "state_url_tests.rs"]
mod tests;
