//! Project and environment routes (used by `projects`, `environments`, `application move`,
//! `restart_project_apps`, `redeploy_project`).

use serde_json::Value;

use super::Paging;
use crate::models::{Project, decode, decode_list};
use crate::{ApiError, ApiPath, CoolifyClient};

impl CoolifyClient {
    /// `GET /projects[?page&per_page]`.
    pub async fn list_projects(&self, paging: Paging) -> Result<Value, ApiError> {
        self.get(&paging.apply(ApiPath::new("projects"))).await
    }

    /// `GET /projects`, typed.
    pub async fn list_projects_typed(&self) -> Result<Vec<Project>, ApiError> {
        decode_list("/projects", self.list_projects(Paging::NONE).await?)
    }

    /// `GET /projects/{uuid}` (carries `environments`).
    pub async fn project(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("projects").id("uuid", uuid)?).await
    }

    /// `GET /projects/{uuid}`, typed.
    pub async fn project_typed(&self, uuid: &str) -> Result<Project, ApiError> {
        decode("/projects/{uuid}", self.project(uuid).await?)
    }

    /// `POST /projects` with `body` (`{name, description}`).
    pub async fn create_project(&self, body: &Value) -> Result<Value, ApiError> {
        self.post(&ApiPath::new("projects"), Some(body)).await
    }

    /// `PATCH /projects/{uuid}` with `body`.
    pub async fn update_project(&self, uuid: &str, body: &Value) -> Result<Value, ApiError> {
        self.patch(&ApiPath::new("projects").id("uuid", uuid)?, body)
            .await
    }

    /// `DELETE /projects/{uuid}`.
    pub async fn delete_project(&self, uuid: &str) -> Result<Value, ApiError> {
        self.delete(&ApiPath::new("projects").id("uuid", uuid)?)
            .await
    }

    /// `GET /projects/{project_uuid}/environments`.
    pub async fn environments(&self, project_uuid: &str) -> Result<Value, ApiError> {
        self.get(
            &ApiPath::new("projects")
                .id("project_uuid", project_uuid)?
                .lit("environments"),
        )
        .await
    }

    /// `GET /projects/{project_uuid}/{environment_name_or_uuid}`.
    pub async fn environment(
        &self,
        project_uuid: &str,
        name_or_uuid: &str,
    ) -> Result<Value, ApiError> {
        let path = ApiPath::new("projects")
            .id("project_uuid", project_uuid)?
            .id("environment name", name_or_uuid)?;
        self.get(&path).await
    }

    /// `POST /projects/{project_uuid}/environments` with `body` (`{name, description}`).
    pub async fn create_environment(
        &self,
        project_uuid: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        self.post(
            &ApiPath::new("projects")
                .id("project_uuid", project_uuid)?
                .lit("environments"),
            Some(body),
        )
        .await
    }

    /// `DELETE /projects/{project_uuid}/environments/{environment_name_or_uuid}`.
    pub async fn delete_environment(
        &self,
        project_uuid: &str,
        name_or_uuid: &str,
    ) -> Result<Value, ApiError> {
        let path = ApiPath::new("projects")
            .id("project_uuid", project_uuid)?
            .lit("environments")
            .id("environment name", name_or_uuid)?;
        self.delete(&path).await
    }
}
