//! `COOLIFY_INSTANCES` (fleet mode): every entry is validated and every problem
//! names its entry as `COOLIFY_INSTANCES[i]` without echoing a token.

use std::time::Duration;

use super::{InstanceSpec, REQUEST_TIMEOUT_VAR, TokenSource, clip, request_timeout_from_secs};

fn valid_instance_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// Append the `COOLIFY_INSTANCES` entries to `out`. An entry without its own
/// `request_timeout` (seconds) inherits `default_timeout` (`COOLIFY_REQUEST_TIMEOUT`).
pub(super) fn parse_instances(
    raw: &str,
    default_timeout: Duration,
    out: &mut Vec<InstanceSpec>,
    problems: &mut Vec<String>,
) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(raw) else {
        problems.push("COOLIFY_INSTANCES is not valid JSON. Expected an array like [{\"name\":\"prod\",\"url\":\"https://coolify.example.com\",\"token\":\"...\"}]".into());
        return;
    };
    let Some(entries) = value.as_array() else {
        problems
            .push("COOLIFY_INSTANCES must be a JSON array of {name, url, token} objects".into());
        return;
    };
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("COOLIFY_INSTANCES[{i}]");
        let Some(obj) = entry.as_object() else {
            problems.push(format!("{at} is not an object"));
            continue;
        };
        let name = obj.get("name").and_then(|v| v.as_str()).unwrap_or_default();
        if !valid_instance_name(name) {
            problems.push(format!("{at} needs a \"name\": letters, digits, \"_\", \"-\" or \".\" (max 64 chars), starting with a letter or digit"));
            continue;
        }
        if name == "all" {
            problems.push(format!("{at}: \"all\" is reserved as the fan-out selector"));
            continue;
        }
        let url = obj.get("url").and_then(|v| v.as_str()).unwrap_or_default();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            problems.push(format!(
                "{at} (\"{name}\") needs a \"url\" starting with http:// or https://"
            ));
            continue;
        }
        let token = obj
            .get("token")
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        if token.is_empty() {
            problems.push(format!("{at} (\"{name}\") needs a \"token\""));
            continue;
        }
        if token.contains("${") {
            problems.push(format!("{at} (\"{name}\") token contains an unexpanded ${{VAR}} placeholder — set the real value"));
            continue;
        }
        let mut headers = Vec::new();
        match obj.get("headers") {
            None | Some(serde_json::Value::Null) => {}
            Some(serde_json::Value::Object(map)) => {
                for (k, v) in map {
                    match v.as_str() {
                        Some(s) => headers.push((k.clone(), s.to_string())),
                        None => problems.push(format!(
                            "{at} (\"{name}\") header \"{}\" must be a string",
                            clip(k, 40)
                        )),
                    }
                }
            }
            Some(_) => problems.push(format!(
                "{at} (\"{name}\") \"headers\" must be an object of header name → value"
            )),
        }
        let (request_timeout, timeout_setting) = match obj.get("request_timeout") {
            None | Some(serde_json::Value::Null) => {
                (default_timeout, REQUEST_TIMEOUT_VAR.to_string())
            }
            Some(v) => {
                let setting = format!("{at}.request_timeout");
                match v
                    .as_f64()
                    .map(|secs| request_timeout_from_secs(secs, &setting))
                {
                    Some(Ok(t)) => (t, setting),
                    Some(Err(problem)) => {
                        problems.push(problem);
                        continue;
                    }
                    None => {
                        problems.push(format!("{setting} must be a number of seconds, e.g. 30"));
                        continue;
                    }
                }
            }
        };
        if out.iter().any(|i| i.name == name) {
            problems.push(format!("Instance name \"{name}\" is configured twice"));
            continue;
        }
        out.push(InstanceSpec {
            headers,
            request_timeout,
            timeout_setting,
            ..InstanceSpec::new(
                name,
                url.strip_suffix('/').unwrap_or(url),
                TokenSource::Value(token.to_string()),
            )
        });
    }
}
