//! Application routes (list, detail, create, update, move, delete, previews), logs and
//! environment variables of applications/databases/services, and start/stop/restart.

use serde_json::{Value, json};

use super::{Paging, ResourceKind};
use crate::models::{Application, decode, decode_list};
use crate::{ApiError, ApiPath, CoolifyClient};

/// The create routes of `POST /applications/{kind}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplicationSource {
    /// `/applications/public`
    Public,
    /// `/applications/private-github-app`
    PrivateGithubApp,
    /// `/applications/private-deploy-key`
    PrivateDeployKey,
    /// `/applications/dockerimage`
    DockerImage,
    /// `/applications/dockerfile`
    Dockerfile,
    /// `/applications/dockercompose`
    DockerCompose,
}

impl ApplicationSource {
    fn segment(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::PrivateGithubApp => "private-github-app",
            Self::PrivateDeployKey => "private-deploy-key",
            Self::DockerImage => "dockerimage",
            Self::Dockerfile => "dockerfile",
            Self::DockerCompose => "dockercompose",
        }
    }
}

/// Query flags of `DELETE /applications/{uuid}` (and databases/services). Unset flags are not
/// sent; Coolify then applies its defaults (`delete_volumes` defaults to **true**).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// `delete_configurations`: remove the resource's configuration files.
    pub delete_configurations: Option<bool>,
    /// `delete_volumes`: remove its volumes (Coolify's default is true).
    pub delete_volumes: Option<bool>,
    /// `docker_cleanup`: run Docker cleanup on the server afterwards.
    pub docker_cleanup: Option<bool>,
    /// `delete_connected_networks`: remove the Docker networks it was connected to.
    pub delete_connected_networks: Option<bool>,
}

/// Query of the log routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogsQuery {
    /// Number of lines (reference default 100).
    pub lines: u64,
    /// `show_timestamps`, sent only when set.
    pub show_timestamps: Option<bool>,
}

impl Default for LogsQuery {
    fn default() -> Self {
        Self {
            lines: 100,
            show_timestamps: None,
        }
    }
}

/// Lifecycle actions of `POST /{collection}/{uuid}/{start|stop|restart}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlAction {
    /// `/start`
    Start,
    /// `/stop`
    Stop,
    /// `/restart`; services add `?latest=true` when `pull_latest` is set.
    Restart {
        /// Pull the latest images first (services only).
        pull_latest: bool,
    },
}

/// Where an environment-variable route points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvTarget<'a> {
    /// Applications, databases or services.
    pub kind: ResourceKind,
    /// The resource uuid.
    pub uuid: &'a str,
}

impl EnvTarget<'_> {
    fn path(self) -> Result<ApiPath, ApiError> {
        Ok(self.kind.item(self.uuid)?.lit("envs"))
    }
}

impl CoolifyClient {
    /// `GET /applications[?page&per_page]`.
    pub async fn list_applications(&self, paging: Paging) -> Result<Value, ApiError> {
        self.get(&paging.apply(ApiPath::new("applications"))).await
    }

    /// `GET /applications`, typed.
    pub async fn list_applications_typed(&self) -> Result<Vec<Application>, ApiError> {
        decode_list("/applications", self.list_applications(Paging::NONE).await?)
    }

    /// `GET /applications/{uuid}`.
    pub async fn application(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ResourceKind::Application.item(uuid)?).await
    }

    /// `GET /applications/{uuid}`, typed.
    pub async fn application_typed(&self, uuid: &str) -> Result<Application, ApiError> {
        decode("/applications/{uuid}", self.application(uuid).await?)
    }

    /// `POST /applications/{public|private-github-app|…}` with `body`.
    pub async fn create_application(
        &self,
        source: ApplicationSource,
        body: &Value,
    ) -> Result<Value, ApiError> {
        self.post(
            &ApiPath::new("applications").lit(source.segment()),
            Some(body),
        )
        .await
    }

    /// `PATCH /applications/{uuid}` with `body`.
    pub async fn update_application(&self, uuid: &str, body: &Value) -> Result<Value, ApiError> {
        self.patch(&ResourceKind::Application.item(uuid)?, body)
            .await
    }

    /// `POST /{collection}/{uuid}/move` `{environment_uuid}` (v4.2+).
    pub async fn move_resource(
        &self,
        kind: ResourceKind,
        uuid: &str,
        environment_uuid: &str,
    ) -> Result<Value, ApiError> {
        let body = json!({ "environment_uuid": environment_uuid });
        self.post(&kind.item(uuid)?.lit("move"), Some(&body)).await
    }

    /// `DELETE /{collection}/{uuid}[?delete_configurations&delete_volumes&docker_cleanup&delete_connected_networks]`.
    pub async fn delete_resource(
        &self,
        kind: ResourceKind,
        uuid: &str,
        options: DeleteOptions,
    ) -> Result<Value, ApiError> {
        let path = kind
            .item(uuid)?
            .query_opt("delete_configurations", options.delete_configurations)
            .query_opt("delete_volumes", options.delete_volumes)
            .query_opt("docker_cleanup", options.docker_cleanup)
            .query_opt(
                "delete_connected_networks",
                options.delete_connected_networks,
            );
        self.delete(&path).await
    }

    /// `DELETE /applications/{uuid}/previews/{pull_request_id}`.
    pub async fn delete_preview(
        &self,
        uuid: &str,
        pull_request_id: u64,
    ) -> Result<Value, ApiError> {
        self.delete(
            &ResourceKind::Application
                .item(uuid)?
                .lit("previews")
                .num(pull_request_id),
        )
        .await
    }

    /// `POST /{collection}/{uuid}/{start|stop|restart}` (services: `restart?latest=true` when
    /// asked).
    pub async fn control(
        &self,
        kind: ResourceKind,
        uuid: &str,
        action: ControlAction,
    ) -> Result<Value, ApiError> {
        let item = kind.item(uuid)?;
        let path = match action {
            ControlAction::Start => item.lit("start"),
            ControlAction::Stop => item.lit("stop"),
            ControlAction::Restart { pull_latest } => {
                let path = item.lit("restart");
                if kind == ResourceKind::Service && pull_latest {
                    path.query("latest", true)
                } else {
                    path
                }
            }
        };
        self.post(&path, None).await
    }

    /// Logs of an application (`GET /applications/{uuid}/logs?lines[&show_timestamps]`), a
    /// database (`/databases/{uuid}/logs`) or a service container
    /// (`/services/{uuid}/logs?sub_service_name=C&lines…`, `container` required for services).
    /// The `{logs}` envelope (or a bare string) is unwrapped to the log text.
    pub async fn logs(
        &self,
        kind: ResourceKind,
        uuid: &str,
        container: Option<&str>,
        query: LogsQuery,
    ) -> Result<String, ApiError> {
        let path = kind
            .item(uuid)?
            .lit("logs")
            .query_opt(
                "sub_service_name",
                container.filter(|_| kind == ResourceKind::Service),
            )
            .query("lines", query.lines)
            .query_opt("show_timestamps", query.show_timestamps);
        Ok(unwrap_logs(self.get(&path).await?))
    }

    /// `GET /{collection}/{uuid}/envs` (raw rows, values unmasked — mask before showing).
    pub async fn envs(&self, target: EnvTarget<'_>) -> Result<Value, ApiError> {
        self.get(&target.path()?).await
    }

    /// `POST /{collection}/{uuid}/envs` with `body` (`{key,value,is_*?}`).
    pub async fn create_env(&self, target: EnvTarget<'_>, body: &Value) -> Result<Value, ApiError> {
        self.post(&target.path()?, Some(body)).await
    }

    /// `PATCH /{collection}/{uuid}/envs` with `body`.
    pub async fn update_env(&self, target: EnvTarget<'_>, body: &Value) -> Result<Value, ApiError> {
        self.patch(&target.path()?, body).await
    }

    /// `PATCH /{collection}/{uuid}/envs/bulk` with `{data}`.
    pub async fn bulk_update_envs(
        &self,
        target: EnvTarget<'_>,
        body: &Value,
    ) -> Result<Value, ApiError> {
        self.patch(&target.path()?.lit("bulk"), body).await
    }

    /// `DELETE /{collection}/{uuid}/envs/{env_uuid}`.
    pub async fn delete_env(
        &self,
        target: EnvTarget<'_>,
        env_uuid: &str,
    ) -> Result<Value, ApiError> {
        self.delete(&target.path()?.id("env_uuid", env_uuid)?).await
    }
}

/// `{logs:"…"}` → the string; a bare string stays; anything else is empty (reference).
pub fn unwrap_logs(body: Value) -> String {
    match body {
        Value::String(text) => text,
        Value::Object(mut map) => match map.remove("logs") {
            Some(Value::String(text)) => text,
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        },
        _ => String::new(),
    }
}
