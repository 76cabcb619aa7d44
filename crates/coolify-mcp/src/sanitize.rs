//! The central sanitizer: every JSON body from Coolify passes through here
//! before any tool, resource or confirmation message sees it.
//!
//! Rules, applied at every depth, key order preserved, `null` kept ("no secret set"):
//! 1. ALWAYS keys are masked even with `reveal`;
//! 2. a `server` key holding an object is projected to `{uuid,name,ip,status,is_reachable}`;
//! 3. unless `reveal`, SENSITIVE keys are masked;
//! 4. unless `reveal`, `environment_variables` arrays have `value`/`real_value` masked.

use serde_json::{Map, Value};

/// The mask every secret is replaced with.
pub const MASK: &str = "***";

/// Masked even when the caller asked for `reveal`.
pub const ALWAYS: &[&str] = &[
    "private_key",
    "sentinel_token",
    "logdrain_axiom_api_key",
    "logdrain_custom_config",
    "logdrain_newrelic_license_key",
    "client_secret",
    "webhook_secret",
    // Beyond the reference (deliberate): a cloud-provider token (`/cloud-tokens`) and an S3
    // secret key (backup destinations) have no legitimate read through this surface either.
    "token",
    "secret",
];

/// Masked unless the caller asked for `reveal`.
pub const SENSITIVE: &[&str] = &[
    "manual_webhook_secret_github",
    "manual_webhook_secret_gitlab",
    "manual_webhook_secret_gitea",
    "manual_webhook_secret_bitbucket",
    "http_basic_auth_password",
    "postgres_password",
    "mysql_password",
    "mysql_root_password",
    "mariadb_password",
    "mariadb_root_password",
    "mongo_initdb_root_password",
    "redis_password",
    "keydb_password",
    "dragonfly_password",
    "clickhouse_admin_password",
    "internal_db_url",
    "external_db_url",
    "docker_compose_raw",
    "docker_compose",
    "docker_compose_pr_raw",
    "docker_compose_pr",
    "custom_labels",
];

const SERVER_KEYS: &[&str] = &["uuid", "name", "ip", "status", "is_reachable"];

/// Whether plaintext secrets may be returned for this one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reveal {
    /// Secrets are masked (the default).
    Masked,
    /// Secrets are returned as stored (`reveal: true`).
    Plaintext,
}

/// Sanitize a value in place.
pub fn sanitize(value: &mut Value, reveal: Reveal) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| sanitize(v, reveal)),
        Value::Object(map) => sanitize_object(map, reveal),
        _ => {}
    }
}

/// Sanitize and return.
pub fn sanitized(mut value: Value, reveal: Reveal) -> Value {
    sanitize(&mut value, reveal);
    value
}

fn sanitize_object(map: &mut Map<String, Value>, reveal: Reveal) {
    for (key, v) in map.iter_mut() {
        let k = key.as_str();
        if ALWAYS.contains(&k) {
            if !v.is_null() {
                *v = Value::String(MASK.into());
            }
        } else if k == "server" && v.is_object() {
            let Value::Object(server) = std::mem::take(v) else {
                unreachable!("checked is_object")
            };
            let projected: Map<String, Value> = SERVER_KEYS
                .iter()
                .filter_map(|f| server.get(*f).map(|x| (f.to_string(), x.clone())))
                .collect();
            *v = Value::Object(projected);
        } else if reveal == Reveal::Masked && SENSITIVE.contains(&k) {
            if !v.is_null() {
                *v = Value::String(MASK.into());
            }
        } else if reveal == Reveal::Masked && k == "environment_variables" && v.is_array() {
            if let Value::Array(items) = v {
                for item in items.iter_mut() {
                    if let Value::Object(env) = item {
                        for field in ["value", "real_value"] {
                            if let Some(x) = env.get_mut(field).filter(|x| !x.is_null()) {
                                *x = Value::String(MASK.into());
                            }
                        }
                        sanitize_object(env, reveal);
                    } else {
                        sanitize(item, reveal);
                    }
                }
            }
        } else {
            sanitize(v, reveal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn item_18_always_server_projection_and_nested_env_vars() {
        let v = json!({
            "private_key": "k", "postgres_password": "p", "nothing": null, "webhook_secret": null,
            "server": {"uuid": "s", "name": "n", "ip": "1", "status": "ok", "is_reachable": true, "sentinel_token": "t", "x": 1},
            "nested": [{"environment_variables": [{"key": "A", "value": "v", "real_value": "r", "is_preview": false}, {"key": "B", "value": null}]}]
        });
        let masked = sanitized(v.clone(), Reveal::Masked);
        assert_eq!(
            masked,
            json!({
                "private_key": "***", "postgres_password": "***", "nothing": null, "webhook_secret": null,
                "server": {"uuid": "s", "name": "n", "ip": "1", "status": "ok", "is_reachable": true},
                "nested": [{"environment_variables": [{"key": "A", "value": "***", "real_value": "***", "is_preview": false}, {"key": "B", "value": null}]}]
            })
        );
        let revealed = sanitized(v, Reveal::Plaintext);
        assert_eq!(revealed["private_key"], "***");
        assert_eq!(revealed["postgres_password"], "p");
        assert_eq!(revealed["server"].as_object().unwrap().len(), 5);
        assert_eq!(
            revealed["nested"][0]["environment_variables"][0]["value"],
            "v"
        );
    }
}
