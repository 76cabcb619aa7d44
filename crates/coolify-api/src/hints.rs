//! Error messages for non-2xx answers, matching the reference wording.
//!
//! The message is `body.message` (or `HTTP <status>: <reason>`), then ` - field: m1, m2; …` for
//! a non-empty `errors` object, then ` (<hint>)` for known Coolify quirks. Hints are matched on
//! status and the request path (with its query, as the reference sees it). The texts are
//! runtime output of the reference server and form part of the parity contract.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

static SCHEDULED_TASKS: LazyLock<Regex> = LazyLock::new(|| pattern(r"/scheduled-tasks(/|$)"));
static SERVICE_SUB: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"/services/[\w-]+/(applications|databases)"));
static DESTINATIONS: LazyLock<Regex> = LazyLock::new(|| pattern(r"/destinations(/|$)"));
static TAGS: LazyLock<Regex> = LazyLock::new(|| pattern(r"/tags(/|$)"));
static MOVE: LazyLock<Regex> = LazyLock::new(|| pattern(r"/move$"));
static STORAGE_BACKUPS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"/storages/[\w-]+/backups(/run)?$"));
static LONG_ID: LazyLock<Regex> = LazyLock::new(|| pattern(r"/[\w-]{8,}(/|$)"));

/// Compile one of the literal patterns above.
#[expect(
    clippy::expect_used,
    reason = "the patterns are string literals, each compiled by a unit test; an invalid one is a build defect, not a runtime condition"
)]
fn pattern(re: &'static str) -> Regex {
    Regex::new(re).expect("static regex")
}

const UPGRADE: &str =
    "Upgrade: `curl -fsSL https://cdn.coollabs.io/coolify/install.sh | bash -s 4.2.0`";

/// The actionable hint for a known Coolify quirk, if one applies.
pub fn error_hint(status: u16, path: &str) -> Option<String> {
    let hint = match status {
        500 if SCHEDULED_TASKS.is_match(path) => "Known cause: Coolify stores scheduled-task `command` in a varchar(255) column and rejects longer commands with a bodyless 500 — check the command length (limit 255 chars).".to_owned(),
        405 => "Coolify v4.2 moved state-changing endpoints from GET to POST; older versions accept GET only. This client retries automatically, so a 405 reaching you means both methods were rejected — check the endpoint path against your Coolify version.".to_owned(),
        401 | 403 => "Check that COOLIFY_ACCESS_TOKEN is valid and has the required scopes for this operation. On Coolify v4.2+, tokens belonging to a Member-role user are read-only and cannot deploy, start, stop, or modify resources.".to_owned(),
        404 if SERVICE_SUB.is_match(path) => format!("Service sub-resource endpoints (list_containers, update_application) require Coolify v4.2+. Check version with `get_version`. {UPGRADE}"),
        404 if DESTINATIONS.is_match(path) => "Destination endpoints (list_destinations) require Coolify v4.2+ — check with get_version. If your instance is already v4.2+, the server uuid may be wrong or belong to a different resource type. On older instances the destination uuid is visible in the UI under Server > Destinations, and `application`/`database`/`service` create still accept `destination_uuid` there.".to_owned(),
        404 if TAGS.is_match(path) => "Tag endpoints require Coolify v4.2+ (coollabsio/coolify#9275) — check with get_version. If your instance is already v4.2+, the uuid may belong to a different resource type than this route.".to_owned(),
        404 if MOVE.is_match(path) => format!("Moving a resource between environments requires Coolify v4.2+ (POST /move, coollabsio/coolify#8968) — check with `get_version`; on an older instance the route does not exist at all. If your instance is already v4.2+, the resource uuid or the target environment_uuid may be wrong, or belong to a different resource type than this route. {UPGRADE}"),
        404 if STORAGE_BACKUPS.is_match(path) => format!("Volume backup schedules require Coolify v4.2+ (coollabsio/coolify volume backups) — check with `get_version`; on an older instance the route does not exist at all. If your instance is already v4.2+, the resource uuid or storage_uuid may be wrong. Note this is different from `database_backups`, which schedules database dumps and works on older versions. {UPGRADE}"),
        404 if LONG_ID.is_match(path) => "The uuid may belong to a different resource type than requested (e.g. an application uuid used on a service/database route).".to_owned(),
        _ => return None,
    };
    Some(hint)
}

/// `HTTP <status>: <reason>`.
pub(crate) fn plain_status_message(status: u16, reason: &str) -> String {
    format!("HTTP {status}: {reason}")
}

/// The full reference message for a non-2xx answer. `path` is the request path with query.
pub(crate) fn compose_status_message(
    status: u16,
    reason: &str,
    path: &str,
    body: &Value,
) -> String {
    let mut message = match body.get("message") {
        Some(Value::String(m)) if !m.is_empty() => m.clone(),
        // JS truthiness: a non-empty non-string message is stringified.
        Some(
            other @ (Value::Number(_) | Value::Bool(true) | Value::Array(_) | Value::Object(_)),
        ) => js_string(other),
        _ => plain_status_message(status, reason),
    };
    if let Some(Value::Object(errors)) = body.get("errors")
        && !errors.is_empty()
    {
        let details: Vec<String> = errors
            .iter()
            .map(|(field, messages)| {
                let text = match messages {
                    Value::Array(items) => {
                        items.iter().map(js_string).collect::<Vec<_>>().join(", ")
                    }
                    other => js_string(other),
                };
                format!("{field}: {text}")
            })
            .collect();
        message = format!("{message} - {}", details.join("; "));
    }
    if let Some(hint) = error_hint(status, path) {
        message = format!("{message} ({hint})");
    }
    message
}

/// JS `String(value)` for the shapes Coolify sends.
fn js_string(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "null".to_owned(),
        Value::Array(items) => items.iter().map(js_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".to_owned(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_hint_pattern_compiles() {
        for re in [
            &SCHEDULED_TASKS,
            &SERVICE_SUB,
            &DESTINATIONS,
            &TAGS,
            &MOVE,
            &STORAGE_BACKUPS,
            &LONG_ID,
        ] {
            assert!(!LazyLock::force(re).as_str().is_empty());
        }
        assert!(error_hint(500, "/applications/x/scheduled-tasks").is_some());
        assert!(error_hint(500, "/applications/x").is_none());
    }

    #[test]
    fn message_errors_and_hint_compose_like_the_reference() {
        let body = json!({"message": "Validation failed.", "errors": {"name": ["is required", "too short"], "x": "bad"}});
        assert_eq!(
            compose_status_message(422, "Unprocessable Entity", "/projects", &body),
            "Validation failed. - name: is required, too short; x: bad"
        );
        assert_eq!(
            compose_status_message(404, "Not Found", "/applications/app-missing", &json!({})),
            "HTTP 404: Not Found (The uuid may belong to a different resource type than requested (e.g. an application uuid used on a service/database route).)"
        );
        assert!(
            compose_status_message(
                404,
                "Not Found",
                "/applications/x/move",
                &json!({"message": "Not found."})
            )
            .starts_with(
                "Not found. (Moving a resource between environments requires Coolify v4.2+"
            )
        );
        assert_eq!(
            compose_status_message(404, "Not Found", "/teams", &json!({"message": "Nope"})),
            "Nope"
        );
    }
}
