//! Mutating tools on single resources: `application` (incl. the guarded move and delete),
//! `control` and `env_vars` (SPEC §2.3). Parameter guards return the reference's fixed
//! `Error: …` texts and make no request.

use serde_json::{Map, Value, json};

use super::{Args, ToolError, ToolOutput, ToolResult, envelope};
use crate::backend::{HttpMethod, Path};
use crate::confirm::{confirm, delete_summary, move_summary};
use crate::projection::{self as proj, action, str_of, truthy};
use crate::sanitize::MASK;
use crate::server::CallCtx;

const HEALTH: &[&str] = &[
    "health_check_enabled",
    "health_check_path",
    "health_check_port",
    "health_check_host",
    "health_check_method",
    "health_check_return_code",
    "health_check_scheme",
    "health_check_response_text",
    "health_check_interval",
    "health_check_timeout",
    "health_check_retries",
    "health_check_start_period",
];
const BUILD: &[&str] = &[
    "base_directory",
    "publish_directory",
    "install_command",
    "build_command",
    "start_command",
    "dockerfile_location",
    "watch_paths",
];
const PLACEMENT_TAIL: &[&str] = &[
    "environment_name",
    "environment_uuid",
    "name",
    "description",
    "fqdn",
    "domains",
];
const RUNTIME: &[&str] = &[
    "custom_docker_run_options",
    "custom_labels",
    "instant_deploy",
];

/// Build a body from the given keys in order (absent keys dropped), then map `fqdn` to
/// `domains` unless `domains` was given.
fn body(args: &Args, groups: &[&[&str]]) -> Value {
    let mut out = Map::new();
    for group in groups {
        for k in *group {
            if let Some(v) = args.0.get(*k) {
                out.insert((*k).to_string(), v.clone());
            }
        }
    }
    fqdn_to_domains(out)
}

fn fqdn_to_domains(mut out: Map<String, Value>) -> Value {
    let fqdn = out.shift_remove("fqdn");
    if let (Some(f), false) = (fqdn, out.contains_key("domains")) {
        out.insert("domains".into(), f);
    }
    Value::Object(out)
}

fn missing(args: &Args, keys: &[&str]) -> bool {
    keys.iter().any(|k| !args.0.get(*k).is_some_and(truthy))
}

async fn post(ctx: &CallCtx<'_>, path: Path, body: Value) -> ToolResult {
    Ok(ToolOutput::Json(
        ctx.client.write(HttpMethod::Post, path, Some(body)).await?,
    ))
}

pub async fn application(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuid = args.nonempty("uuid");
    let action_name = args.str("action").unwrap_or_default();
    match action_name {
        "create_public" => {
            let req = [
                "project_uuid",
                "server_uuid",
                "git_repository",
                "git_branch",
                "build_pack",
                "ports_exposes",
            ];
            if missing(args, &req) {
                return Ok(ToolOutput::guard(
                    "Error: project_uuid, server_uuid, git_repository, git_branch, build_pack, ports_exposes required",
                ));
            }
            let head: &[&str] = &[
                "project_uuid",
                "server_uuid",
                "destination_uuid",
                "git_repository",
                "git_branch",
                "build_pack",
                "ports_exposes",
            ];
            post(
                ctx,
                Path::new("applications").lit("public"),
                body(args, &[head, PLACEMENT_TAIL, BUILD, HEALTH, RUNTIME]),
            )
            .await
        }
        "create_github" | "create_key" => {
            let (id_key, path, text) = if action_name == "create_github" {
                (
                    "github_app_uuid",
                    "private-github-app",
                    "Error: project_uuid, server_uuid, github_app_uuid, git_repository, git_branch required",
                )
            } else {
                (
                    "private_key_uuid",
                    "private-deploy-key",
                    "Error: project_uuid, server_uuid, private_key_uuid, git_repository, git_branch required",
                )
            };
            if missing(
                args,
                &[
                    "project_uuid",
                    "server_uuid",
                    id_key,
                    "git_repository",
                    "git_branch",
                ],
            ) {
                return Ok(ToolOutput::guard(text));
            }
            let head: &[&str] = &[
                "project_uuid",
                "server_uuid",
                id_key,
                "destination_uuid",
                "git_repository",
                "git_branch",
                "build_pack",
                "ports_exposes",
            ];
            post(
                ctx,
                Path::new("applications").lit(path),
                body(args, &[head, PLACEMENT_TAIL, BUILD, HEALTH, RUNTIME]),
            )
            .await
        }
        "create_dockerimage" => {
            if missing(
                args,
                &[
                    "project_uuid",
                    "server_uuid",
                    "docker_registry_image_name",
                    "ports_exposes",
                ],
            ) {
                return Ok(ToolOutput::guard(
                    "Error: project_uuid, server_uuid, docker_registry_image_name, ports_exposes required",
                ));
            }
            let head: &[&str] = &[
                "project_uuid",
                "server_uuid",
                "destination_uuid",
                "docker_registry_image_name",
                "ports_exposes",
                "docker_registry_image_tag",
            ];
            post(
                ctx,
                Path::new("applications").lit("dockerimage"),
                body(args, &[head, PLACEMENT_TAIL, HEALTH, RUNTIME]),
            )
            .await
        }
        "create_dockerfile" => {
            if missing(args, &["project_uuid", "server_uuid", "dockerfile"]) {
                return Ok(ToolOutput::guard(
                    "Error: project_uuid, server_uuid, dockerfile required",
                ));
            }
            let head: &[&str] = &[
                "project_uuid",
                "server_uuid",
                "destination_uuid",
                "dockerfile",
                "dockerfile_location",
                "ports_exposes",
                "base_directory",
            ];
            post(
                ctx,
                Path::new("applications").lit("dockerfile"),
                body(args, &[head, PLACEMENT_TAIL, RUNTIME]),
            )
            .await
        }
        "update" => {
            let Some(uuid) = uuid else {
                return Ok(ToolOutput::guard("Error: uuid required"));
            };
            let mut data = args.0.clone();
            for k in ["action", "uuid", "delete_volumes"] {
                data.shift_remove(k);
            }
            let b = fqdn_to_domains(data);
            Ok(ToolOutput::Json(
                ctx.client
                    .write(
                        HttpMethod::Patch,
                        Path::new("applications").id(uuid),
                        Some(b),
                    )
                    .await?,
            ))
        }
        "move" => {
            let (Some(uuid), Some(target)) = (uuid, args.nonempty("environment_uuid")) else {
                return Ok(ToolOutput::guard(
                    "Error: uuid, environment_uuid required. Find the target environment_uuid with the `environments` tool.",
                ));
            };
            let summary = async {
                let app = ctx
                    .client
                    .get(Path::new("applications").id(uuid))
                    .await
                    .map_err(|e| e.message)?;
                let name = Some(str_of(&app, "name"))
                    .filter(|n| !n.is_empty())
                    .unwrap_or(uuid);
                let current = app.get("environment_uuid").and_then(Value::as_str);
                Ok(Some(move_summary(
                    "application",
                    name,
                    uuid,
                    target,
                    current,
                )))
            };
            if let Err(refusal) =
                confirm(ctx, "Move an application to another environment.", summary).await
            {
                return Ok(ToolOutput::Text(refusal));
            }
            post(
                ctx,
                Path::new("applications").id(uuid).lit("move"),
                json!({"environment_uuid": target}),
            )
            .await
        }
        "delete" => {
            let Some(uuid) = uuid else {
                return Ok(ToolOutput::guard("Error: uuid required"));
            };
            let delete_volumes = args.bool("delete_volumes");
            let summary = async {
                let app = ctx
                    .client
                    .get(Path::new("applications").id(uuid))
                    .await
                    .map_err(|e| e.message)?;
                let name = Some(str_of(&app, "name"))
                    .filter(|n| !n.is_empty())
                    .unwrap_or(uuid);
                Ok(Some(delete_summary(
                    "application",
                    name,
                    uuid,
                    delete_volumes,
                )))
            };
            if let Err(refusal) = confirm(
                ctx,
                "Delete an application, and by default its persistent volumes.",
                summary,
            )
            .await
            {
                return Ok(ToolOutput::Text(refusal));
            }
            let path = Path::new("applications").id(uuid).with_query(vec![(
                "delete_volumes",
                delete_volumes.map(|b| b.to_string()),
            )]);
            Ok(ToolOutput::Json(
                ctx.client.write(HttpMethod::Delete, path, None).await?,
            ))
        }
        "delete_preview" => {
            let (Some(uuid), Some(pr)) =
                (uuid, args.value("pull_request_id").filter(|v| truthy(v)))
            else {
                return Ok(ToolOutput::guard("Error: uuid, pull_request_id required"));
            };
            let pr = crate::json::compact(pr);
            let path = Path::new("applications").id(uuid).lit("previews").id(&pr);
            Ok(ToolOutput::Json(
                ctx.client.write(HttpMethod::Delete, path, None).await?,
            ))
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

pub async fn control(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let resource = args.str("resource").unwrap_or("application");
    let act = match args.str("action") {
        Some("stop") => "stop",
        Some("restart") => "restart",
        _ => "start",
    };
    let uuid = args.str("uuid").unwrap_or_default();
    let coll = match resource {
        "database" => "databases",
        "service" => "services",
        _ => "applications",
    };
    let mut path = Path::new(coll).id(uuid).lit(act);
    if resource == "service" && act == "restart" && args.0.get("pull_latest").is_some_and(truthy) {
        path = path.query_opt("latest", Some("true".into()));
    }
    let result = ctx.client.write(HttpMethod::Post, path, None).await?;
    let u = json!(uuid);
    let actions = match resource {
        "application" => {
            let mut a = vec![
                action(
                    "logs",
                    json!({"resource": "application", "uuid": u}),
                    "View logs",
                ),
                action("get_application", json!({"uuid": u}), "Check status"),
            ];
            if act == "start" || act == "restart" {
                a.push(action(
                    "control",
                    json!({"resource": "application", "action": "stop", "uuid": u}),
                    "Stop",
                ));
            } else {
                a.push(action(
                    "control",
                    json!({"resource": "application", "action": "start", "uuid": u}),
                    "Start",
                ));
            }
            a
        }
        "database" => vec![action("get_database", json!({"uuid": u}), "Check status")],
        _ => vec![action("get_service", json!({"uuid": u}), "Check status")],
    };
    Ok(envelope(ctx, result, actions, None))
}

fn has_returned_value(v: Option<&Value>) -> bool {
    matches!(v, Some(x) if !x.is_null() && x != MASK)
}

fn mask_row(mut row: Value, full: bool) -> Value {
    if let Some(m) = row.as_object_mut() {
        let had_real = m.contains_key("real_value");
        m.insert("value".into(), json!(MASK));
        if full && had_real {
            m.insert("real_value".into(), json!(MASK));
        }
    }
    row
}

pub async fn env_vars(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let resource = args.str("resource").unwrap_or("application");
    let act = args.str("action").unwrap_or("list");
    let uuid = args.str("uuid").unwrap_or_default();
    let key = args.str("key");
    let reveal = args.bool("reveal") == Some(true);
    let key_set = key.is_some_and(|k| !k.trim().is_empty());
    let coll = match resource {
        "service" => "services",
        "database" => "databases",
        _ => "applications",
    };
    match act {
        "list" => {
            if reveal && !key_set {
                return Ok(ToolOutput::guard(
                    "Error: reveal=true requires an exact key; refusing to return every environment variable",
                ));
            }
            let reveal_mode = if reveal {
                crate::sanitize::Reveal::Plaintext
            } else {
                crate::sanitize::Reveal::Masked
            };
            let raw = ctx
                .client
                .send(
                    crate::backend::ApiRequest::get(Path::new(coll).id(uuid).lit("envs")),
                    reveal_mode,
                )
                .await?;
            let rows = proj::as_array(&raw).to_vec();
            let rows: Vec<Value> = if resource == "application" && !(reveal && key_set) {
                rows.iter()
                    .map(|r| {
                        if reveal {
                            proj::pick(r, proj::APP_ENV)
                        } else {
                            mask_row(proj::pick(r, proj::APP_ENV), false)
                        }
                    })
                    .collect()
            } else if reveal {
                rows
            } else {
                rows.into_iter().map(|r| mask_row(r, true)).collect()
            };
            let filtered: Vec<Value> = match key {
                Some(k) if !k.is_empty() => rows
                    .into_iter()
                    .filter(|r| r.get("key").and_then(Value::as_str) == Some(k))
                    .collect(),
                _ => rows,
            };
            if reveal
                && !filtered.is_empty()
                && filtered.iter().all(|r| {
                    !has_returned_value(r.get("value")) && !has_returned_value(r.get("real_value"))
                })
            {
                return Err(ToolError::Message("Coolify did not return the requested environment variable value. The API or token does not support sensitive env-var reads; use a token with read:sensitive permission (and the required owner/admin role on newer Coolify versions).".into()));
            }
            Ok(ToolOutput::Json(Value::Array(filtered)))
        }
        "create" | "update" => {
            let value = args.nonempty("value");
            let (Some(k), Some(v)) = (key.filter(|k| !k.is_empty()), value) else {
                return Ok(ToolOutput::guard("Error: key, value required"));
            };
            let mut b = json!({"key": k, "value": v});
            for f in ["is_buildtime", "is_runtime", "is_preview"] {
                if let Some(x) = args.value(f) {
                    b[f] = x.clone();
                }
            }
            let method = if act == "create" {
                HttpMethod::Post
            } else {
                HttpMethod::Patch
            };
            Ok(ToolOutput::Json(
                ctx.client
                    .write(method, Path::new(coll).id(uuid).lit("envs"), Some(b))
                    .await?,
            ))
        }
        "delete" => {
            let Some(env_uuid) = args.nonempty("env_uuid") else {
                return Ok(ToolOutput::guard("Error: env_uuid required"));
            };
            Ok(ToolOutput::Json(
                ctx.client
                    .write(
                        HttpMethod::Delete,
                        Path::new(coll).id(uuid).lit("envs").id(env_uuid),
                        None,
                    )
                    .await?,
            ))
        }
        "bulk_update" => {
            let Some(data) = args.value("data") else {
                return Ok(ToolOutput::guard("Error: data array required"));
            };
            let b = json!({"data": data});
            Ok(ToolOutput::Json(
                ctx.client
                    .write(
                        HttpMethod::Patch,
                        Path::new(coll).id(uuid).lit("envs").lit("bulk"),
                        Some(b),
                    )
                    .await?,
            ))
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}
