//! List projections ("summaries"), `_actions` hints and `_pagination`.
//! Keys absent upstream are dropped, never emitted as `null` (JS `undefined`).

use serde_json::{Map, Value, json};

/// Keys of a server in `list_servers` summaries.
pub const SERVER: &[&str] = &["uuid", "name", "ip", "status", "is_reachable"];
/// Keys of an application in `list_applications` summaries.
pub const APPLICATION: &[&str] = &[
    "uuid",
    "name",
    "status",
    "fqdn",
    "git_repository",
    "git_branch",
];
/// Keys of a service in `list_services` summaries.
pub const SERVICE: &[&str] = &["uuid", "name", "type", "status", "domains"];
/// Keys of a deployment in deployment lists.
pub const DEPLOYMENT_LIST: &[&str] = &[
    "uuid",
    "deployment_uuid",
    "application_name",
    "status",
    "created_at",
];
/// Keys of a project in `list_projects` summaries.
pub const PROJECT: &[&str] = &["uuid", "name", "description"];
/// Keys of an environment variable in `get_application` summaries.
pub const APP_ENV: &[&str] = &[
    "uuid",
    "key",
    "value",
    "is_buildtime",
    "is_runtime",
    "is_preview",
];

/// Pick `keys` from an object in the given order; non-objects project to `{}`.
pub fn pick(value: &Value, keys: &[&str]) -> Value {
    Value::Object(pick_map(value, keys))
}

/// [`pick`] as a map, for callers that add keys to the projection.
pub fn pick_map(value: &Value, keys: &[&str]) -> Map<String, Value> {
    let mut out = Map::new();
    if let Value::Object(o) = value {
        for k in keys {
            if let Some(v) = o.get(*k) {
                out.insert((*k).to_string(), v.clone());
            }
        }
    }
    out
}

/// Project every element of an array (a non-array projects to `[]`).
pub fn pick_all(value: &Value, keys: &[&str]) -> Value {
    Value::Array(as_array(value).iter().map(|v| pick(v, keys)).collect())
}

/// The elements of an array value, or none.
pub fn as_array(value: &Value) -> &[Value] {
    value.as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// Database summary: `type` falls back to `database_type`.
pub fn database(value: &Value) -> Value {
    let mut out = Map::new();
    let get = |k: &str| value.get(k).cloned();
    for k in ["uuid", "name"] {
        if let Some(v) = get(k) {
            out.insert(k.into(), v);
        }
    }
    if let Some(t) = get("type").filter(truthy).or_else(|| get("database_type")) {
        out.insert("type".into(), t);
    }
    for k in [
        "status",
        "is_public",
        "environment_uuid",
        "environment_name",
        "environment_id",
    ] {
        if let Some(v) = get(k) {
            out.insert(k.into(), v);
        }
    }
    Value::Object(out)
}

/// The essential deployment projection (get, list_for_app, polling).
pub fn deployment_essential(d: &Value) -> Value {
    let mut map = pick_map(
        d,
        &[
            "uuid",
            "deployment_uuid",
            "application_uuid",
            "application_name",
            "server_name",
            "status",
            "commit",
            "force_rebuild",
            "is_webhook",
            "is_api",
            "created_at",
            "updated_at",
        ],
    );
    let logs = d.get("logs").filter(|l| truthy(l));
    map.insert("logs_available".into(), Value::Bool(logs.is_some()));
    if let Some(l) = logs {
        let n = match l {
            Value::String(s) => crate::untrusted::utf16_len(s),
            other => crate::untrusted::utf16_len(&other.to_string()),
        };
        map.insert(
            "logs_info".into(),
            json!(format!(
                "Logs available ({n} chars). Use lines param to retrieve."
            )),
        );
    }
    Value::Object(map)
}

/// JS truthiness for JSON values.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// The string value of a key, or "".
pub fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One `_actions` entry.
pub fn action(tool: &str, args: Value, hint: &str) -> Value {
    json!({"tool": tool, "args": args, "hint": hint})
}

/// `_pagination` for a list tool; `None` when there is nothing to point at.
/// Pages are JS numbers (`page + 1` of any page a client may send never overflows).
pub fn pagination(
    tool: &str,
    page: Option<f64>,
    per_page: Option<f64>,
    count: usize,
) -> Option<Value> {
    let p = page.unwrap_or(1.0);
    let pp = per_page.unwrap_or(50.0);
    let link = |page: f64| json!({"tool": tool, "args": {"page": crate::json::number(page), "per_page": crate::json::number(pp)}});
    let mut out = Map::new();
    if p > 1.0 {
        out.insert("prev".into(), link(p - 1.0));
    }
    if count > 0 && count as f64 >= pp {
        out.insert("next".into(), link(p + 1.0));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pagination_follows_the_reference() {
        assert_eq!(pagination("t", None, None, 3), None);
        let both = pagination("t", Some(2.0), Some(2.0), 2).unwrap();
        assert_eq!(both["next"]["args"]["page"], 3);
        assert_eq!(both["prev"]["args"]["page"], 1);
        assert_eq!(
            pagination("t", Some(2.0), Some(2.0), 1)
                .unwrap()
                .get("next"),
            None
        );
    }
}
