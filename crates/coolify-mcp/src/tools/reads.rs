//! Read-only tools: meta, overview, diagnostics, servers, applications and logs.
//! Every upstream body arrives sanitized through [`Client`].

use futures::future::join_all;
use serde_json::{Value, json};

use super::{Args, ToolOutput, ToolResult, envelope};
use crate::backend::{ApiError, Path};
use crate::call_ctx::CallCtx;
use crate::instances::{Client, paging};
use crate::projection::{self as proj, action, pick, str_of, truthy};
use crate::sanitize::Reveal;
use crate::untrusted;

/// `get_version`: the instance's Coolify version.
pub async fn get_version(ctx: &CallCtx<'_>) -> ToolResult {
    let v = ctx.client.version().await?;
    Ok(ToolOutput::Json(json!({"version": v})))
}

/// `list_instances`: every configured instance with its version or the error reaching it.
/// Each probe is bounded by the listing deadline (5 s), so one hanging instance cannot stall
/// the answer (the reference waits on it indefinitely).
pub async fn list_instances(ctx: &CallCtx<'_>) -> ToolResult {
    let instances = ctx.instances.all();
    let default = ctx.instances.default_instance().name().to_string();
    let deadline = ctx.timing.listing_deadline;
    let rows = join_all(instances.iter().map(|i| {
        let default = default.clone();
        async move {
            let mut row =
                json!({"name": i.name(), "url": i.spec.url, "default": i.name() == default});
            match tokio::time::timeout(deadline, i.client().version()).await {
                Ok(Ok(v)) => row["version"] = json!(v),
                Ok(Err(e)) => row["error"] = json!(e.message),
                Err(_) => {
                    row["error"] = json!(format!(
                        "no answer to GET /version within {} s (list_instances waits at most that long per instance)",
                        crate::json::compact(&json!(deadline.as_secs_f64()))
                    ));
                }
            }
            row
        }
    }))
    .await;
    Ok(ToolOutput::Json(Value::Array(rows)))
}

/// Summary lists, `None` when upstream did not return an array (kept as-is, like JS).
fn summaries(v: Value, project: impl Fn(&Value) -> Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(project).collect()),
        other => other,
    }
}

/// `GET /servers` with optional paging, masked, not projected.
pub async fn list_servers_raw(
    client: &Client,
    page: Option<u64>,
    per_page: Option<u64>,
) -> Result<Value, ApiError> {
    client
        .get_query(Path::new("servers"), &paging(page, per_page))
        .await
}

/// `GET /applications` with optional paging, masked, not projected.
pub async fn list_applications_raw(
    client: &Client,
    page: Option<u64>,
    per_page: Option<u64>,
) -> Result<Value, ApiError> {
    client
        .get_query(Path::new("applications"), &paging(page, per_page))
        .await
}

/// `GET /databases` merged with `standalone-*` rows of `/resources` missing from it.
pub async fn list_databases_raw(client: &Client) -> Result<Value, ApiError> {
    list_databases_paged(client, &[], false).await
}

/// [`list_databases_raw`] with `?page=&per_page=`; a paged listing is never merged (the
/// merged rows would not belong to the page).
pub async fn list_databases_paged(
    client: &Client,
    paging: &[(&'static str, Option<String>)],
    paged: bool,
) -> Result<Value, ApiError> {
    let (dbs, resources) = futures::join!(
        client.get_query(Path::new("databases"), paging),
        client.get(Path::new("resources"))
    );
    let mut dbs = dbs?;
    if paged {
        return Ok(dbs);
    }
    if let (Value::Array(list), Ok(Value::Array(res))) = (&mut dbs, resources) {
        let seen: Vec<Value> = list.iter().filter_map(|d| d.get("uuid").cloned()).collect();
        for r in res {
            let standalone = r
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.starts_with("standalone-"));
            if standalone && r.get("uuid").is_some_and(truthy) && !seen.contains(&r["uuid"]) {
                list.push(r);
            }
        }
    }
    Ok(dbs)
}

fn len_of(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

/// The estate snapshot shared by `get_infrastructure_overview` and `coolify://overview`.
pub async fn overview(client: &Client) -> Value {
    let (servers, projects, apps, dbs, services) = futures::join!(
        list_servers_raw(client, None, None),
        client.get(Path::new("projects")),
        list_applications_raw(client, None, None),
        list_databases_raw(client),
        client.get(Path::new("services")),
    );
    let mut errors = Vec::new();
    let mut take =
        |name: &str, r: Result<Value, ApiError>, project: &dyn Fn(&Value) -> Value| match r {
            Ok(v) => summaries(v, project),
            Err(e) => {
                errors.push(json!(format!("{name}: Error: {}", e.message)));
                json!([])
            }
        };
    let servers = take("servers", servers, &|v| pick(v, proj::SERVER));
    let projects = take("projects", projects, &|v| pick(v, proj::PROJECT));
    let apps = take("applications", apps, &|v| pick(v, proj::APPLICATION));
    let dbs = take("databases", dbs, &proj::database);
    let services = take("services", services, &|v| pick(v, proj::SERVICE));
    let mut out = json!({
        "summary": {
            "servers": len_of(&servers), "projects": len_of(&projects), "applications": len_of(&apps),
            "databases": len_of(&dbs), "services": len_of(&services),
        },
        "servers": servers, "projects": projects, "applications": apps, "databases": dbs, "services": services,
    });
    if !errors.is_empty() {
        out["errors"] = Value::Array(errors);
    }
    out
}

/// `{logs: "..."}` or a bare string → the log text.
pub fn unwrap_logs(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("logs") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None if o.contains_key("logs") => String::new(),
            Some(other) => other.to_string(),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// `list_servers`: server summaries.
pub async fn list_servers(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let v = ctx
        .client
        .get_query(Path::new("servers"), &args.paging())
        .await?;
    Ok(ToolOutput::Json(summaries(v, |s| pick(s, proj::SERVER))))
}

/// `get_server`: one server in full (masked).
pub async fn get_server(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    Ok(ToolOutput::Json(
        ctx.client
            .get(Path::new("servers").id(args.str("uuid").unwrap_or_default()))
            .await?,
    ))
}

/// `list_applications`: application summaries with pagination hints.
pub async fn list_applications(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let (page, per_page) = (args.num("page"), args.num("per_page"));
    let raw = ctx
        .client
        .get_query(Path::new("applications"), &args.paging())
        .await?;
    let v = summaries(raw, |a| pick(a, proj::APPLICATION));
    let pagination = proj::pagination("list_applications", page, per_page, len_of(&v));
    Ok(envelope(ctx, v, Vec::new(), pagination))
}

/// `GET /applications/{uuid}` through the sanitizer (shared with the resource).
pub async fn application_data(
    client: &Client,
    uuid: &str,
    reveal: Reveal,
) -> Result<Value, ApiError> {
    client
        .send(
            crate::backend::ApiRequest::get(Path::new("applications").id(uuid)),
            reveal,
        )
        .await
}

/// `get_application`'s `_actions`.
pub fn application_actions(app: &Value) -> Vec<Value> {
    let uuid = app.get("uuid").cloned().unwrap_or(Value::Null);
    let with_uuid = |mut args: Value| {
        if !uuid.is_null() {
            args["uuid"] = uuid.clone();
        }
        args
    };
    let mut actions = vec![action(
        "logs",
        with_uuid(json!({"resource": "application"})),
        "View logs",
    )];
    if str_of(app, "status").to_lowercase().contains("running") {
        actions.push(action(
            "control",
            with_uuid(json!({"resource": "application", "action": "restart"})),
            "Restart",
        ));
        actions.push(action(
            "control",
            with_uuid(json!({"resource": "application", "action": "stop"})),
            "Stop",
        ));
    } else {
        actions.push(action(
            "control",
            with_uuid(json!({"resource": "application", "action": "start"})),
            "Start",
        ));
    }
    actions
}

/// `get_application`: one application with its `_actions` (secrets masked unless `reveal`).
pub async fn get_application(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let reveal = if args.bool("reveal") == Some(true) {
        Reveal::Plaintext
    } else {
        Reveal::Masked
    };
    let app = application_data(&ctx.client, args.str("uuid").unwrap_or_default(), reveal).await?;
    let actions = application_actions(&app);
    Ok(envelope(ctx, app, actions, None))
}

/// `logs`: recent logs of an application, database or service container, framed as untrusted.
pub async fn logs(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuid = args.str("uuid").unwrap_or_default();
    let lines = args.num_text("lines").or(Some("100".into()));
    let ts = args.bool("show_timestamps").map(|b| b.to_string());
    let v = match args.str("resource") {
        Some("service") => {
            let Some(container) = args.nonempty("container") else {
                return Ok(ToolOutput::guard(
                    "Error: container required when resource='service' — a service runs several containers, so 'the service logs' is ambiguous. List valid names with the `service` tool, action=list_containers.",
                ));
            };
            let q = [
                ("sub_service_name", Some(container.to_string())),
                ("lines", lines),
                ("show_timestamps", ts),
            ];
            ctx.client
                .get_query(Path::new("services").id(uuid).lit("logs"), &q)
                .await?
        }
        Some("database") => {
            ctx.client
                .get_query(
                    Path::new("databases").id(uuid).lit("logs"),
                    &[("lines", lines), ("show_timestamps", ts)],
                )
                .await?
        }
        _ => {
            ctx.client
                .get_query(
                    Path::new("applications").id(uuid).lit("logs"),
                    &[("lines", lines), ("show_timestamps", ts)],
                )
                .await?
        }
    };
    Ok(ToolOutput::StringResult(untrusted::wrap(&unwrap_logs(&v))))
}

/// `application_logs`: recent logs of one application, framed as untrusted.
pub async fn application_logs(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuid = args.str("uuid").unwrap_or_default();
    let lines = args.num_text("lines").or(Some("100".into()));
    let v = ctx
        .client
        .get_query(
            Path::new("applications").id(uuid).lit("logs"),
            &[("lines", lines)],
        )
        .await?;
    Ok(ToolOutput::StringResult(untrusted::wrap(&unwrap_logs(&v))))
}
