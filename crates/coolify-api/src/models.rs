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
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub ip: Option<String>,
    pub status: Option<String>,
    pub is_reachable: Option<bool>,
    pub is_usable: Option<bool>,
    /// Present on the detail view when a proxy update exists (`{current, latest, …}`).
    pub traefik_outdated_info: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Where an application runs (`application.destination`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Destination {
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub server_id: Option<IdLike>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An application (`GET /applications`, `/applications/{uuid}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Application {
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub status: Option<String>,
    /// Comma-separated URLs.
    pub fqdn: Option<String>,
    pub git_repository: Option<String>,
    pub git_branch: Option<String>,
    pub environment_id: Option<IdLike>,
    pub destination: Option<Destination>,
    /// Not on `GET /applications` (API gotcha) but sometimes on the detail view.
    pub server_uuid: Option<String>,
    pub project_uuid: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A database (`GET /databases`, `/databases/{uuid}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Database {
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub status: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub database_type: Option<String>,
    pub environment_id: Option<IdLike>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A service (`GET /services`, `/services/{uuid}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Service {
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub status: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub environment_id: Option<IdLike>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An environment of a project.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Environment {
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub project_id: Option<IdLike>,
    pub description: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A project (`GET /projects`, `/projects/{uuid}`; the detail carries `environments`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Project {
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    /// `None` when the field is absent (the batch tools must then refuse, SPEC §2.3).
    pub environments: Option<Vec<Environment>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An environment variable of an application, service or database.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EnvVar {
    pub uuid: Option<String>,
    pub key: Option<String>,
    pub value: Option<Value>,
    pub real_value: Option<Value>,
    pub is_buildtime: Option<bool>,
    pub is_runtime: Option<bool>,
    pub is_preview: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A deployment (queue entry: `GET /deployments`, `/deployments/{uuid}`, per-app lists).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Deployment {
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub deployment_uuid: Option<String>,
    pub application_id: Option<IdLike>,
    pub application_uuid: Option<String>,
    pub application_name: Option<String>,
    pub server_name: Option<String>,
    pub status: Option<String>,
    pub commit: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub finished_at: Option<String>,
    /// A JSON-array string of `{output, timestamp, hidden}` entries, or plain text.
    pub logs: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `GET /deployments/applications/{uuid}`: `{count, deployments}` (older fixtures and
/// instances answered a bare array; [`crate::CoolifyClient::application_deployments`]
/// normalises both).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeploymentList {
    pub count: Option<u64>,
    pub deployments: Vec<Value>,
}

/// One deployment started by `POST /deploy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TriggeredDeployment {
    pub message: Option<String>,
    pub resource_uuid: Option<String>,
    pub deployment_uuid: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `POST /deploy` answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeployResponse {
    pub deployments: Vec<TriggeredDeployment>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A row of `GET /resources` or `GET /servers/{uuid}/resources`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResourceRow {
    pub id: Option<IdLike>,
    pub uuid: Option<String>,
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub status: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A row of `GET /servers/{uuid}/domains`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerDomains {
    pub ip: Option<String>,
    pub domains: Vec<String>,
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
