//! Name resolution: what looks like a uuid, and an application or server found
//! by uuid, exact name/domain/IP, then a unique substring match.
//!
//! Invariant: several exact matches, or several partial ones without an exact match, are an
//! ambiguity error listing the candidates; nothing is ever picked at random.

use serde_json::Value;

use super::ToolError;
use super::reads::{list_applications_raw, list_servers_raw};
use crate::instances::Client;
use crate::projection::{as_array, str_of};

/// `^[a-z0-9]{20,}$` (case-insensitive) or the 8-4-4-4-12 hex form.
pub fn looks_like_uuid(q: &str) -> bool {
    if q.len() >= 20 && q.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return true;
    }
    let parts: Vec<&str> = q.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn normalize_host(v: &str) -> String {
    let l = v.trim().to_lowercase();
    let l = l
        .strip_prefix("https://")
        .or_else(|| l.strip_prefix("http://"))
        .unwrap_or(&l)
        .to_string();
    l.trim_end_matches('/').to_string()
}

/// Resolve an application by uuid, exact name/fqdn, then substring.
pub async fn resolve_application(client: &Client, query: &str) -> Result<String, ToolError> {
    if looks_like_uuid(query) {
        return Ok(query.to_string());
    }
    let apps = list_applications_raw(client, None, None).await?;
    let q = query.to_lowercase();
    let qh = normalize_host(query);
    pick_one(
        as_array(&apps),
        query,
        ("application", "applications"),
        |a| {
            str_of(a, "name").to_lowercase() == q
                || str_of(a, "fqdn")
                    .split(',')
                    .any(|e| !e.trim().is_empty() && normalize_host(e) == qh)
        },
        |a| {
            str_of(a, "name").to_lowercase().contains(&q)
                || str_of(a, "fqdn").to_lowercase().contains(&q)
        },
        |a| {
            let fqdn = Some(str_of(a, "fqdn"))
                .filter(|f| !f.is_empty())
                .unwrap_or("no domain");
            format!("{} ({fqdn})", str_of(a, "name"))
        },
    )
}

/// Resolve a server by uuid, exact name/ip, then substring.
pub async fn resolve_server(client: &Client, query: &str) -> Result<String, ToolError> {
    if looks_like_uuid(query) {
        return Ok(query.to_string());
    }
    let servers = list_servers_raw(client, None, None).await?;
    let q = query.to_lowercase();
    pick_one(
        as_array(&servers),
        query,
        ("server", "servers"),
        |s| str_of(s, "name").to_lowercase() == q || str_of(s, "ip").to_lowercase() == q,
        |s| {
            str_of(s, "name").to_lowercase().contains(&q)
                || str_of(s, "ip").to_lowercase().contains(&q)
        },
        |s| format!("{} ({})", str_of(s, "name"), str_of(s, "ip")),
    )
}

/// The uuid of the one item matching `query`: a single exact match wins; several exact
/// matches are ambiguous; otherwise the partial matches must be exactly one. `kind` is the
/// (singular, plural) noun of the error texts, `label` names an item in the ambiguity list.
fn pick_one(
    items: &[Value],
    query: &str,
    kind: (&str, &str),
    exact: impl Fn(&Value) -> bool,
    partial: impl Fn(&Value) -> bool,
    label: impl Fn(&Value) -> String,
) -> Result<String, ToolError> {
    let exact: Vec<&Value> = items.iter().filter(|v| exact(v)).collect();
    let matches: Vec<&Value> = match exact.len() {
        0 => items.iter().filter(|v| partial(v)).collect(),
        _ => exact,
    };
    match matches.as_slice() {
        [] => Err(ToolError::Message(format!(
            "No {} found matching \"{query}\"",
            kind.0
        ))),
        [one] => Ok(str_of(one, "uuid").to_string()),
        _ => {
            let list: Vec<String> = matches.iter().map(|v| label(v)).collect();
            Err(ToolError::Message(format!(
                "Multiple {} match \"{query}\": {}. Please be more specific or use a UUID.",
                kind.1,
                list.join(", ")
            )))
        }
    }
}
