//! Batch tools: `restart_project_apps`, `redeploy_project`, `stop_all_apps`. As MCP tasks, the
//! first two follow the deployments Coolify started (`follow`).
//!
//! Invariant: after approval the operation acts on exactly the set that was summarised to
//! the human; an empty set asks nothing and returns a zero summary.

use futures::future::join_all;
use serde_json::{Value, json};

use super::reads::list_applications_raw;
use super::{Args, ToolError, ToolOutput, ToolResult};
use crate::backend::{ApiError, HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::confirm::{blast_radius, confirm};
use crate::follow::{deployment_uuids, hand_over};
use crate::instances::Client;
use crate::projection::{as_array, str_of};

fn display_name(app: &Value) -> String {
    Some(str_of(app, "name"))
        .filter(|n| !n.is_empty())
        .unwrap_or(str_of(app, "uuid"))
        .to_string()
}

/// Applications whose `environment_id` belongs to the project.
async fn apps_in_project(client: &Client, project: &str) -> Result<Vec<Value>, ToolError> {
    let (p, apps) = futures::join!(
        client.get(Path::new("projects").id(project)),
        list_applications_raw(client, None, None)
    );
    let (p, apps) = (p?, apps?);
    let Some(envs) = p.get("environments").and_then(Value::as_array) else {
        return Err(ToolError::Message(format!(
            "Could not resolve environments for project {project}: the API returned no environments array. Without it there is no way to tell which applications belong to this project."
        )));
    };
    let ids: Vec<&Value> = envs.iter().filter_map(|e| e.get("id")).collect();
    Ok(as_array(&apps)
        .iter()
        .filter(|a| a.get("environment_id").is_some_and(|id| ids.contains(&id)))
        .cloned()
        .collect())
}

fn is_running(status: &str) -> bool {
    status.contains("running") || (status.contains("healthy") && !status.contains("unhealthy"))
}

/// The summary of `op` over every app, and the deployments Coolify's answers named.
async fn aggregate<F, Fut>(apps: &[Value], op: F) -> (Value, Vec<String>)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Result<Value, ApiError>>,
{
    let results = join_all(apps.iter().map(|a| op(str_of(a, "uuid").to_string()))).await;
    let (mut ok, mut failed, mut deployments) = (Vec::new(), Vec::new(), Vec::new());
    for (app, r) in apps.iter().zip(results) {
        let name = display_name(app);
        match r {
            Ok(answer) => {
                deployments.extend(deployment_uuids(&answer));
                ok.push(json!({"uuid": app.get("uuid"), "name": name}))
            }
            Err(e) => {
                failed.push(json!({"uuid": app.get("uuid"), "name": name, "error": e.message}))
            }
        }
    }
    let summary = json!({"summary": {"total": apps.len(), "succeeded": ok.len(), "failed": failed.len()}, "succeeded": ok, "failed": failed});
    (summary, deployments)
}

fn empty() -> Value {
    json!({"summary": {"total": 0, "succeeded": 0, "failed": 0}, "succeeded": [], "failed": []})
}

/// What a project batch does with the confirmed set.
enum ProjectApps {
    /// The human refused (or could not be asked): this text is the tool's answer.
    Refused(String),
    /// The applications the human approved (possibly none).
    Approved(Vec<Value>),
}

/// Lists the project's applications, asks the human to confirm `question(blast radius)`, and
/// returns exactly the set that was summarised (the module invariant).
async fn confirm_project_apps(
    ctx: &CallCtx<'_>,
    project: &str,
    label: &str,
    question: impl FnOnce(&str) -> String,
) -> Result<ProjectApps, ToolError> {
    // Filled by the summary (if it runs) and read once `confirm` has consumed it.
    let mut approved: Option<Vec<Value>> = None;
    let summary = async {
        let apps = apps_in_project(&ctx.client, project)
            .await
            .map_err(|e| e.to_string())?;
        let names: Vec<String> = apps.iter().map(display_name).collect();
        let empty = apps.is_empty();
        approved = Some(apps);
        Ok((!empty).then(|| question(&blast_radius("application", &names))))
    };
    if let Err(refusal) = confirm(ctx, label, summary).await {
        return Ok(ProjectApps::Refused(refusal));
    }
    Ok(ProjectApps::Approved(match approved {
        Some(apps) => apps,
        None => apps_in_project(&ctx.client, project).await?,
    }))
}

pub async fn restart_project_apps(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let project = args.str("project_uuid").unwrap_or_default();
    let apps = match confirm_project_apps(ctx, project, "Restart every application in a Coolify project.", |radius| {
        format!("Restart {radius} in this project?\n\nEach one drops its connections briefly while the container comes back.")
    })
    .await?
    {
        ProjectApps::Refused(refusal) => return Ok(ToolOutput::Text(refusal)),
        ProjectApps::Approved(apps) => apps,
    };
    if apps.is_empty() {
        return Ok(ToolOutput::Json(empty()));
    }
    let client = &ctx.client;
    let (summary, deployments) = aggregate(&apps, |u| async move {
        client
            .write(
                HttpMethod::Post,
                Path::new("applications").id(&u).lit("restart"),
                None,
            )
            .await
    })
    .await;
    hand_over(ctx.follow, deployments);
    Ok(ToolOutput::Json(summary))
}

pub async fn redeploy_project(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let project = args.str("project_uuid").unwrap_or_default();
    let force = args.bool("force").unwrap_or(true);
    let apps = match confirm_project_apps(ctx, project, "Redeploy every application in a Coolify project.", |radius| {
        format!("Redeploy {radius} in this project?\n\nEach one's running containers are replaced, so expect downtime per app while it rebuilds.")
    })
    .await?
    {
        ProjectApps::Refused(refusal) => return Ok(ToolOutput::Text(refusal)),
        ProjectApps::Approved(apps) => apps,
    };
    if apps.is_empty() {
        return Ok(ToolOutput::Json(empty()));
    }
    let client = &ctx.client;
    let (summary, deployments) = aggregate(&apps, |u| async move {
        super::deploy::trigger(client, &u, force).await
    })
    .await;
    hand_over(ctx.follow, deployments);
    Ok(ToolOutput::Json(summary))
}

pub async fn stop_all_apps(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    if args.bool("confirm") != Some(true) {
        return Ok(ToolOutput::guard("Error: confirm=true required"));
    }
    let running = |apps: &Value| -> Vec<Value> {
        as_array(apps)
            .iter()
            .filter(|a| is_running(str_of(a, "status")))
            .cloned()
            .collect()
    };
    let mut approved: Option<Vec<Value>> = None;
    let summary = async {
        let apps = list_applications_raw(&ctx.client, None, None)
            .await
            .map_err(|e| e.message)?;
        let run = running(&apps);
        let mut servers: Vec<String> = run
            .iter()
            .filter_map(
                |a| match (a.pointer("/destination/server_id"), a.get("server_uuid")) {
                    (Some(id), _) => Some(format!("id:{id}")),
                    (None, Some(u)) => Some(format!("uuid:{u}")),
                    _ => None,
                },
            )
            .collect();
        servers.sort();
        servers.dedup();
        let names: Vec<String> = run.iter().map(display_name).collect();
        let empty = run.is_empty();
        approved = Some(run);
        let across = if servers.len() > 1 {
            format!(" across {} servers", servers.len())
        } else {
            String::new()
        };
        Ok((!empty).then(|| format!("EMERGENCY STOP: take down {}{across}?\n\nEvery one stays down until it is started again. This is estate-wide, not scoped to a project.", blast_radius("running application", &names))))
    };
    if let Err(refusal) = confirm(
        ctx,
        "EMERGENCY STOP: stop every running application on this Coolify instance.",
        summary,
    )
    .await
    {
        return Ok(ToolOutput::Text(refusal));
    }
    let apps = match approved {
        Some(a) => a,
        None => running(&list_applications_raw(&ctx.client, None, None).await?),
    };
    if apps.is_empty() {
        return Ok(ToolOutput::Json(empty()));
    }
    let client = &ctx.client;
    Ok(ToolOutput::Json(
        aggregate(&apps, |u| async move {
            client
                .write(
                    HttpMethod::Post,
                    Path::new("applications").id(&u).lit("stop"),
                    None,
                )
                .await
        })
        .await
        .0,
    ))
}

/// More apps than this in one `bulk_env_update` asks the human first (reference: 3).
pub const BULK_ENV_CONFIRM_THRESHOLD: usize = 3;

pub async fn bulk_env_update(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuids: Vec<String> = args
        .value("app_uuids")
        .map(as_array)
        .unwrap_or(&[])
        .iter()
        .map(crate::json::js_string)
        .collect();
    let key = args.str("key").unwrap_or_default();
    let op = bulk_env_op(args, ctx, &uuids);
    if uuids.len() <= BULK_ENV_CONFIRM_THRESHOLD {
        return op.await;
    }
    let safe_key = crate::confirm::sanitize_for_prompt(key);
    let summary = async {
        let apps = list_applications_raw(&ctx.client, None, None)
            .await
            .map_err(|e| e.message)?;
        let Some(rows) = apps.as_array() else {
            return Err("apps.find is not a function".to_string());
        };
        let names: Vec<String> = uuids
            .iter()
            .map(|u| {
                rows.iter()
                    .find(|a| str_of(a, "uuid") == u)
                    .map(|a| str_of(a, "name"))
                    .filter(|n| !n.is_empty())
                    .unwrap_or(u)
                    .to_string()
            })
            .collect();
        Ok(Some(format!(
            "Set env var \"{safe_key}\" on {}?\n\nExisting values for \"{safe_key}\" on those applications will be overwritten.",
            blast_radius("application", &names)
        )))
    };
    let label = format!(
        "Set env var \"{safe_key}\" across {} applications.",
        uuids.len()
    );
    super::guarded(ctx, &label, summary, op).await
}

/// `PATCH /applications/{uuid}/envs` on every app, concurrently, with the batch summary.
async fn bulk_env_op(args: &Args, ctx: &CallCtx<'_>, uuids: &[String]) -> ToolResult {
    if uuids.is_empty() {
        return Ok(ToolOutput::Json(empty()));
    }
    let client = &ctx.client;
    let apps = list_applications_raw(client, None, None).await?;
    let resources: Vec<Value> = uuids
        .iter()
        .map(|u| {
            let name = as_array(&apps)
                .iter()
                .find(|a| str_of(a, "uuid") == u)
                .map(display_name)
                .unwrap_or_else(|| u.clone());
            json!({"uuid": u, "name": name})
        })
        .collect();
    let body = args.pick(&["key", "value", "is_buildtime", "is_runtime"]);
    Ok(ToolOutput::Json(
        aggregate(&resources, |u| {
            let body = body.clone();
            async move {
                client
                    .write(
                        HttpMethod::Patch,
                        Path::new("applications").id(&u).lit("envs"),
                        Some(body),
                    )
                    .await
            }
        })
        .await
        .0,
    ))
}
