//! Databases and services (reads used by overview/find_issues), `/resources`, health, teams,
//! private keys, and the API enable/disable switches.

use serde_json::Value;

use super::{Paging, ResourceKind};
use crate::client::LegacyEndpoint;
use crate::models::{Database, ResourceRow, Service, decode_list};
use crate::{ApiError, ApiPath, CoolifyClient};

impl CoolifyClient {
    /// `GET /databases[?page&per_page]`.
    pub async fn list_databases(&self, paging: Paging) -> Result<Value, ApiError> {
        self.get(&paging.apply(ApiPath::new("databases"))).await
    }

    /// `GET /databases`, typed.
    pub async fn list_databases_typed(&self) -> Result<Vec<Database>, ApiError> {
        decode_list("/databases", self.list_databases(Paging::NONE).await?)
    }

    /// `GET /databases/{uuid}`.
    pub async fn database(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ResourceKind::Database.item(uuid)?).await
    }

    /// `GET /services[?page&per_page]`.
    pub async fn list_services(&self, paging: Paging) -> Result<Value, ApiError> {
        self.get(&paging.apply(ApiPath::new("services"))).await
    }

    /// `GET /services`, typed.
    pub async fn list_services_typed(&self) -> Result<Vec<Service>, ApiError> {
        decode_list("/services", self.list_services(Paging::NONE).await?)
    }

    /// `GET /services/{uuid}`.
    pub async fn service(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ResourceKind::Service.item(uuid)?).await
    }

    /// `GET /resources` (every resource of the team).
    pub async fn resources(&self) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("resources")).await
    }

    /// `GET /resources`, typed.
    pub async fn resources_typed(&self) -> Result<Vec<ResourceRow>, ApiError> {
        decode_list("/resources", self.resources().await?)
    }

    /// `GET /health` (text `OK` on a healthy instance).
    pub async fn health(&self) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("health")).await
    }

    /// `GET /teams`.
    pub async fn teams(&self) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("teams")).await
    }

    /// `GET /teams/{id}`.
    pub async fn team(&self, id: u64) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("teams").num(id)).await
    }

    /// `GET /teams/{id}/members`.
    pub async fn team_members(&self, id: u64) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("teams").num(id).lit("members"))
            .await
    }

    /// `GET /teams/current`.
    pub async fn current_team(&self) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("teams").lit("current")).await
    }

    /// `GET /teams/current/members`.
    pub async fn current_team_members(&self) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("teams").lit("current").lit("members"))
            .await
    }

    /// `GET /security/keys`.
    pub async fn private_keys(&self) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("security").lit("keys")).await
    }

    /// `GET /security/keys/{uuid}`.
    pub async fn private_key(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("security").lit("keys").id("uuid", uuid)?)
            .await
    }

    /// `POST /enable` (GET fallback before v4.2).
    pub async fn enable_api(&self) -> Result<Value, ApiError> {
        self.post_with_legacy_get_fallback(LegacyEndpoint::ApiEnable, &ApiPath::new("enable"))
            .await
    }

    /// `POST /disable` (GET fallback before v4.2).
    pub async fn disable_api(&self) -> Result<Value, ApiError> {
        self.post_with_legacy_get_fallback(LegacyEndpoint::ApiDisable, &ApiPath::new("disable"))
            .await
    }
}
