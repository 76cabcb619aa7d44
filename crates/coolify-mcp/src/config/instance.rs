//! One configured Coolify instance ([`InstanceSpec`]): where its token comes from, its
//! extra headers and its request timeout; and the default instance built from the classic
//! variables (`COOLIFY_BASE_URL`, `COOLIFY_ACCESS_TOKEN[_FILE]`, `COOLIFY_REQUEST_TIMEOUT`).
//!
//! Invariant: a timeout from configuration is range-checked as a float before it becomes a
//! [`Duration`], so no input can reach a panicking conversion.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Where the Coolify token of an instance comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// The token itself (`COOLIFY_ACCESS_TOKEN`); never printed.
    Value(String),
    /// Re-read by the client when the file's mtime changes.
    File(PathBuf),
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenSource::Value(_) => f.write_str("Value(<redacted>)"),
            TokenSource::File(p) => write!(f, "File({})", p.display()),
        }
    }
}

/// One configured Coolify instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceSpec {
    /// The instance's name, as tools and resource URIs give it.
    pub name: String,
    /// Base URL without `/api/v1` and without a trailing `/`.
    pub url: String,
    /// Where its API token comes from.
    pub token: TokenSource,
    /// Extra headers sent on every request to this instance (never logged).
    pub headers: Vec<(String, String)>,
    /// Whole-request timeout of this instance's Coolify client.
    pub request_timeout: Duration,
    /// The setting that configured [`request_timeout`](Self::request_timeout), named by
    /// timeout errors (`COOLIFY_REQUEST_TIMEOUT` or `COOLIFY_INSTANCES[i].request_timeout`).
    pub timeout_setting: String,
}

/// Default whole-request timeout of a Coolify client (the reference has none).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest request timeout accepted from configuration.
pub const MAX_REQUEST_TIMEOUT: Duration = Duration::from_secs(3600);
/// Shortest request timeout accepted from configuration.
pub const MIN_REQUEST_TIMEOUT: Duration = Duration::from_millis(100);
/// The environment variable that sets the request timeout (seconds).
pub const REQUEST_TIMEOUT_VAR: &str = "COOLIFY_REQUEST_TIMEOUT";

impl InstanceSpec {
    /// An instance with no extra headers and the default request timeout.
    pub fn new(name: impl Into<String>, url: impl Into<String>, token: TokenSource) -> Self {
        Self {
            name: name.into(),
            url: url.into(),
            token,
            headers: Vec::new(),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            timeout_setting: REQUEST_TIMEOUT_VAR.to_string(),
        }
    }
}

/// A request timeout in seconds from configuration, checked to lie in
/// [`MIN_REQUEST_TIMEOUT`]..=[`MAX_REQUEST_TIMEOUT`] before it becomes a [`Duration`] (a
/// NaN, an infinity or `1e300` never becomes a `Duration`; clippy.toml forbids the panicking
/// `Duration::from_secs_f64`).
pub fn request_timeout_from_secs(secs: f64, setting: &str) -> Result<Duration, String> {
    let (min, max) = (
        MIN_REQUEST_TIMEOUT.as_secs_f64(),
        MAX_REQUEST_TIMEOUT.as_secs_f64(),
    );
    let checked = (min..=max)
        .contains(&secs)
        .then(|| Duration::try_from_secs_f64(secs).ok())
        .flatten();
    if let Some(timeout) = checked {
        Ok(timeout)
    } else {
        Err(format!(
            "{setting} must be a number of seconds from {min} to {max}, e.g. 30"
        ))
    }
}

/// `COOLIFY_REQUEST_TIMEOUT` (seconds), or the default when unset; a bad value is a
/// startup problem.
pub(super) fn request_timeout_env(raw: Option<&str>, problems: &mut Vec<String>) -> Duration {
    let Some(raw) = raw else {
        return DEFAULT_REQUEST_TIMEOUT;
    };
    raw.trim()
        .parse::<f64>()
        .map_err(|_| format!("{REQUEST_TIMEOUT_VAR} must be a number of seconds, e.g. 30"))
        .and_then(|secs| request_timeout_from_secs(secs, REQUEST_TIMEOUT_VAR))
        .unwrap_or_else(|problem| {
            problems.push(problem);
            DEFAULT_REQUEST_TIMEOUT
        })
}

/// What the classic variables say about the default instance.
pub(super) struct DefaultInstance<'a> {
    /// `COOLIFY_BASE_URL`, already checked.
    pub base_url: Option<String>,
    pub token: Option<&'a str>,
    pub token_file: Option<&'a str>,
    pub headers: Vec<(String, String)>,
    pub request_timeout: Duration,
    /// `COOLIFY_INSTANCES` is set (then no localhost default and no token is required).
    pub fleet_configured: bool,
}

/// Push the `default` instance when the classic variables configure one.
pub(super) fn push_default(
    d: DefaultInstance<'_>,
    instances: &mut Vec<InstanceSpec>,
    problems: &mut Vec<String>,
) {
    let token = d
        .token
        .map(|t| TokenSource::Value(t.trim_end().to_string()));
    let token_file = d.token_file.map(|p| TokenSource::File(PathBuf::from(p)));
    if let Some(TokenSource::File(path)) = &token_file {
        match std::fs::read_to_string(path) {
            Ok(s) if !s.trim().is_empty() => {}
            Ok(_) => problems.push(
                "COOLIFY_ACCESS_TOKEN_FILE points at an empty file; put the token in it.".into(),
            ),
            Err(_) => problems.push(
                "COOLIFY_ACCESS_TOKEN_FILE cannot be read; check the path and its permissions."
                    .into(),
            ),
        }
    }
    let url = d
        .base_url
        .or_else(|| (!d.fleet_configured).then(|| "http://localhost:3000".to_string()));
    match (url, token_file.or(token)) {
        (Some(url), Some(token)) => instances.push(InstanceSpec {
            headers: d.headers,
            request_timeout: d.request_timeout,
            ..InstanceSpec::new("default", url, token)
        }),
        (_, None) if !d.fleet_configured => problems.push(
            "COOLIFY_ACCESS_TOKEN environment variable is required (or COOLIFY_ACCESS_TOKEN_FILE to allow rotation without a restart)".into(),
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_range_checked_before_they_become_durations() {
        assert_eq!(
            request_timeout_from_secs(2.5, "X"),
            Ok(Duration::from_millis(2500))
        );
        for bad in [0.0, -1.0, 1e300, f64::NAN, f64::INFINITY, 3600.5] {
            let err = request_timeout_from_secs(bad, "COOLIFY_REQUEST_TIMEOUT").unwrap_err();
            assert_eq!(
                err,
                "COOLIFY_REQUEST_TIMEOUT must be a number of seconds from 0.1 to 3600, e.g. 30"
            );
        }
        let mut problems = Vec::new();
        assert_eq!(
            request_timeout_env(Some("soon"), &mut problems),
            DEFAULT_REQUEST_TIMEOUT
        );
        assert_eq!(
            problems,
            ["COOLIFY_REQUEST_TIMEOUT must be a number of seconds, e.g. 30"]
        );
        assert_eq!(
            request_timeout_env(Some(" 12 "), &mut problems),
            Duration::from_secs(12)
        );
    }
}
