//! `projects` and `environments`: CRUD, the guarded project and environment
//! deletes, `environments get` with the database types Coolify's environment endpoint
//! omits, and `verify_app`, the exact-binding check.
//!
//! Invariants: parameter guards return the reference's fixed texts and send nothing; the
//! project-delete summary counts applications, databases and services by environment id
//! and refuses to call a project empty when its environments could not be resolved.

use serde_json::{Map, Value, json};

use super::reads::{list_applications_raw, list_databases_raw};
use super::{Args, ToolError, ToolOutput, ToolResult, answer, fixed_summary, guarded};
use crate::backend::{ApiError, HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::confirm::{blast_radius, sanitize_for_prompt};
use crate::instances::Client;
use crate::projection::{self as proj, as_array, str_of};

/// Run one `projects` action.
pub async fn projects(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuid = args.nonempty("uuid");
    let client = &ctx.client;
    match (args.str("action").unwrap_or_default(), uuid) {
        ("list", _) => {
            let v = client
                .get_query(Path::new("projects"), &args.paging())
                .await?;
            Ok(ToolOutput::Json(summaries(v, proj::PROJECT)))
        }
        ("get" | "update" | "delete", None) => Ok(ToolOutput::guard("Error: uuid required")),
        ("get", Some(u)) => answer(client.get(Path::new("projects").id(u)).await),
        ("create", _) if !args.truthy("name") => Ok(ToolOutput::guard("Error: name required")),
        ("create", _) => {
            let body = args.pick(&["name", "description"]);
            answer(
                client
                    .write(HttpMethod::Post, Path::new("projects"), Some(body))
                    .await,
            )
        }
        ("update", Some(u)) => {
            let body = args.pick(&["name", "description"]);
            let path = Path::new("projects").id(u);
            answer(client.write(HttpMethod::Patch, path, Some(body)).await)
        }
        ("delete", Some(u)) => {
            let op = async {
                answer(
                    client
                        .write(HttpMethod::Delete, Path::new("projects").id(u), None)
                        .await,
                )
            };
            guarded(
                ctx,
                "Delete a Coolify project and everything in it.",
                project_delete_summary(client, u),
                op,
            )
            .await
        }
        (other, _) => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

/// Project a list when upstream returned one (anything else passes through, as in JS).
fn summaries(v: Value, keys: &[&str]) -> Value {
    if v.is_array() {
        proj::pick_all(&v, keys)
    } else {
        v
    }
}

/// `Set.has` semantics for JSON ids: numbers compare by value (`1` and `1.0` are one id).
fn same_id(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// JS `===` of two possibly-absent values (absent is `undefined`).
fn js_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => same_id(x, y),
        (None, None) => true,
        _ => false,
    }
}

/// The environment ids of a project, or the reference's error when the project carries no
/// `environments` array (`what` ends the sentence: "which applications belong to this
/// project" / "what this project contains").
pub(super) fn environment_ids(
    project: &Value,
    uuid: &str,
    what: &str,
) -> Result<Vec<Value>, String> {
    match project.get("environments").and_then(Value::as_array) {
        Some(envs) => Ok(envs
            .iter()
            .map(|e| e.get("id").cloned().unwrap_or(Value::Null))
            .filter(|id| !id.is_null())
            .collect()),
        None => Err(format!(
            "Could not resolve environments for project {uuid}: the API returned no environments array. Without it there is no way to tell {what}."
        )),
    }
}

/// Rows whose `environment_id` is one of `ids`.
pub(super) fn in_environments(rows: &Value, ids: &[Value]) -> Vec<Value> {
    as_array(rows)
        .iter()
        .filter(|r| {
            r.get("environment_id")
                .is_some_and(|id| ids.iter().any(|x| same_id(x, id)))
        })
        .cloned()
        .collect()
}

/// A resource's display name for a prompt, falling back to its uuid.
pub(super) fn name_of(v: &Value) -> String {
    Some(str_of(v, "name"))
        .filter(|n| !n.is_empty())
        .unwrap_or(str_of(v, "uuid"))
        .to_string()
}

/// "a", "a and b", "a, b and c".
fn join_list(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

async fn project_delete_summary(client: &Client, uuid: &str) -> Result<Option<String>, String> {
    let (project, apps, dbs, services) = futures::join!(
        client.get(Path::new("projects").id(uuid)),
        list_applications_raw(client, None, None),
        list_databases_raw(client),
        client.get(Path::new("services")),
    );
    let msg = |e: ApiError| e.message;
    let (project, apps, dbs, services) = (
        project.map_err(msg)?,
        apps.map_err(msg)?,
        dbs.map_err(msg)?,
        services.map_err(msg)?,
    );
    let ids = environment_ids(&project, uuid, "what this project contains")?;
    let parts: Vec<String> = [
        ("application", &apps),
        ("database", &dbs),
        ("service", &services),
    ]
    .into_iter()
    .filter_map(|(noun, rows)| {
        let inside = in_environments(rows, &ids);
        (!inside.is_empty())
            .then(|| blast_radius(noun, &inside.iter().map(name_of).collect::<Vec<_>>()))
    })
    .collect();
    let contents = if parts.is_empty() {
        "It contains no applications, databases or services.".to_string()
    } else {
        format!(
            "It contains {}, all of which go with it.",
            join_list(&parts)
        )
    };
    let name = Some(str_of(&project, "name"))
        .filter(|n| !n.is_empty())
        .unwrap_or(uuid);
    Ok(Some(format!(
        "Delete project \"{}\" ({})?\n\n{contents} This cannot be undone.",
        sanitize_for_prompt(name),
        sanitize_for_prompt(uuid)
    )))
}

/// Run one `environments` action.
pub async fn environments(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let project = args.str("project_uuid").unwrap_or_default();
    let name = args.nonempty("name");
    let client = &ctx.client;
    match args.str("action").unwrap_or_default() {
        "list" => answer(client.get(envs_path(project)).await),
        "verify_app" => match (name, args.nonempty("application_uuid")) {
            (Some(n), Some(app)) => verify_app(client, app, project, n).await,
            _ => Ok(ToolOutput::guard(
                "Error: name and application_uuid required",
            )),
        },
        "get" => get_environment(client, project, name).await,
        "create" | "delete" if name.is_none() => Ok(ToolOutput::guard("Error: name required")),
        "create" => {
            let body = args.pick(&["name", "description"]);
            answer(
                client
                    .write(HttpMethod::Post, envs_path(project), Some(body))
                    .await,
            )
        }
        "delete" => {
            let n = name.unwrap_or_default();
            let summary = format!(
                "Delete environment \"{}\" from project {}?\n\nCoolify refuses this if the environment still has resources in it, so this only succeeds on an empty one.",
                sanitize_for_prompt(n),
                sanitize_for_prompt(project)
            );
            let op = async {
                answer(
                    client
                        .write(HttpMethod::Delete, envs_path(project).id(n), None)
                        .await,
                )
            };
            guarded(
                ctx,
                "Delete an environment from a Coolify project.",
                fixed_summary(summary),
                op,
            )
            .await
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

fn envs_path(project: &str) -> Path {
    Path::new("projects").id(project).lit("environments")
}

/// `environments get`: the named environment (or the only one), plus the dragonfly, keydb
/// and clickhouse databases Coolify's environment endpoint leaves out.
async fn get_environment(client: &Client, project: &str, name: Option<&str>) -> ToolResult {
    let name = match name {
        Some(n) => n.to_string(),
        None => {
            let envs = client.get(envs_path(project)).await?;
            let Some(list) = envs.as_array() else {
                // The reference reads `.length` and `.map` off whatever came back.
                return Err(ToolError::Message("envs.map is not a function".into()));
            };
            match list.as_slice() {
                [only] => str_of(only, "name").to_string(),
                [] => {
                    return Err(ToolError::Message(format!(
                        "Project {project} has no environments"
                    )));
                }
                _ => {
                    let names: Vec<&str> = list.iter().map(|e| str_of(e, "name")).collect();
                    return Err(ToolError::Message(format!(
                        "name required — project has {} environments: {}",
                        list.len(),
                        names.join(", ")
                    )));
                }
            }
        }
    };
    let (env, dbs) = futures::join!(
        client.get(Path::new("projects").id(project).id(&name)),
        list_databases_raw(client)
    );
    let (env, dbs) = (env?, dbs?);
    let mut out: Map<String, Value> = env.as_object().cloned().unwrap_or_default();
    let matches = |db: &Value, key: &str, env_key: &str| js_eq(db.get(key), env.get(env_key));
    let in_env: Vec<Value> = as_array(&dbs)
        .iter()
        .map(proj::database)
        .filter(|db| {
            matches(db, "environment_id", "id")
                || matches(db, "environment_uuid", "uuid")
                || matches(db, "environment_name", "name")
        })
        .collect();
    for (key, kind) in [
        ("dragonflys", "dragonfly"),
        ("keydbs", "keydb"),
        ("clickhouses", "clickhouse"),
    ] {
        let of_kind: Vec<Value> = in_env
            .iter()
            .filter(|db| str_of(db, "type").contains(kind))
            .cloned()
            .collect();
        if !of_kind.is_empty() {
            out.insert(key.into(), Value::Array(of_kind));
        }
    }
    Ok(ToolOutput::Json(Value::Object(out)))
}

/// A safe integer ≥ `min` (JS `Number.isSafeInteger(x) && x >= min`).
fn safe_int(v: Option<&Value>, min: f64) -> Option<f64> {
    v.and_then(Value::as_f64)
        .filter(|f| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0 && *f >= min)
}

/// `environments verify_app`: proves an application is bound to one exact environment of
/// one exact project, from the two exact endpoints only.
async fn verify_app(client: &Client, app_uuid: &str, project: &str, expected: &str) -> ToolResult {
    let fail = |m: &str| Err(ToolError::Message(m.to_string()));
    let app = client.get(Path::new("applications").id(app_uuid)).await?;
    if str_of(&app, "uuid") != app_uuid || !app.get("uuid").is_some_and(Value::is_string) {
        return fail("Exact application UUID could not be verified");
    }
    let Some(env_id) = safe_int(app.get("environment_id"), 1.0) else {
        return fail("Exact application environment identity is unavailable");
    };
    fn project_of(v: &Value) -> Option<&str> {
        Some(str_of(v, "project_uuid")).filter(|p| !p.is_empty())
    }
    if project_of(&app).is_some_and(|p| p != project) {
        return fail("Exact application project UUID does not match");
    }
    let env = client
        .get(Path::new("projects").id(project).id(expected))
        .await?;
    if env.get("name").and_then(Value::as_str) != Some(expected) {
        return fail("Exact environment name does not match");
    }
    if safe_int(env.get("id"), f64::MIN) != Some(env_id) {
        return fail("Exact application environment identity does not match");
    }
    if project_of(&env).is_some_and(|p| p != project) {
        return fail("Exact environment project UUID does not match");
    }
    let environment = proj::pick(&env, &["id", "uuid", "name"]);
    Ok(ToolOutput::Json(
        json!({"verified": true, "application_uuid": app["uuid"], "environment": environment}),
    ))
}
