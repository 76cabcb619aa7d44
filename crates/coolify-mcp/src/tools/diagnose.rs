//! Composite diagnostics: `diagnose_app`, `diagnose_server` and `find_issues`
//! (names resolve through [`super::resolve`]). Upstream calls run concurrently and settle independently: a failing
//! part becomes an `errors` entry instead of blanking the answer.

use futures::future::join_all;
use serde_json::{Map, Value, json};

use super::reads::{list_applications_raw, list_databases_raw, list_servers_raw, unwrap_logs};
use super::resolve::{resolve_application, resolve_server};
use super::{Args, ToolOutput, ToolResult};
use crate::backend::{ApiError, Path};
use crate::call_ctx::CallCtx;
use crate::instances::Client;
use crate::projection::{as_array, pick, pick_map, str_of, truthy};
use crate::untrusted;

fn settle(errors: &mut Vec<Value>, name: &str, r: Result<Value, ApiError>) -> Option<Value> {
    r.map_err(|e| errors.push(json!(format!("{name}: {}", e.message))))
        .ok()
}

pub async fn diagnose_app(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let query = args.str("query").unwrap_or_default();
    let client = &ctx.client;
    let uuid = match resolve_application(client, query).await {
        Ok(u) => u,
        Err(e) => {
            return Ok(ToolOutput::Json(json!({
                "application": null, "health": {"status": "unknown", "issues": []}, "logs": null,
                "environment_variables": {"count": 0, "distinct_keys": 0, "production_count": 0, "preview_count": 0, "variables": []},
                "recent_deployments": [], "errors": [e.to_string()],
            })));
        }
    };
    let u = uuid.as_str();
    let lines = [("lines", Some("50".to_string()))];
    let (app, logs, envs, deps) = futures::join!(
        client.get(Path::new("applications").id(u)),
        client.get_query(Path::new("applications").id(u).lit("logs"), &lines),
        client.get(Path::new("applications").id(u).lit("envs")),
        client.get(Path::new("deployments").lit("applications").id(u)),
    );
    let mut errors = Vec::new();
    let app = settle(&mut errors, "application", app);
    let logs = settle(&mut errors, "logs", logs).map(|v| unwrap_logs(&v));
    let envs = settle(&mut errors, "environment_variables", envs);
    let deps = settle(&mut errors, "deployments", deps);
    let deployments: Vec<Value> = deps
        .as_ref()
        .and_then(|d| d.get("deployments"))
        .map(|d| as_array(d).to_vec())
        .unwrap_or_default();
    let (health, issues) = app_health(app.as_ref(), &deployments);
    let envs: Vec<Value> = envs.map(|e| as_array(&e).to_vec()).unwrap_or_default();
    let mut out = json!({
        "application": app.as_ref().map(app_summary),
        "health": {"status": health, "issues": issues},
        "logs": logs.map(|l| untrusted::wrap(&l)),
        "environment_variables": env_summary(&envs),
        "recent_deployments": deployments.iter().take(5).map(|d| pick(d, &["uuid", "status", "created_at"])).collect::<Vec<_>>(),
    });
    if !errors.is_empty() {
        out["errors"] = Value::Array(errors);
    }
    Ok(ToolOutput::Json(out))
}

/// `diagnose_app`'s health verdict and issues: the container status, failed deployments
/// among the last five, and a running container that predates a failed latest deployment.
fn app_health(app: Option<&Value>, deployments: &[Value]) -> (&'static str, Vec<String>) {
    let mut issues: Vec<String> = Vec::new();
    let mut health = "unknown";
    if let Some(app) = app {
        let s = str_of(app, "status");
        if s.contains("running") && s.contains("healthy") {
            health = "healthy";
        } else if s.contains("exited") || s.contains("unhealthy") || s.contains("error") {
            health = "unhealthy";
            issues.push(format!("Status: {s}"));
        } else if s.contains("running") {
            health = "healthy";
        } else {
            issues.push(format!("Status: {s}"));
        }
    }
    let failed = deployments
        .iter()
        .take(5)
        .filter(|d| str_of(d, "status") == "failed")
        .count();
    if failed > 0 {
        issues.push(format!("{failed} failed deployment(s) in last 5"));
        if health == "healthy" {
            health = "unhealthy";
        }
    }
    if let (Some(app), Some(latest)) = (app, deployments.first()) {
        let st = str_of(latest, "status");
        if str_of(app, "status").contains("running") && (st == "failed" || st == "cancelled") {
            let du = str_of(latest, "uuid");
            issues.push(format!("Running container predates the last ({st}) deployment ({du}) — the app is serving stale code. Use the deployment tool (action: get, uuid: {du}, lines) to see why it {st}."));
            health = "unhealthy";
        }
    }
    (health, issues)
}

/// `diagnose_app`'s `application`: uuid, name, status (default `unknown`) and the source
/// fields (`null` when empty).
fn app_summary(a: &Value) -> Value {
    let or_null = |k: &str| {
        a.get(k)
            .filter(|v| truthy(v))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let mut m = pick_map(a, &["uuid", "name"]);
    m.insert(
        "status".into(),
        a.get("status")
            .filter(|v| truthy(v))
            .cloned()
            .unwrap_or(json!("unknown")),
    );
    for k in ["fqdn", "git_repository", "git_branch"] {
        m.insert(k.into(), or_null(k));
    }
    Value::Object(m)
}

/// `diagnose_app`'s `environment_variables`: counts and the keys with their flags (never
/// a value).
fn env_summary(envs: &[Value]) -> Value {
    let mut keys: Vec<&str> = envs.iter().map(|v| str_of(v, "key")).collect();
    keys.sort_unstable();
    keys.dedup();
    let preview = envs
        .iter()
        .filter(|v| v.get("is_preview") == Some(&Value::Bool(true)))
        .count();
    let or = |v: &Value, k: &str, d: bool| {
        v.get(k)
            .filter(|x| !x.is_null())
            .cloned()
            .unwrap_or(Value::Bool(d))
    };
    json!({
        "count": envs.len(), "distinct_keys": keys.len(), "production_count": envs.len() - preview, "preview_count": preview,
        "variables": envs.iter().map(|v| {
            let mut m = pick_map(v, &["key"]);
            m.insert("is_buildtime".into(), or(v, "is_buildtime", false));
            m.insert("is_runtime".into(), or(v, "is_runtime", true));
            m.insert("is_preview".into(), or(v, "is_preview", false));
            Value::Object(m)
        }).collect::<Vec<_>>(),
    })
}

pub async fn diagnose_server(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let query = args.str("query").unwrap_or_default();
    let client = &ctx.client;
    let uuid = match resolve_server(client, query).await {
        Ok(u) => u,
        Err(e) => {
            return Ok(ToolOutput::Json(json!({
                "server": null, "health": {"status": "unknown", "issues": []}, "resources": [], "domains": [],
                "validation": null, "errors": [e.to_string()],
            })));
        }
    };
    let u = uuid.as_str();
    // Read-only means no writes: the validation probe is a POST, so a read-only server
    // skips it and says so (a deliberate difference; the reference sends it anyway).
    let read_only = ctx.mode.read_only;
    let validate = async {
        if read_only {
            return Ok(
                json!({"message": format!("Not run: this server is read-only, and validating a server is a write (POST /servers/{u}/validate). Use validate_server on a server that is not read-only.")}),
            );
        }
        client
            .post_with_get_fallback(Path::new("servers").id(u).lit("validate"))
            .await
    };
    let (server, resources, domains, validation) = futures::join!(
        client.get(Path::new("servers").id(u)),
        client.get(Path::new("servers").id(u).lit("resources")),
        client.get(Path::new("servers").id(u).lit("domains")),
        validate,
    );
    let mut errors = Vec::new();
    let server = settle(&mut errors, "server", server);
    let resources = settle(&mut errors, "resources", resources);
    let domains = settle(&mut errors, "domains", domains);
    let validation = settle(&mut errors, "validation", validation);
    let resources: Vec<Value> = resources.map(|r| as_array(&r).to_vec()).unwrap_or_default();
    let (health, issues) = server_health(server.as_ref(), &resources);
    let mut out = json!({
        "server": server.as_ref().map(server_summary),
        "health": {"status": health, "issues": issues},
        "resources": resources.iter().map(|r| pick(r, &["uuid", "name", "type", "status"])).collect::<Vec<_>>(),
        "domains": domains.map(|d| as_array(&d).iter().map(|x| pick(x, &["ip", "domains"])).collect::<Vec<_>>()).unwrap_or_default(),
        "validation": validation.map(|v| validation_summary(&v)),
    });
    if !errors.is_empty() {
        out["errors"] = Value::Array(errors);
    }
    Ok(ToolOutput::Json(out))
}

/// `diagnose_server`'s health verdict and issues: reachability, usability and the count of
/// unhealthy resources.
fn server_health(server: Option<&Value>, resources: &[Value]) -> (&'static str, Vec<String>) {
    let mut issues: Vec<String> = Vec::new();
    let mut health = "unknown";
    if let Some(s) = server {
        match s.get("is_reachable") {
            Some(Value::Bool(true)) => health = "healthy",
            Some(Value::Bool(false)) => {
                health = "unhealthy";
                issues.push("Server is not reachable".into());
            }
            _ => {}
        }
        if s.get("is_usable") == Some(&Value::Bool(false)) {
            issues.push("Server is not usable".into());
            health = "unhealthy";
        }
    }
    let bad = resources
        .iter()
        .filter(|r| {
            let s = str_of(r, "status");
            s.contains("exited") || s.contains("unhealthy") || s.contains("error")
        })
        .count();
    if bad > 0 {
        issues.push(format!("{bad} unhealthy resource(s)"));
    }
    (health, issues)
}

/// `diagnose_server`'s `server`: uuid, name, ip, status and reachability (`null` when absent).
fn server_summary(s: &Value) -> Value {
    let mut m = pick_map(s, &["uuid", "name", "ip"]);
    m.insert(
        "status".into(),
        s.get("status")
            .filter(|v| truthy(v))
            .cloned()
            .unwrap_or(Value::Null),
    );
    m.insert(
        "is_reachable".into(),
        s.get("is_reachable").cloned().unwrap_or(Value::Null),
    );
    Value::Object(m)
}

/// `diagnose_server`'s `validation`: the message and the validation log, framed as untrusted
/// when it is text.
fn validation_summary(v: &Value) -> Value {
    let mut m = Map::new();
    if let Some(msg) = v.get("message") {
        m.insert("message".into(), msg.clone());
    }
    match v.get("validation_logs") {
        Some(Value::String(l)) if !l.is_empty() => {
            m.insert("validation_logs".into(), json!(untrusted::wrap(l)));
        }
        Some(other) if truthy(other) => {
            m.insert("validation_logs".into(), other.clone());
        }
        _ => {}
    }
    Value::Object(m)
}

fn unhealthy(status: &str) -> bool {
    status.contains("exited")
        || status.contains("unhealthy")
        || status.contains("error")
        || status == "stopped"
}

fn unknown_health(status: &str) -> bool {
    status.starts_with("running") && status.ends_with(":unknown")
}

pub async fn find_issues(ctx: &CallCtx<'_>) -> ToolResult {
    let client = &ctx.client;
    let (servers, apps, dbs, services) = futures::join!(
        list_servers_raw(client, None, None),
        list_applications_raw(client, None, None),
        list_databases_raw(client),
        client.get(Path::new("services")),
    );
    let mut errors = Vec::new();
    let mut issues: Vec<Value> = Vec::new();
    let servers = settle(&mut errors, "servers", servers);
    let apps = settle(&mut errors, "applications", apps);
    let dbs = settle(&mut errors, "databases", dbs);
    let services = settle(&mut errors, "services", services);
    if let Some(servers) = &servers {
        server_issues(client, as_array(servers), &mut issues, &mut errors).await;
    }
    for (list, kind, label) in [
        (&apps, "application", "Application"),
        (&dbs, "database", "Database"),
        (&services, "service", "Service"),
    ] {
        for r in list.as_ref().map(as_array).unwrap_or(&[]) {
            let s = str_of(r, "status");
            if unhealthy(s) {
                issues.push(issue(
                    kind,
                    r,
                    format!("{label} status: {s}"),
                    s,
                    "critical",
                ));
            } else if unknown_health(s) {
                let text = format!(
                    "{label} running but health unknown ({s}) — no working healthcheck, so a failure would go undetected"
                );
                issues.push(issue(kind, r, text, s, "warning"));
            }
        }
    }
    let critical = |t: &str| {
        issues
            .iter()
            .filter(|i| i["severity"] == "critical" && i["type"] == t)
            .count()
    };
    let mut out = json!({
        "summary": {
            "total_issues": issues.len(),
            "unhealthy_applications": critical("application"),
            "unhealthy_databases": critical("database"),
            "unhealthy_services": critical("service"),
            "unreachable_servers": critical("server"),
            "warnings": issues.iter().filter(|i| i["severity"] == "warning").count(),
        },
        "issues": issues,
    });
    if !errors.is_empty() {
        out["errors"] = Value::Array(errors);
    }
    Ok(ToolOutput::Json(out))
}

/// One `find_issues` entry: `{type, uuid?, name?, issue, status, severity}`.
fn issue(kind: &str, r: &Value, text: String, status: &str, severity: &str) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(kind));
    for k in ["uuid", "name"] {
        if let Some(v) = r.get(k) {
            m.insert(k.into(), v.clone());
        }
    }
    m.insert("issue".into(), json!(text));
    m.insert("status".into(), json!(status));
    m.insert("severity".into(), json!(severity));
    Value::Object(m)
}

/// Server issues: every unreachable server (critical), then an outdated proxy per server
/// from its detail record (warning); a detail that cannot be read is an `errors` entry.
async fn server_issues(
    client: &Client,
    servers: &[Value],
    issues: &mut Vec<Value>,
    errors: &mut Vec<Value>,
) {
    for s in servers {
        if s.get("is_reachable") == Some(&Value::Bool(false)) {
            let st = Some(str_of(s, "status"))
                .filter(|x| !x.is_empty())
                .unwrap_or("unreachable");
            issues.push(issue(
                "server",
                s,
                "Server is not reachable".into(),
                st,
                "critical",
            ));
        }
    }
    let details = join_all(
        servers
            .iter()
            .map(|s| client.get(Path::new("servers").id(str_of(s, "uuid")))),
    )
    .await;
    for (s, d) in servers.iter().zip(details) {
        match d {
            Err(e) => errors.push(json!(format!(
                "server {}: {}",
                str_of(s, "name"),
                e.message
            ))),
            Ok(d) => {
                let info = &d["traefik_outdated_info"];
                if truthy(&info["latest"]) && truthy(&info["current"]) {
                    let kind = if info["type"] == "patch_update" {
                        "patch update"
                    } else {
                        "update"
                    };
                    let text = format!(
                        "Proxy (Traefik) {kind} available: {} → {}",
                        js_str(&info["current"]),
                        js_str(&info["latest"])
                    );
                    let st = Some(str_of(s, "status"))
                        .filter(|x| !x.is_empty())
                        .unwrap_or("running");
                    issues.push(issue("server", s, text, st, "warning"));
                }
            }
        }
    }
}

fn js_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => crate::json::compact(other),
    }
}
