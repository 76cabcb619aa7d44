//! The audit line: one JSON line on stderr per `tools/call`, when enabled
//! (`COOLIFY_MCP_AUDIT`; default off on stdio, on over HTTP).
//!
//! Ground floor: imports nothing from the crate; `call` builds one [`AuditLine`] per call.
//!
//! Invariants:
//! - never arguments, never responses: `action` and `uuids` are read from a closed allowlist
//!   of keys and shape-checked, so a new argument holding a secret cannot reach the log;
//! - exactly one line per call, whatever happens; keys in the reference's order (`audit`,
//!   `at`, `tool`, `outcome`, `duration_ms`, then `action`, `uuids`, `instance`, `reason`,
//!   `client_id` when present), then ours: `confirmation` on guarded calls;
//! - a closed stderr never fails a call.

use std::io::Write;
use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Map, Value, json};

/// Argument keys whose values may be logged.
const UUID_KEYS: [&str; 14] = [
    "uuid",
    "app_uuid",
    "storage_uuid",
    "task_uuid",
    "backup_uuid",
    "execution_uuid",
    "deployment_uuid",
    "environment_uuid",
    "project_uuid",
    "server_uuid",
    "destination_uuid",
    "private_key_uuid",
    "github_app_uuid",
    "s3_storage_uuid",
];

/// `^[A-Za-z0-9][A-Za-z0-9-]{0,63}$`
fn uuid_shaped(v: &str) -> bool {
    let b = v.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
}

/// `^[a-z][a-z0-9_]{0,39}$`
fn action_shaped(v: &str) -> bool {
    let b = v.as_bytes();
    !b.is_empty()
        && b.len() <= 40
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// How a call ended, as the audit line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The tool answered normally.
    Ok,
    /// An `Error: …` answer or a failure.
    Error,
    /// A guarded operation was not run (see [`Reason`]).
    Refused,
    /// 2026-07-28: the call returned `input_required` and waits for the human.
    AwaitingConfirmation,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
            Outcome::Refused => "refused",
            Outcome::AwaitingConfirmation => "awaiting_confirmation",
        }
    }
}

/// Why a call was refused or failed validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The arguments failed the tool's input schema (outcome `error`).
    Validation,
    /// The client cannot be asked and the server requires a human.
    NoElicitation,
    /// Asked, but no answer could be had (timeout, transport failure, not an answer).
    Unavailable,
    /// The user declined.
    Declined,
    /// The user cancelled.
    Cancelled,
    /// 2026-07-28: what the operation would do changed since it was confirmed, or the
    /// confirmation was altered or expired.
    StaleConfirmation,
    /// 2026-07-28: the confirmation was already redeemed once (a replay).
    ReplayedConfirmation,
}

impl Reason {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Validation => "validation",
            Reason::NoElicitation => "no_elicitation",
            Reason::Unavailable => "unavailable",
            Reason::Declined => "declined",
            Reason::Cancelled => "cancelled",
            Reason::StaleConfirmation => "stale_confirmation",
            Reason::ReplayedConfirmation => "replayed_confirmation",
        }
    }
}

/// How a guarded operation that ran was let through (our addition to the reference's line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// A human accepted.
    Confirmed,
    /// The client could not be asked and the policy lets it run unconfirmed (stdio default).
    Unconfirmed,
    /// The pre-flight found nothing to confirm.
    NothingToConfirm,
}

impl Confirmation {
    fn as_str(self) -> &'static str {
        match self {
            Confirmation::Confirmed => "confirmed",
            Confirmation::Unconfirmed => "unconfirmed",
            Confirmation::NothingToConfirm => "nothing_to_confirm",
        }
    }
}

/// Where lines go; stderr in production, a buffer in tests.
pub type AuditWriter = Arc<dyn Fn(&str) + Send + Sync>;

/// Whether and where audit lines are written.
#[derive(Clone)]
pub struct Audit {
    writer: Option<AuditWriter>,
}

impl std::fmt::Debug for Audit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Audit")
            .field("enabled", &self.writer.is_some())
            .finish()
    }
}

impl Audit {
    /// No audit lines.
    pub fn off() -> Self {
        Self { writer: None }
    }

    /// Lines to stderr.
    pub fn stderr() -> Self {
        Self::to(Arc::new(|line: &str| {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(line.as_bytes());
            let _ = err.write_all(b"\n");
        }))
    }

    /// Lines to `writer`.
    pub fn to(writer: AuditWriter) -> Self {
        Self {
            writer: Some(writer),
        }
    }

    /// Whether lines are written.
    pub fn enabled(&self) -> bool {
        self.writer.is_some()
    }

    /// Write one line.
    pub fn write(&self, line: &AuditLine<'_>) {
        if let Some(w) = &self.writer {
            w(&line.render());
        }
    }
}

/// `COOLIFY_MCP_AUDIT`: `on`/`true`/`1` or `off`/`false`/`0` (trimmed, any case) win over the
/// transport's default; anything else keeps the default.
pub fn enabled_by(value: Option<&str>, default_on: bool) -> bool {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("on" | "true" | "1") => true,
        Some("off" | "false" | "0") => false,
        _ => default_on,
    }
}

/// What one line says.
#[derive(Debug)]
pub struct AuditLine<'a> {
    /// The tool name as called.
    pub tool: &'a str,
    /// The call's arguments (only allow-listed, shape-checked values are read).
    pub args: &'a Map<String, Value>,
    /// How it ended.
    pub outcome: Outcome,
    /// Milliseconds from the call's start.
    pub duration_ms: u128,
    /// The instance, in fleet mode.
    pub instance: Option<&'a str>,
    /// Why it was refused.
    pub reason: Option<Reason>,
    /// The OAuth client, over HTTP.
    pub client_id: Option<&'a str>,
    /// How a guarded operation that ran was let through.
    pub confirmation: Option<Confirmation>,
}

impl AuditLine<'_> {
    /// The JSON line.
    pub fn render(&self) -> String {
        let mut o = Map::new();
        o.insert("audit".into(), json!("tools/call"));
        o.insert("at".into(), json!(iso_now()));
        o.insert("tool".into(), json!(self.tool));
        o.insert("outcome".into(), json!(self.outcome.as_str()));
        o.insert("duration_ms".into(), json!(self.duration_ms));
        if let Some(a) = self
            .args
            .get("action")
            .and_then(Value::as_str)
            .filter(|a| action_shaped(a))
        {
            o.insert("action".into(), json!(a));
        }
        let mut uuids: Vec<&str> = Vec::new();
        for key in UUID_KEYS {
            if let Some(v) = self.args.get(key).and_then(Value::as_str)
                && uuid_shaped(v)
                && !uuids.contains(&v)
            {
                uuids.push(v);
            }
        }
        if !uuids.is_empty() {
            o.insert("uuids".into(), json!(uuids));
        }
        if let Some(i) = self.instance {
            o.insert("instance".into(), json!(i));
        }
        if let Some(r) = self.reason {
            o.insert("reason".into(), json!(r.as_str()));
        }
        if let Some(c) = self.client_id {
            o.insert("client_id".into(), json!(c));
        }
        if let Some(c) = self.confirmation {
            o.insert("confirmation".into(), json!(c.as_str()));
        }
        Value::Object(o).to_string()
    }
}

/// `new Date().toISOString()`: `2026-12-03T10:20:30.123Z`.
fn iso_now() -> String {
    let ms = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let secs = i64::try_from(ms / 1000).unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allow_listed_shape_checked_values_are_logged() {
        let args: Map<String, Value> = serde_json::from_value(json!({
            "action": "delete", "uuid": "app-api", "value": "s3cr3t",
            "project_uuid": "bad uuid!", "app_uuid": "app-api"
        }))
        .unwrap();
        let line = AuditLine {
            tool: "application",
            args: &args,
            outcome: Outcome::Refused,
            duration_ms: 3,
            instance: None,
            reason: Some(Reason::Declined),
            client_id: Some("mcp_client_x"),
            confirmation: None,
        }
        .render();
        let v: Value = serde_json::from_str(&line).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "audit",
                "at",
                "tool",
                "outcome",
                "duration_ms",
                "action",
                "uuids",
                "reason",
                "client_id"
            ]
        );
        assert_eq!(v["uuids"], json!(["app-api"]));
        assert!(!line.contains("s3cr3t"));
        let at = v["at"].as_str().unwrap();
        assert_eq!(at.len(), 24);
        assert!(at.ends_with('Z') && at.as_bytes()[10] == b'T');
        assert!(enabled_by(Some(" ON "), false));
        assert!(!enabled_by(Some("0"), true));
        assert!(enabled_by(Some("maybe"), true));
    }
}
