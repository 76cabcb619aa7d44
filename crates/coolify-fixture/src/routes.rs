//! Routing of `/api/v1/...` requests to canned answers.
//!
//! Pure: `route` maps (method, raw path, query, mutable fixture state) to a [`Reply`]; the HTTP
//! layer in `fixture.rs` does I/O and logging. The raw path is split on `/` first and each
//! segment then decoded once (as Coolify's router does), so `app%2Dapi` is `app-api` while an
//! encoded id such as `..%2Fservers` stays one unknown segment — which is what makes the
//! client's path-injection tests meaningful.

use serde_json::{Value, json};

use crate::data;

/// What the fixture answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// JSON body with a status.
    Json(u16, Value),
    /// `text/plain` body with a status.
    Text(u16, String),
    /// Never answer (the connection stays open until the fixture stops).
    Hang,
}

/// How unknown ids are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotFoundMode {
    /// Like the reference fixture: HTTP 200 `{"message":"Not found."}`.
    #[default]
    Ok200,
    /// Like real Coolify: HTTP 404 `{"message":"<Kind> not found."}`.
    Real404,
}

/// Mutable inputs of the router (held under the fixture's lock only while routing).
#[derive(Debug)]
pub(crate) struct RouteState<'a> {
    pub not_found: NotFoundMode,
    pub poison: Option<&'a str>,
    /// Status sequence of `dep-new-1` and how many times it was read so far.
    pub new_deployment: &'a mut Option<(Vec<String>, usize)>,
}

fn json(value: Value) -> Reply {
    Reply::Json(200, value)
}

pub(crate) fn find(list: Value, key: &str, id: &str, kind: &str, mode: NotFoundMode) -> Reply {
    let found = match list {
        Value::Array(rows) => rows
            .into_iter()
            .find(|row| row.get(key).and_then(Value::as_str) == Some(id)),
        _ => None,
    };
    match (found, mode) {
        (Some(row), _) => json(row),
        (None, NotFoundMode::Ok200) => json(json!({ "message": "Not found." })),
        (None, NotFoundMode::Real404) => {
            Reply::Json(404, json!({ "message": format!("{kind} not found.") }))
        }
    }
}

fn logs_for(uuid: &str, poison: Option<&str>) -> String {
    match (uuid, poison) {
        ("app-api", _) => data::CRASHING_LOGS.to_owned(),
        (data::POISONED_APP_UUID, Some(poison)) => format!("{}\n{poison}", data::HEALTHY_LOGS),
        _ => data::HEALTHY_LOGS.to_owned(),
    }
}

fn query_u64(query: Option<&str>, key: &str) -> Option<u64> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

fn app_id(uuid: &str) -> Option<i64> {
    data::applications()
        .as_array()?
        .iter()
        .find(|a| a.get("uuid").and_then(Value::as_str) == Some(uuid))?
        .get("id")?
        .as_i64()
}

/// Answer one `/api/v1` request. `p` is the raw path after `/api/v1` (no query).
pub(crate) fn route(
    method: &str,
    p: &str,
    query: Option<&str>,
    state: &mut RouteState<'_>,
) -> Reply {
    if method == "GET" {
        // Each segment is decoded once, as Coolify's router does, after splitting on `/`: an
        // encoded `%2F` stays inside its segment (an unknown id, never a path step).
        let decoded: Vec<String> = p
            .trim_start_matches('/')
            .split('/')
            .map(|s| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            })
            .collect();
        let segs: Vec<&str> = decoded.iter().map(String::as_str).collect();
        if let Some(reply) = get(&segs, query, state) {
            return reply;
        }
    }
    // Mutations: acknowledge plausibly, change nothing — except cancelling `dep-new-1` while it
    // walks a configured status sequence, which answers like Coolify and stops the walk.
    if method == "POST"
        && let Some(reply) = cancel_new_deployment(p, state)
    {
        return reply;
    }
    // Like the reference fixture, any other POST under `/deploy…` (including
    // `/deployments/{u}/cancel`) answers with the queued deployment.
    if method == "POST" && p.starts_with("/deploy") {
        return json(
            json!({ "deployments": [{ "message": "Deployment queued.", "deployment_uuid": data::NEW_DEPLOYMENT_UUID }] }),
        );
    }
    if method == "POST"
        && ["/start", "/stop", "/restart"]
            .iter()
            .any(|a| p.contains(a))
    {
        return json(json!({ "message": "Requested." }));
    }
    if method != "GET" {
        return Reply::Json(201, json!({ "message": "ok", "uuid": "fixture-created" }));
    }
    // Coolify's routing catch-all.
    Reply::Json(
        404,
        json!({ "message": "Not found.", "docs": "https://coolify.io/docs" }),
    )
}

/// `POST /deployments/dep-new-1/cancel` when `dep-new-1` has a status sequence: Coolify's
/// answers. A deployment whose current status (the last one read, else the first) is terminal
/// cannot be cancelled (400); otherwise every later read is `cancelled-by-user`.
fn cancel_new_deployment(p: &str, state: &mut RouteState<'_>) -> Option<Reply> {
    let uuid = p
        .strip_prefix("/deployments/")?
        .strip_suffix("/cancel")
        .filter(|u| *u == data::NEW_DEPLOYMENT_UUID)?;
    let (statuses, reads) = state.new_deployment.as_mut()?;
    let current = statuses
        .get(reads.saturating_sub(1))
        .or(statuses.last())
        .cloned()
        .unwrap_or_default();
    if matches!(
        current.as_str(),
        "finished" | "failed" | "cancelled" | "cancelled-by-user"
    ) {
        return Some(Reply::Json(
            400,
            json!({ "message": format!("Deployment cannot be cancelled. Current status: {current}") }),
        ));
    }
    *statuses = vec![data::CANCELLED_BY_USER.to_owned()];
    *reads = 0;
    Some(json(json!({
        "message": "Deployment cancelled successfully.",
        "deployment_uuid": uuid,
        "status": data::CANCELLED_BY_USER,
    })))
}

/// A GET route, by first segment; `None` falls through to the catch-all.
fn get(segs: &[&str], query: Option<&str>, state: &mut RouteState<'_>) -> Option<Reply> {
    match segs.first().copied() {
        // Pre-4.2 Coolify routes `GET /deploy`; without uuid or tag its controller refuses.
        Some("deploy") if segs.len() == 1 && query.is_none() => Some(Reply::Json(
            400,
            json!({ "message": "You must provide uuid or tag." }),
        )),
        Some("servers" | "destinations" | "projects") => get_placement(segs, state.not_found),
        Some("applications" | "databases" | "services") => {
            crate::routes_more::sub_resource(segs, state.not_found)
                .or_else(|| get_resource(segs, state))
        }
        Some("deployments") => get_deployment(segs, query, state),
        _ => crate::routes_more::integrations(segs, state.not_found)
            .or_else(|| get_misc(segs, state.not_found)),
    }
}

/// Servers, destinations, projects and their environments.
fn get_placement(segs: &[&str], mode: NotFoundMode) -> Option<Reply> {
    let reply = match segs {
        ["servers"] => json(data::servers()),
        ["servers", u] => find(data::servers(), "uuid", u, "Server", mode),
        ["servers", _, "resources"] => {
            let rows: Vec<Value> = rows(data::applications())
                .iter()
                .map(|a| json!({ "uuid": a["uuid"], "name": a["name"], "type": "application", "status": a["status"] }))
                .collect();
            json(Value::Array(rows))
        }
        ["servers", u, "destinations"] => json(
            json!([{ "uuid": "dest-coolify", "name": "coolify", "network": "coolify", "server_uuid": u }]),
        ),
        ["destinations"] => json(
            json!([{ "uuid": "dest-coolify", "name": "coolify", "network": "coolify", "server_uuid": "srv0-localhost" }]),
        ),
        ["servers", _, "domains"] => {
            let rows: Vec<Value> = rows(data::applications())
                .iter()
                .map(|a| json!({ "ip": "198.51.100.10", "domains": [a["fqdn"]] }))
                .collect();
            json(Value::Array(rows))
        }
        ["projects"] => json(data::projects()),
        ["projects", u] => find(data::projects(), "uuid", u, "Project", mode),
        ["projects", u, "environments"] => {
            match find(data::projects(), "uuid", u, "Project", mode) {
                Reply::Json(200, project) if project.get("environments").is_some() => {
                    json(project["environments"].clone())
                }
                other => other,
            }
        }
        ["projects", u, env] => match find(data::projects(), "uuid", u, "Project", mode) {
            Reply::Json(200, project) if project.get("environments").is_some() => {
                let by_name = find(
                    project["environments"].clone(),
                    "name",
                    env,
                    "Environment",
                    mode,
                );
                match by_name {
                    Reply::Json(200, ref row) if row.get("uuid").is_some() => by_name,
                    _ => find(
                        project["environments"].clone(),
                        "uuid",
                        env,
                        "Environment",
                        mode,
                    ),
                }
            }
            other => other,
        },
        _ => return None,
    };
    Some(reply)
}

/// Applications, databases and services, with their logs and env vars.
fn get_resource(segs: &[&str], state: &RouteState<'_>) -> Option<Reply> {
    let mode = state.not_found;
    let reply = match segs {
        ["applications"] => json(data::applications()),
        ["applications", u, "logs"] => json(json!({ "logs": logs_for(u, state.poison) })),
        ["applications", u, "envs"] => json(data::app_envs(u)),
        ["applications", u] => find(data::applications(), "uuid", u, "Application", mode),
        ["databases"] => json(data::databases()),
        ["databases", _, "logs"] => json(json!({ "logs": data::HEALTHY_LOGS })),
        ["databases", _, "envs"] => json(json!([])),
        ["databases", u] => find(data::databases(), "uuid", u, "Database", mode),
        ["services"] => json(data::services()),
        ["services", _, "logs"] => json(json!({ "logs": data::HEALTHY_LOGS })),
        ["services", u] => find(data::services(), "uuid", u, "Service", mode),
        _ => return None,
    };
    Some(reply)
}

/// Deployments: the running list, per application (with skip/take), and one deployment
/// (`dep-new-1` walks through its configured status sequence).
fn get_deployment(segs: &[&str], query: Option<&str>, state: &mut RouteState<'_>) -> Option<Reply> {
    let mode = state.not_found;
    let reply = match segs {
        ["deployments"] => {
            let running: Vec<Value> = rows(data::deployments())
                .into_iter()
                .filter(|d| d["status"] != "finished")
                .collect();
            json(Value::Array(running))
        }
        ["deployments", "applications", u] => {
            let id = app_id(u);
            let all: Vec<Value> = rows(data::deployments())
                .into_iter()
                .filter(|d| id.is_some() && d["application_id"].as_i64() == id)
                .collect();
            let count = all.len();
            let skip = query_u64(query, "skip").unwrap_or(0) as usize;
            let take = query_u64(query, "take").map_or(usize::MAX, |t| t as usize);
            let page: Vec<Value> = all.into_iter().skip(skip).take(take).collect();
            json(json!({ "count": count, "deployments": page }))
        }
        ["deployments", u] if *u == data::NEW_DEPLOYMENT_UUID => {
            if let Some((statuses, reads)) = state.new_deployment.as_mut() {
                let status = statuses
                    .get(*reads)
                    .or(statuses.last())
                    .cloned()
                    .unwrap_or_default();
                *reads += 1;
                return Some(json(data::new_deployment(&status)));
            }
            find(
                data::deployments(),
                "deployment_uuid",
                u,
                "Deployment",
                mode,
            )
        }
        ["deployments", u] => find(
            data::deployments(),
            "deployment_uuid",
            u,
            "Deployment",
            mode,
        ),
        _ => return None,
    };
    Some(reply)
}

/// Version, health, keys and cloud tokens.
fn get_misc(segs: &[&str], mode: NotFoundMode) -> Option<Reply> {
    let reply = match segs {
        ["version"] => Reply::Text(200, data::FIXTURE_VERSION.to_owned()),
        ["health"] => Reply::Text(200, "OK".to_owned()),
        ["security", "keys"] => json(data::private_keys()),
        ["security", "keys", u] => find(data::private_keys(), "uuid", u, "Private Key", mode),
        ["cloud-tokens"] => json(data::cloud_tokens()),
        ["cloud-tokens", u] => find(data::cloud_tokens(), "uuid", u, "Cloud token", mode),
        _ => return None,
    };
    Some(reply)
}

fn rows(list: Value) -> Vec<Value> {
    match list {
        Value::Array(rows) => rows,
        _ => Vec::new(),
    }
}
