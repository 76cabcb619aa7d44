//! Credentials and integrations: `private_keys`, `github_apps` and
//! `cloud_tokens`, including their guarded deletes and the guarded key replacement.
//!
//! Invariants: key material, GitHub app secrets and cloud-provider tokens are masked by the
//! sanitizer's always-masked list in every answer, `reveal` or not (none of these tools
//! takes `reveal`); nothing mutating is sent before the confirmation decision.

use serde_json::{Value, json};

use super::projects::name_of;
use super::reads::list_applications_raw;
use super::{Args, ToolError, ToolOutput, ToolResult, answer, guarded};
use crate::backend::{HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::confirm::{blast_radius, sanitize_for_prompt};
use crate::instances::Client;
use crate::json::js_string;
use crate::projection::{self as proj, as_array, str_of};

const GITHUB_APP: &[&str] = &["id", "uuid", "name", "organization", "is_public", "app_id"];

/// `"<name>" (<uuid>)` of a stored credential for a dialog, read with one GET.
async fn named(client: &Client, path: Path, uuid: &str) -> Result<String, String> {
    let row = client.get(path).await.map_err(|e| e.message)?;
    let name = Some(str_of(&row, "name"))
        .filter(|n| !n.is_empty())
        .unwrap_or(uuid);
    Ok(format!(
        "\"{}\" ({})",
        sanitize_for_prompt(name),
        sanitize_for_prompt(uuid)
    ))
}

/// Run one `private_keys` action.
pub async fn private_keys(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let client = &ctx.client;
    let keys = || Path::new("security").lit("keys");
    let uuid = args.nonempty("uuid");
    match (args.str("action").unwrap_or_default(), uuid) {
        ("list", _) => answer(client.get(keys()).await),
        ("get" | "update" | "delete", None) => Ok(ToolOutput::guard("Error: uuid required")),
        ("get", Some(u)) => answer(client.get(keys().id(u)).await),
        ("create", _) if !args.truthy("private_key") => {
            Ok(ToolOutput::guard("Error: private_key required"))
        }
        ("create", _) => {
            let mut body = serde_json::Map::new();
            body.insert(
                "private_key".into(),
                args.0.get("private_key").cloned().unwrap_or_default(),
            );
            let name = args.value("name").filter(|n| proj::truthy(n));
            body.insert("name".into(), name.cloned().unwrap_or(json!("unnamed-key")));
            if let Some(d) = args.0.get("description") {
                body.insert("description".into(), d.clone());
            }
            let body = Value::Object(body);
            answer(client.write(HttpMethod::Post, keys(), Some(body)).await)
        }
        ("update", Some(u)) if !args.0.contains_key("private_key") => {
            let body = args.pick(&["name", "description"]);
            answer(
                client
                    .write(HttpMethod::Patch, keys().id(u), Some(body))
                    .await,
            )
        }
        ("update", Some(u)) => {
            let summary = async {
                let who = named(client, keys().id(u), u).await?;
                Ok(Some(format!(
                    "Replace the key material of SSH private key {who}?\n\nThe current key material is overwritten and is not recoverable from Coolify. Anything authenticating with the old key stops working unless the new key is authorised in its place."
                )))
            };
            let body = args.pick(&["name", "description", "private_key"]);
            let op = async {
                answer(
                    client
                        .write(HttpMethod::Patch, keys().id(u), Some(body))
                        .await,
                )
            };
            guarded(
                ctx,
                "Replace an SSH private key's material. The current key is not recoverable.",
                summary,
                op,
            )
            .await
        }
        ("delete", Some(u)) => {
            let summary = async {
                let who = named(client, keys().id(u), u).await?;
                Ok(Some(format!(
                    "Delete SSH private key {who}?\n\nThe key material is not recoverable from Coolify. Any server access or private-repo deploys using this key stop working until you add the key again from your own copy."
                )))
            };
            let op = async { answer(client.write(HttpMethod::Delete, keys().id(u), None).await) };
            guarded(
                ctx,
                "Delete an SSH private key. Not recoverable from Coolify.",
                summary,
                op,
            )
            .await
        }
        (other, _) => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

/// The GitHub app with this id from a `GET /github-apps` answer (JS `===` on numbers).
fn find_app<'a>(apps: &'a Value, id: &Value) -> Option<&'a Value> {
    as_array(apps)
        .iter()
        .find(|a| a.get("id").and_then(Value::as_f64) == id.as_f64())
}

/// Run one `github_apps` action.
pub async fn github_apps(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let client = &ctx.client;
    let apps = || Path::new("github-apps");
    let action = args.str("action").unwrap_or_default();
    if action == "list" {
        let v = client.get(apps()).await?;
        return Ok(ToolOutput::Json(if v.is_array() {
            proj::pick_all(&v, GITHUB_APP)
        } else {
            v
        }));
    }
    if action == "create" {
        return create_github_app(args, ctx).await;
    }
    let Some(id) = args.value("id").filter(|v| proj::truthy(v)).cloned() else {
        return Ok(ToolOutput::guard("Error: id required"));
    };
    let id_text = js_string(&id);
    match action {
        "get" => {
            let all = client.get(apps()).await?;
            if !all.is_array() {
                return Err(ToolError::Message("apps.find is not a function".into()));
            }
            match find_app(&all, &id) {
                Some(app) => Ok(ToolOutput::Json(app.clone())),
                None => Err(ToolError::Message(format!(
                    "GitHub App with id {id_text} not found"
                ))),
            }
        }
        "update" => {
            let body = Value::Object(args.without(&["action", "id"]));
            answer(
                client
                    .write(HttpMethod::Patch, apps().id(&id_text), Some(body))
                    .await,
            )
        }
        "delete" => {
            let summary = github_delete_summary(client, &id, &id_text);
            let op = async {
                answer(
                    client
                        .write(HttpMethod::Delete, apps().id(&id_text), None)
                        .await,
                )
            };
            guarded(ctx, "Delete a GitHub app installation. Every application sourced from it loses its deploy source.", summary, op).await
        }
        "list_repos" => {
            let v = client.get(apps().id(&id_text).lit("repositories")).await?;
            Ok(ToolOutput::Json(match v.get("repositories") {
                Some(r) if !r.is_null() => r.clone(),
                _ => json!([]),
            }))
        }
        "list_branches" => {
            let (Some(owner), Some(repo)) = (args.nonempty("owner"), args.nonempty("repo")) else {
                return Ok(ToolOutput::guard("Error: id, owner, repo required"));
            };
            let path = apps()
                .id(&id_text)
                .lit("repositories")
                .id(owner)
                .id(repo)
                .lit("branches");
            answer(client.get(path).await)
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

async fn create_github_app(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let required = [
        "name",
        "api_url",
        "html_url",
        "app_id",
        "installation_id",
        "client_id",
        "client_secret",
        "private_key_uuid",
    ];
    if args.any_missing(&required) {
        return Ok(ToolOutput::guard(
            "Error: name, api_url, html_url, app_id, installation_id, client_id, client_secret, private_key_uuid required",
        ));
    }
    let mut keys = required.to_vec();
    keys.extend([
        "organization",
        "custom_user",
        "custom_port",
        "webhook_secret",
        "is_system_wide",
    ]);
    let body = args.pick(&keys);
    answer(
        ctx.client
            .write(HttpMethod::Post, Path::new("github-apps"), Some(body))
            .await,
    )
}

/// Counts the applications sourced from the installation (full rows: the summary drops
/// `source_id`); a matching id with no `source_type` counts, erring towards asking harder.
async fn github_delete_summary(
    client: &Client,
    id: &Value,
    id_text: &str,
) -> Result<Option<String>, String> {
    let (apps, gh) = futures::join!(
        list_applications_raw(client, None, None),
        client.get(Path::new("github-apps"))
    );
    let (apps, gh) = (apps.map_err(|e| e.message)?, gh.map_err(|e| e.message)?);
    let name = find_app(&gh, id)
        .map(|a| str_of(a, "name"))
        .filter(|n| !n.is_empty())
        .map_or_else(|| id_text.to_string(), str::to_string);
    let sourced: Vec<String> = as_array(&apps)
        .iter()
        .filter(|a| a.get("source_id").and_then(Value::as_f64) == id.as_f64())
        .filter(|a| match a.get("source_type") {
            None | Some(Value::Null) => true,
            Some(t) => js_string(t).contains("GithubApp"),
        })
        .map(name_of)
        .collect();
    let impact = if sourced.is_empty() {
        "No applications are currently sourced from it, but deleting the installation is not undoable from Coolify — re-linking anything later means re-creating the app on GitHub.".to_string()
    } else {
        format!(
            "{} sourced from it will lose their deploy source and cannot deploy until re-linked.",
            blast_radius("application", &sourced)
        )
    };
    Ok(Some(format!(
        "Delete GitHub app \"{}\" (id {id_text})?\n\n{impact}",
        sanitize_for_prompt(&name)
    )))
}

/// Run one `cloud_tokens` action.
pub async fn cloud_tokens(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let client = &ctx.client;
    let tokens = || Path::new("cloud-tokens");
    match (
        args.str("action").unwrap_or_default(),
        args.nonempty("uuid"),
    ) {
        ("list", _) => answer(client.get(tokens()).await),
        ("create", _) if args.any_missing(&["provider", "token", "name"]) => {
            Ok(ToolOutput::guard("Error: provider, token, name required"))
        }
        ("create", _) => {
            let body = args.pick(&["provider", "token", "name"]);
            answer(client.write(HttpMethod::Post, tokens(), Some(body)).await)
        }
        (_, None) => Ok(ToolOutput::guard("Error: uuid required")),
        ("get", Some(u)) => answer(client.get(tokens().id(u)).await),
        ("update", Some(u)) => {
            let body = args.pick(&["name"]);
            answer(
                client
                    .write(HttpMethod::Patch, tokens().id(u), Some(body))
                    .await,
            )
        }
        ("delete", Some(u)) => {
            let summary = async {
                let who = named(client, tokens().id(u), u).await?;
                Ok(Some(format!(
                    "Delete cloud-provider token {who}?\n\nThe token value is not recoverable from Coolify. Server provisioning through this provider stops working until you re-add the token from the provider's console."
                )))
            };
            let op = async { answer(client.write(HttpMethod::Delete, tokens().id(u), None).await) };
            guarded(
                ctx,
                "Delete a cloud-provider API token. Not recoverable from Coolify.",
                summary,
                op,
            )
            .await
        }
        ("validate", Some(u)) => answer(
            client
                .write(HttpMethod::Post, tokens().id(u).lit("validate"), None)
                .await,
        ),
        (other, _) => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}
