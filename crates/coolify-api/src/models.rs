//! Typed views of the Coolify objects the core tools reason about.
//!
//! Tolerant by design: every field is optional (`#[serde(default)]`), fields whose JSON type
//! varies between Coolify versions are [`IdLike`] or [`Value`], and every unknown field is kept
//! in `extra`. These types are for *decisions* (status checks, name resolution, environment
//! matching); anything shown to a user should come from the raw `Value` (key order, exact
//! upstream fields) through the MCP server's sanitizer. Convert with [`decode`] or
//! [`decode_list`].

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ApiError;

/// An id that Coolify sends as a number on some versions and a string on others.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum IdLike {
    /// Numeric id.
    Num(i64),
    /// String id.
    Str(String),
}

impl IdLike {
    /// The id as an integer, when it is one (or a string holding one).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Self::Num(n) => Some(*n),
            Self::Str(s) => s.trim().parse().ok(),
        }
    }
}

/// Decode a raw body into `T`; `path` names the endpoint in the error.
pub fn decode<T: DeserializeOwned>(path: &str, value: Value) -> Result<T, ApiError> {
    serde_json::from_value(value).map_err(|e| ApiError::Decode {
        path: path.to_owned(),
        detail: e.to_string(),
    })
}

/// Decode a raw list body; a non-array body is a [`ApiError::Decode`] error (Coolify answers
/// some errors with 200 and an object, e.g. `{"message":"Not found."}`).
pub fn decode_list<T: DeserializeOwned>(path: &str, value: Value) -> Result<Vec<T>, ApiError> {
    match value {
        Value::Array(_) => decode(path, value),
        other => Err(ApiError::Decode {
            path: path.to_owned(),
            detail: format!("expected a list, got {}", kind(&other)),
        }),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A server (`GET /servers`, `/servers/{uuid}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Server {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// IP address or host name Coolify connects to.
    pub ip: Option<String>,
    /// Status text as Coolify reports it.
    pub status: Option<String>,
    /// Whether Coolify could reach it over SSH at the last check.
    pub is_reachable: Option<bool>,
    /// Whether it is validated and can run resources.
    pub is_usable: Option<bool>,
    /// Present on the detail view when a proxy update exists (`{current, latest, …}`).
    pub traefik_outdated_info: Option<Value>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Where an application runs (`application.destination`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Destination {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// Numeric id of the server it belongs to.
    pub server_id: Option<IdLike>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An application (`GET /applications`, `/applications/{uuid}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Application {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// Status text, e.g. `running:healthy` or `exited:unhealthy`.
    pub status: Option<String>,
    /// Comma-separated URLs.
    pub fqdn: Option<String>,
    /// The Git repository it builds from.
    pub git_repository: Option<String>,
    /// The branch it builds.
    pub git_branch: Option<String>,
    /// Numeric id of its environment.
    pub environment_id: Option<IdLike>,
    /// The Docker destination it runs on, when the answer nests it.
    pub destination: Option<Destination>,
    /// Not on `GET /applications` (API gotcha) but sometimes on the detail view.
    pub server_uuid: Option<String>,
    /// UUID of its project, when given.
    pub project_uuid: Option<String>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A database (`GET /databases`, `/databases/{uuid}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Database {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// Status text as Coolify reports it.
    pub status: Option<String>,
    /// The database engine as `type`, e.g. `standalone-postgresql`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The engine under its other key, `database_type`, on some versions.
    pub database_type: Option<String>,
    /// Numeric id of its environment.
    pub environment_id: Option<IdLike>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A service (`GET /services`, `/services/{uuid}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Service {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// Status text as Coolify reports it.
    pub status: Option<String>,
    /// The service template it was created from, as `type`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Numeric id of its environment.
    pub environment_id: Option<IdLike>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An environment of a project.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Environment {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// Name, e.g. `production`.
    pub name: Option<String>,
    /// Numeric id of its project.
    pub project_id: Option<IdLike>,
    /// Description, if set.
    pub description: Option<String>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A project (`GET /projects`, `/projects/{uuid}`; the detail carries `environments`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Project {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// Description, if set.
    pub description: Option<String>,
    /// `None` when the field is absent (the batch tools must then refuse).
    pub environments: Option<Vec<Environment>>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An environment variable of an application, service or database.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EnvVar {
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// The variable's name.
    pub key: Option<String>,
    /// Its value as the API shows it (possibly masked or unresolved).
    pub value: Option<Value>,
    /// Its value with references resolved, when the API sends it.
    pub real_value: Option<Value>,
    /// Available at build time.
    pub is_buildtime: Option<bool>,
    /// Available at run time.
    pub is_runtime: Option<bool>,
    /// Used for preview deployments only.
    pub is_preview: Option<bool>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A deployment (queue entry: `GET /deployments`, `/deployments/{uuid}`, per-app lists).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Deployment {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by (some endpoints).
    pub uuid: Option<String>,
    /// The deployment's UUID (other endpoints).
    pub deployment_uuid: Option<String>,
    /// Numeric id of the application deployed.
    pub application_id: Option<IdLike>,
    /// UUID of the application deployed.
    pub application_uuid: Option<String>,
    /// Name of the application deployed.
    pub application_name: Option<String>,
    /// Name of the server it runs on.
    pub server_name: Option<String>,
    /// Status, e.g. `queued`, `in_progress`, `finished`, `failed`.
    pub status: Option<String>,
    /// The commit deployed, if known.
    pub commit: Option<String>,
    /// When it was queued.
    pub created_at: Option<String>,
    /// When it last changed.
    pub updated_at: Option<String>,
    /// When it ended, once it has.
    pub finished_at: Option<String>,
    /// A JSON-array string of `{output, timestamp, hidden}` entries, or plain text.
    pub logs: Option<String>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `GET /deployments/applications/{uuid}`: `{count, deployments}` (older fixtures and
/// instances answered a bare array; [`crate::CoolifyClient::application_deployments`]
/// normalises both).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeploymentList {
    /// Total deployments of the application, when the answer has it.
    pub count: Option<u64>,
    /// The page of deployments, as sent.
    pub deployments: Vec<Value>,
}

/// One deployment started by `POST /deploy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TriggeredDeployment {
    /// Coolify's message about the deployment it started.
    pub message: Option<String>,
    /// UUID of the resource being deployed.
    pub resource_uuid: Option<String>,
    /// UUID of the new deployment.
    pub deployment_uuid: Option<String>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `POST /deploy` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeployResponse {
    /// One entry per deployment started.
    pub deployments: Vec<TriggeredDeployment>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A row of `GET /resources` or `GET /servers/{uuid}/resources`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResourceRow {
    /// Numeric database id.
    pub id: Option<IdLike>,
    /// The UUID the API addresses it by.
    pub uuid: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// The kind of resource, as `type` (`application`, `service`, `standalone-redis`, …).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Status: a string, or an object on some versions.
    pub status: Option<Value>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A row of `GET /servers/{uuid}/domains`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerDomains {
    /// The server IP the domains point at.
    pub ip: Option<String>,
    /// The domains served from that IP.
    pub domains: Vec<String>,
    /// Every field not named above, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_are_kept_and_ids_accept_both_shapes() {
        let app: Application = decode(
            "/applications/x",
            json!({"id": "101", "uuid": "x", "destination": {"server_id": 0}, "build_pack": "nixpacks"}),
        )
        .unwrap();
        assert_eq!(app.id.as_ref().and_then(IdLike::as_i64), Some(101));
        assert_eq!(app.destination.unwrap().server_id, Some(IdLike::Num(0)));
        assert_eq!(app.extra.get("build_pack"), Some(&json!("nixpacks")));
    }

    #[test]
    fn a_not_found_object_is_not_a_list() {
        let err = decode_list::<Application>("/applications", json!({"message": "Not found."}))
            .unwrap_err();
        assert!(matches!(err, ApiError::Decode { .. }), "{err:?}");
    }
}
