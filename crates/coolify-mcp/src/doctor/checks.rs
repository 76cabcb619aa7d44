//! The checks `doctor` runs against one instance, in order: `config`, `reachability`, `token`,
//! `version`, `abilities`, `api-shape` (the reference's six). Each probe is a GET that no
//! controller can act on, bounded by the prober's timeout.
//!
//! Invariants: a detail or fix never contains a token, a header value or a response body beyond
//! a version string cut to 32 characters; an error message is the transport's reason, which
//! names no credential.

use std::time::SystemTime;

use coolify_api::{ProbeAuth, ProbeError, ProbeResponse, Prober};
use serde_json::Value;

use super::{Check, Status};
use crate::config::TokenSource;

/// The Coolify versions this release is tested against (also named in the instructions).
pub const TESTED_RANGE: ((u64, u64), (u64, u64)) = ((4, 0), (4, 3));
/// How the tested range is shown.
pub const TESTED_RANGE_LABEL: &str = "4.0.x – 4.3.x";

const WRITE_NOTE: &str = "write: not probeable without side effects";

/// What is known about one instance before probing it.
pub struct Target {
    /// The instance name.
    pub name: String,
    /// The base URL, when one is usable.
    pub base_url: Option<String>,
    /// The token, when it could be read (from the environment or the token file).
    pub token: Option<String>,
    /// Extra headers (Cloudflare Access, `--header`).
    pub headers: Vec<(String, String)>,
    /// Problems found in the configuration (the `config` check fails with them).
    pub problems: Vec<String>,
    /// Warnings found in the configuration.
    pub warnings: Vec<String>,
    /// How the token is provided (`config`'s detail when it passes).
    pub token_detail: String,
}

/// Read the token from its source; `Err` is a config problem (never the token).
pub fn read_token(source: &TokenSource) -> Result<(String, String), String> {
    match source {
        TokenSource::Value(v) => Ok((
            v.trim().to_string(),
            "COOLIFY_ACCESS_TOKEN set (from the environment, so rotating it needs a restart)"
                .into(),
        )),
        TokenSource::File(path) => {
            let shown = path.display();
            let contents = std::fs::read_to_string(path)
                .map_err(|e| format!("COOLIFY_ACCESS_TOKEN_FILE is unreadable ({shown}): {e}"))?;
            let token = contents.trim().to_string();
            if token.is_empty() {
                return Err(format!(
                    "COOLIFY_ACCESS_TOKEN_FILE points at an empty file ({shown})"
                ));
            }
            let age = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .map(|d| d.as_secs() / 60)
                .unwrap_or(0);
            Ok((
                token,
                format!(
                    "token from COOLIFY_ACCESS_TOKEN_FILE ({shown}, last changed {age}m ago; re-read automatically, no restart needed)"
                ),
            ))
        }
    }
}

fn check(name: &'static str, status: Status, detail: impl Into<String>) -> Check {
    Check {
        check: name,
        status,
        detail: detail.into(),
        fix: None,
    }
}

fn with_fix(mut c: Check, fix: &str) -> Check {
    c.fix = Some(fix.to_string());
    c
}

/// Every check for one instance.
pub async fn run(target: &Target, prober: Option<&Prober>) -> Vec<Check> {
    let mut out = Vec::new();
    let config_broken = !target.problems.is_empty();
    out.push(if config_broken {
        with_fix(
            check("config", Status::Fail, target.problems.join("; ")),
            "Fix the variables above, then run doctor again",
        )
    } else if !target.warnings.is_empty() {
        check("config", Status::Warn, target.warnings.join("; "))
    } else {
        check(
            "config",
            Status::Pass,
            format!("COOLIFY_BASE_URL set, {}", target.token_detail),
        )
    });
    let reachable = match prober {
        None => {
            out.push(check(
                "reachability",
                Status::Skipped,
                "no usable COOLIFY_BASE_URL",
            ));
            false
        }
        Some(p) => reachability(p, &mut out).await,
    };
    let token = match (&target.token, prober) {
        (Some(t), Some(p)) if !config_broken && reachable => Some((t.as_str(), p)),
        _ => None,
    };
    let Some((token, prober)) = token else {
        let detail = if target.token.is_none() {
            "no token to test"
        } else {
            "blocked by an earlier failure"
        };
        for name in ["token", "version"] {
            out.push(check(name, Status::Skipped, detail));
        }
        for name in ["abilities", "api-shape"] {
            out.push(check(name, Status::Skipped, "token check did not pass"));
        }
        return out;
    };
    let version = token_and_version(prober, token, &mut out).await;
    if version.is_none() {
        for name in ["abilities", "api-shape"] {
            out.push(check(name, Status::Skipped, "token check did not pass"));
        }
        return out;
    }
    out.push(abilities(prober, token).await);
    out.push(api_shape(prober, token).await);
    out
}

async fn reachability(prober: &Prober, out: &mut Vec<Check>) -> bool {
    let started = std::time::Instant::now();
    match prober.get("/version", ProbeAuth::Anonymous).await {
        Ok(r) if (300..400).contains(&r.status) => {
            let ms = started.elapsed().as_millis();
            if r.location
                .as_deref()
                .unwrap_or_default()
                .contains("cloudflareaccess.com")
            {
                out.push(with_fix(check("reachability", Status::Fail, format!("Cloudflare Access is intercepting requests to Coolify (redirect to the Access login page in {ms}ms)")), "Set CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET (an Access service token), or point COOLIFY_BASE_URL at the internal address — see docs/coolify-mcp.md"));
                false
            } else {
                out.push(with_fix(
                    check(
                        "reachability",
                        Status::Warn,
                        format!(
                            "COOLIFY_BASE_URL answers with a redirect (HTTP {})",
                            r.status
                        ),
                    ),
                    "Set COOLIFY_BASE_URL to the final URL so every API call skips the hop",
                ));
                true
            }
        }
        Ok(r) => {
            let ms = started.elapsed().as_millis();
            out.push(check(
                "reachability",
                Status::Pass,
                format!("Coolify answered in {ms}ms (HTTP {})", r.status),
            ));
            true
        }
        Err(e) => {
            out.push(with_fix(check("reachability", Status::Fail, format!("cannot reach COOLIFY_BASE_URL: {}", describe(&e))), "Check the URL, DNS and firewall. If this runs as a container next to Coolify, use the internal address"));
            false
        }
    }
}

fn describe(e: &ProbeError) -> String {
    e.to_string().chars().take(140).collect()
}

fn message(r: &ProbeResponse) -> Option<String> {
    r.json()
        .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_string))
}

/// The ability list of Coolify's missing-ability 403 (`Missing required permissions: …`).
fn missing_abilities(r: &ProbeResponse) -> Option<String> {
    message(r)
        .and_then(|m| {
            m.strip_prefix("Missing required permissions")
                .map(str::to_string)
        })
        .map(|rest| rest.trim_start_matches(':').trim().to_string())
}

fn member_blocked(r: &ProbeResponse) -> bool {
    message(r).is_some_and(|m| m.contains("role as a team member"))
}

/// Coolify's routing catch-all (`{"message":"Not found.","docs":…}`): nothing ran.
fn is_catch_all(r: &ProbeResponse) -> bool {
    match r.json() {
        Some(Value::Object(o)) => {
            o.contains_key("docs") || o.get("message").and_then(Value::as_str) == Some("Not found.")
        }
        _ => false,
    }
}

/// `(major, minor)` of a version string like `4.1.2` or `v4.0.0-beta.400`.
fn major_minor(version: &str) -> Option<(u64, u64)> {
    let v = version.strip_prefix('v').unwrap_or(version);
    let mut parts = v.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next()?;
    patch
        .chars()
        .next()
        .filter(char::is_ascii_digit)
        .map(|_| (major, minor))
}

async fn token_and_version(prober: &Prober, token: &str, out: &mut Vec<Check>) -> Option<String> {
    let version = match prober.get("/version", ProbeAuth::Bearer(token)).await {
        Ok(r) if (200..300).contains(&r.status) => {
            let body = r.body.trim();
            if major_minor(body).is_some() {
                out.push(check("token", Status::Pass, "accepted by Coolify"));
                Some(body.chars().take(32).collect::<String>())
            } else {
                out.push(check("token", Status::Inconclusive, "the version endpoint answered 200 but not with a version string — is COOLIFY_BASE_URL pointing at Coolify?"));
                None
            }
        }
        Ok(r) if r.status == 401 || r.status == 400 => {
            out.push(with_fix(check("token", Status::Fail, format!("Coolify rejected the token (HTTP {})", r.status)), "Create a fresh token under Keys & Tokens → API tokens and re-paste it — a stale, revoked or truncated token is the usual cause"));
            None
        }
        Ok(r) if r.status == 403 => {
            let missing = missing_abilities(&r);
            let detail = match (&missing, member_blocked(&r)) {
                (Some(m), _) => format!("token is valid but lacks the \"{m}\" ability"),
                (None, true) => "token is valid but your team role blocks API access".into(),
                (None, false) => "Coolify answered 403".into(),
            };
            let fix = if missing.is_some() {
                "Recreate the token with the read ability (or root)"
            } else {
                "Ask a team admin/owner to issue the token"
            };
            out.push(with_fix(check("token", Status::Fail, detail), fix));
            None
        }
        Ok(r) => {
            out.push(check(
                "token",
                Status::Inconclusive,
                format!("unexpected HTTP {} from the version endpoint", r.status),
            ));
            None
        }
        Err(e) => {
            out.push(check(
                "token",
                Status::Inconclusive,
                format!("probe failed: {}", describe(&e)),
            ));
            None
        }
    };
    let Some(version) = version else {
        out.push(check(
            "version",
            Status::Skipped,
            "token check did not pass",
        ));
        return None;
    };
    let ((lo_major, lo_minor), (hi_major, hi_minor)) = TESTED_RANGE;
    let in_range = major_minor(&version)
        .is_some_and(|mm| mm >= (lo_major, lo_minor) && mm <= (hi_major, hi_minor));
    out.push(if in_range {
        check(
            "version",
            Status::Pass,
            format!("Coolify {version} (inside the tested range {TESTED_RANGE_LABEL})"),
        )
    } else {
        with_fix(
            check(
                "version",
                Status::Warn,
                format!("Coolify {version} is outside the range this release was tested against ({TESTED_RANGE_LABEL})"),
            ),
            "Probably fine, but suspect this first if another check is red",
        )
    });
    Some(version)
}

/// `deploy` is the one ability a side-effect-free GET can prove: `GET /deploy` without
/// parameters is answered by the ability gate (403) or past it (400/405/a controller 404).
async fn abilities(prober: &Prober, token: &str) -> Check {
    enum Deploy {
        Granted,
        Missing,
        MemberBlocked,
        Unknown,
    }
    let deploy = match prober.get("/deploy", ProbeAuth::Bearer(token)).await {
        Ok(r) if r.status == 403 && missing_abilities(&r).is_some() => Deploy::Missing,
        Ok(r) if r.status == 403 && member_blocked(&r) => Deploy::MemberBlocked,
        Ok(r) if r.status == 400 || r.status == 405 => Deploy::Granted,
        Ok(r) if r.status == 404 && !is_catch_all(&r) => Deploy::Granted,
        _ => Deploy::Unknown,
    };
    match deploy {
        Deploy::Granted => check(
            "abilities",
            Status::Pass,
            format!("token grants: read, deploy ({WRITE_NOTE})"),
        ),
        Deploy::Missing => with_fix(
            check(
                "abilities",
                Status::Warn,
                format!(
                    "token lacks: deploy (granted: read; {WRITE_NOTE}) — deploy tools will 403"
                ),
            ),
            "Recreate the token with the deploy ability if you need those tools",
        ),
        Deploy::MemberBlocked => with_fix(
            check(
                "abilities",
                Status::Warn,
                format!(
                    "token abilities exceed your team role — writes are blocked upstream (granted: read; {WRITE_NOTE})"
                ),
            ),
            "Ask a team admin/owner to issue the token, or expect read-only behaviour",
        ),
        Deploy::Unknown => check(
            "abilities",
            Status::Warn,
            format!("token grants: read (deploy: could not determine; {WRITE_NOTE})"),
        ),
    }
}

/// An unrouted path must reach Coolify's routing catch-all: the v4.2 GET/POST fallback of the
/// client depends on recognising it.
async fn api_shape(prober: &Prober, token: &str) -> Check {
    let stamp = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let path = format!("/doctor-probe-{stamp:x}");
    match prober.get(&path, ProbeAuth::Bearer(token)).await {
        Ok(r) if r.status == 404 && is_catch_all(&r) => check(
            "api-shape",
            Status::Pass,
            "routing catch-all answers as expected",
        ),
        Ok(r) => with_fix(
            check(
                "api-shape",
                Status::Warn,
                format!(
                    "unrouted path answered HTTP {}{}",
                    r.status,
                    if is_catch_all(&r) {
                        ""
                    } else {
                        " without the expected body shape"
                    }
                ),
            ),
            "A Coolify update may have changed API routing — check for a newer coolify-mcp release",
        ),
        Err(_) => check("api-shape", Status::Inconclusive, "probe failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_like_the_reference() {
        assert_eq!(major_minor("4.1.2"), Some((4, 1)));
        assert_eq!(major_minor("v4.0.0-beta.400"), Some((4, 0)));
        assert_eq!(major_minor("<html>"), None);
        assert_eq!(major_minor("4.1"), None);
    }
}
