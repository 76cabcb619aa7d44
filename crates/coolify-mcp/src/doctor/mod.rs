//! `coolify-mcp doctor [--json] [--header "K: V"]`: diagnose the environment the server would
//! run with and say, per problem, the one-line fix.
//!
//! A leaf command beside the server: it reads the configuration through [`crate::config`] and
//! probes Coolify through `coolify_api::Prober`; nothing imports it but `main`.
//!
//! Invariants:
//! - the report names variables and says set/unset, never a value: no token, header value or
//!   secret reaches stdout (a test greps the output for the token);
//! - every probe is a GET bounded by [`PROBE_TIMEOUT`] (10 s);
//! - the exit code is 0 when no check failed or was inconclusive (warnings do not gate), 1
//!   otherwise; a bad argument prints the usage and exits 2 (`--help` exits 0).

mod checks;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::config::{self, Command};
pub use checks::{TESTED_RANGE, TESTED_RANGE_LABEL};

/// Every doctor probe times out after this long.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// The usage text (stdout, like the reference).
pub const USAGE: &str = "usage: coolify-mcp doctor [--json] [--header \"Key: Value\"]\nReads COOLIFY_BASE_URL, COOLIFY_ACCESS_TOKEN (or COOLIFY_ACCESS_TOKEN_FILE), COOLIFY_INSTANCES and the CF_ACCESS_* pair from the environment. Network probes time out after 10s each.\n";

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Verified.
    Pass,
    /// Survivable; does not fail the run.
    Warn,
    /// Broken; fails the run.
    Fail,
    /// Not run because an earlier check did not pass.
    Skipped,
    /// Could not be verified; fails the run (a diagnostic exists to confirm).
    Inconclusive,
}

impl Status {
    fn glyph(self) -> char {
        match self {
            Status::Pass => '✓',
            Status::Warn => '!',
            Status::Fail => '✗',
            Status::Skipped => '-',
            Status::Inconclusive => '?',
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// `config`, `reachability`, `token`, `version`, `abilities` or `api-shape`.
    pub check: &'static str,
    /// The outcome.
    pub status: Status,
    /// What was found (never a secret).
    pub detail: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// The checks of one instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstanceReport {
    /// The instance name (`default` for the classic variables).
    pub instance: String,
    /// Its checks, in order.
    pub checks: Vec<Check>,
}

/// The whole report (`--json` prints it as is).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// No check failed or was inconclusive.
    pub ok: bool,
    /// One entry per configured instance.
    pub instances: Vec<InstanceReport>,
}

/// What the doctor's arguments ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DoctorCommand {
    /// Run the checks.
    Run {
        /// Print JSON instead of text.
        json: JsonOutput,
        /// `--header` values, as given.
        headers: Vec<String>,
    },
    /// Print the usage and exit with this code (0 for `--help`, 2 otherwise).
    Usage(u8),
}

/// Report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonOutput {
    /// Human-readable lines.
    Text,
    /// `--json`.
    Json,
}

/// Parse the arguments after `doctor`.
pub fn parse_args(args: &[String]) -> DoctorCommand {
    let mut json = JsonOutput::Text;
    let mut headers = Vec::new();
    let mut unknown = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => json = JsonOutput::Json,
            "--header" => match it.next() {
                Some(v) => headers.push(v.clone()),
                None => unknown.push(arg.as_str()),
            },
            other => unknown.push(other),
        }
    }
    if unknown.is_empty() {
        DoctorCommand::Run { json, headers }
    } else if unknown.iter().any(|a| *a == "--help" || *a == "-h") {
        DoctorCommand::Usage(0)
    } else {
        DoctorCommand::Usage(2)
    }
}

/// Build the per-instance targets from the environment and `--header` values: the instances
/// the server would run with when the configuration parses, else the classic default instance
/// with the configuration's problems.
fn targets(env: &BTreeMap<String, String>, headers: &[String]) -> Vec<checks::Target> {
    let args: Vec<String> = headers
        .iter()
        .flat_map(|h| ["--header".to_string(), h.clone()])
        .collect();
    match config::parse(env, &args) {
        Ok(Command::Run(cfg)) => cfg
            .instances
            .iter()
            .map(|spec| {
                let (token, token_detail, problems) = match checks::read_token(&spec.token) {
                    Ok((t, d)) => (Some(t), d, Vec::new()),
                    Err(p) => (None, String::new(), vec![p]),
                };
                // The server falls back to its default URL: doctor checks that one too, and
                // says so as a warning (not a failure: the server starts and uses it).
                let implicit_url =
                    !env.contains_key("COOLIFY_BASE_URL") && !env.contains_key("COOLIFY_INSTANCES");
                let mut warnings = cfg.warnings.clone();
                if implicit_url {
                    warnings.insert(
                        0,
                        format!(
                            "COOLIFY_BASE_URL is unset, so the default {} is used (as the server does); set it if Coolify runs elsewhere",
                            spec.url
                        ),
                    );
                }
                checks::Target {
                    name: spec.name.clone(),
                    base_url: Some(spec.url.clone()),
                    token,
                    headers: spec.headers.clone(),
                    problems,
                    warnings,
                    token_detail,
                }
            })
            .collect(),
        Ok(Command::Help | Command::Version) => Vec::new(),
        Err(e) => {
            let get = |k: &str| env.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
            let url_broken = e.problems.iter().any(|p| p.contains("COOLIFY_BASE_URL"));
            let base_url = get("COOLIFY_BASE_URL")
                .filter(|_| !url_broken)
                .map(|u| u.strip_suffix('/').unwrap_or(u).to_string());
            let mut problems = Vec::new();
            if get("COOLIFY_BASE_URL").is_none() {
                problems.push("COOLIFY_BASE_URL is unset".to_string());
            }
            problems.extend(e.problems);
            let token = get("COOLIFY_ACCESS_TOKEN").map(str::to_string);
            vec![checks::Target {
                name: "default".into(),
                base_url,
                token,
                headers: Vec::new(),
                problems,
                warnings: Vec::new(),
                token_detail: String::new(),
            }]
        }
    }
}

/// Run every check.
pub async fn run(env: &BTreeMap<String, String>, headers: &[String]) -> Report {
    let mut instances = Vec::new();
    for mut target in targets(env, headers) {
        let prober = match target.base_url.as_deref() {
            Some(url) => {
                match coolify_api::Prober::new(url, target.headers.clone(), PROBE_TIMEOUT) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        target.problems.push(e.to_string());
                        None
                    }
                }
            }
            None => None,
        };
        let checks = checks::run(&target, prober.as_ref()).await;
        instances.push(InstanceReport {
            instance: target.name,
            checks,
        });
    }
    let ok = instances
        .iter()
        .flat_map(|i| &i.checks)
        .all(|c| !matches!(c.status, Status::Fail | Status::Inconclusive));
    Report { ok, instances }
}

impl Report {
    /// The exit code: 0 when ok, else 1.
    pub fn exit_code(&self) -> u8 {
        u8::from(!self.ok)
    }

    /// The report as printed.
    pub fn render(&self, format: JsonOutput) -> String {
        if format == JsonOutput::Json {
            let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
            text.push('\n');
            return text;
        }
        let mut out = String::new();
        for instance in &self.instances {
            out.push_str(&format!(
                "coolify-mcp doctor — instance: {}\n",
                instance.instance
            ));
            for c in &instance.checks {
                out.push_str(&format!(
                    "  {} {}: {}\n",
                    c.status.glyph(),
                    c.check,
                    c.detail
                ));
                if let Some(fix) = &c.fix {
                    out.push_str(&format!("      fix: {fix}\n"));
                }
            }
        }
        let all: Vec<&Check> = self.instances.iter().flat_map(|i| &i.checks).collect();
        let count = |s: Status| all.iter().filter(|c| c.status == s).count();
        let (fails, warns, inconclusive) = (
            count(Status::Fail),
            count(Status::Warn),
            count(Status::Inconclusive),
        );
        out.push_str(&if !self.ok {
            format!(
                "{fails} failure(s), {warns} warning(s), {inconclusive} inconclusive — details above.\n"
            )
        } else if warns == 0 {
            "All checks passed.\n".to_string()
        } else {
            format!("Passed with {warns} warning(s).\n")
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arguments_are_json_header_or_usage() {
        assert_eq!(
            parse_args(&args(&["--json", "--header", "X-A: 1"])),
            DoctorCommand::Run {
                json: JsonOutput::Json,
                headers: vec!["X-A: 1".into()]
            }
        );
        assert_eq!(parse_args(&args(&["--help"])), DoctorCommand::Usage(0));
        assert_eq!(parse_args(&args(&["--jsn"])), DoctorCommand::Usage(2));
        assert_eq!(parse_args(&args(&["--header"])), DoctorCommand::Usage(2));
    }
}
