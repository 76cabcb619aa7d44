//! Server routes: list, detail, resources, domains, destinations, validate.

use serde_json::Value;

use super::Paging;
use crate::client::LegacyEndpoint;
use crate::models::{Server, decode, decode_list};
use crate::{ApiError, ApiPath, CoolifyClient};

impl CoolifyClient {
    /// `GET /servers[?page&per_page]`.
    pub async fn list_servers(&self, paging: Paging) -> Result<Value, ApiError> {
        self.get(&paging.apply(ApiPath::new("servers"))).await
    }

    /// `GET /servers`, typed.
    pub async fn list_servers_typed(&self) -> Result<Vec<Server>, ApiError> {
        decode_list("/servers", self.list_servers(Paging::NONE).await?)
    }

    /// `GET /servers/{uuid}`.
    pub async fn server(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("servers").id("uuid", uuid)?).await
    }

    /// `GET /servers/{uuid}`, typed.
    pub async fn server_typed(&self, uuid: &str) -> Result<Server, ApiError> {
        decode("/servers/{uuid}", self.server(uuid).await?)
    }

    /// `GET /servers/{uuid}/resources`.
    pub async fn server_resources(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("servers").id("uuid", uuid)?.lit("resources"))
            .await
    }

    /// `GET /servers/{uuid}/domains`.
    pub async fn server_domains(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("servers").id("uuid", uuid)?.lit("domains"))
            .await
    }

    /// `GET /servers/{server_uuid}/destinations`, or `GET /destinations` (v4.2+) without one.
    pub async fn destinations(&self, server_uuid: Option<&str>) -> Result<Value, ApiError> {
        let path = match server_uuid {
            Some(uuid) => ApiPath::new("servers")
                .id("server_uuid", uuid)?
                .lit("destinations"),
            None => ApiPath::new("destinations"),
        };
        self.get(&path).await
    }

    /// `POST /servers/{uuid}/validate` with the legacy GET fallback (pre-4.2 instances).
    pub async fn validate_server(&self, uuid: &str) -> Result<Value, ApiError> {
        let path = ApiPath::new("servers").id("uuid", uuid)?.lit("validate");
        self.post_with_legacy_get_fallback(LegacyEndpoint::ServersValidate, &path)
            .await
    }
}
