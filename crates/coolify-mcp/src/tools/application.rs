//! The `application` tool: one function per sub-action — the four creates,
//! `update`, the guarded `move` and `delete`, and `delete_preview`.
//!
//! Invariants: parameter guards return the reference's fixed `Error: …` texts and make no
//! request; `move` and `delete` send nothing before the confirmation decision (the
//! pre-flight summary only reads); request bodies keep the reference's key order and map
//! `fqdn` to `domains` unless `domains` was given.

use serde_json::{Map, Value, json};

use super::{Args, ToolError, ToolOutput, ToolResult};
use crate::backend::{HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::confirm::{confirm, delete_summary, move_summary};
use crate::projection::{str_of, truthy};

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

/// Run one `application` sub-action.
pub async fn application(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuid = args.nonempty("uuid");
    match args.str("action").unwrap_or_default() {
        "create_public" => create_public(args, ctx).await,
        "create_github" => create_from_git(args, ctx, GitSource::GithubApp).await,
        "create_key" => create_from_git(args, ctx, GitSource::DeployKey).await,
        "create_dockerimage" => create_dockerimage(args, ctx).await,
        "create_dockerfile" => create_dockerfile(args, ctx).await,
        "update" => update(args, ctx, uuid).await,
        "move" => move_app(args, ctx, uuid).await,
        "delete" => delete(args, ctx, uuid).await,
        "delete_preview" => delete_preview(args, ctx, uuid).await,
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

async fn create_public(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
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

/// Which private source a `create_github` / `create_key` call builds from.
#[derive(Debug, Clone, Copy)]
enum GitSource {
    GithubApp,
    DeployKey,
}

impl GitSource {
    /// (the id argument, the path segment, the guard text).
    fn parts(self) -> (&'static str, &'static str, &'static str) {
        match self {
            GitSource::GithubApp => (
                "github_app_uuid",
                "private-github-app",
                "Error: project_uuid, server_uuid, github_app_uuid, git_repository, git_branch required",
            ),
            GitSource::DeployKey => (
                "private_key_uuid",
                "private-deploy-key",
                "Error: project_uuid, server_uuid, private_key_uuid, git_repository, git_branch required",
            ),
        }
    }
}

async fn create_from_git(args: &Args, ctx: &CallCtx<'_>, source: GitSource) -> ToolResult {
    let (id_key, path, text) = source.parts();
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

async fn create_dockerimage(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
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

async fn create_dockerfile(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
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

async fn update(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
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

/// The application and its name for a confirmation dialog (the uuid when it has no name).
async fn named_app(ctx: &CallCtx<'_>, uuid: &str) -> Result<(String, Value), String> {
    let app = ctx
        .client
        .get(Path::new("applications").id(uuid))
        .await
        .map_err(|e| e.message)?;
    let name = Some(str_of(&app, "name"))
        .filter(|n| !n.is_empty())
        .unwrap_or(uuid)
        .to_string();
    Ok((name, app))
}

async fn move_app(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let (Some(uuid), Some(target)) = (uuid, args.nonempty("environment_uuid")) else {
        return Ok(ToolOutput::guard(
            "Error: uuid, environment_uuid required. Find the target environment_uuid with the `environments` tool.",
        ));
    };
    let summary = async {
        let (name, app) = named_app(ctx, uuid).await?;
        let current = app.get("environment_uuid").and_then(Value::as_str);
        Ok(Some(move_summary(
            "application",
            &name,
            uuid,
            target,
            current,
        )))
    };
    if let Err(refusal) = confirm(ctx, "Move an application to another environment.", summary).await
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

async fn delete(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let Some(uuid) = uuid else {
        return Ok(ToolOutput::guard("Error: uuid required"));
    };
    let delete_volumes = args.bool("delete_volumes");
    let summary = async {
        let (name, _) = named_app(ctx, uuid).await?;
        Ok(Some(delete_summary(
            "application",
            &name,
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

async fn delete_preview(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let (Some(uuid), Some(pr)) = (uuid, args.value("pull_request_id").filter(|v| truthy(v))) else {
        return Ok(ToolOutput::guard("Error: uuid, pull_request_id required"));
    };
    let pr = crate::json::compact(pr);
    let path = Path::new("applications").id(uuid).lit("previews").id(&pr);
    Ok(ToolOutput::Json(
        ctx.client.write(HttpMethod::Delete, path, None).await?,
    ))
}
