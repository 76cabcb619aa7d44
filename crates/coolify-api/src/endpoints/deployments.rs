//! Deployment routes: list, detail, per-application list, deploy by uuid or tag, cancel.

use serde_json::Value;

use super::Paging;
use crate::models::{DeployResponse, Deployment, DeploymentList, decode};
use crate::{ApiError, ApiPath, CoolifyClient};

/// What `POST /deploy` targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeployTarget {
    /// `?uuid=<resource uuid>`
    Uuid(String),
    /// `?tag=<tag name>`
    Tag(String),
}

impl DeployTarget {
    /// The reference's choice: a value that [`looks_like_uuid`] is a uuid, anything else a tag
    /// (so the fixture's short `app-api` goes as `tag=app-api`, as upstream does).
    pub fn detect(tag_or_uuid: &str) -> Self {
        if looks_like_uuid(tag_or_uuid) {
            Self::Uuid(tag_or_uuid.to_owned())
        } else {
            Self::Tag(tag_or_uuid.to_owned())
        }
    }
}

/// Whether a deployment also rebuilds without cache (`force=true|false`, always sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Force {
    /// `force=false`
    #[default]
    No,
    /// `force=true`
    Yes,
}

/// `skip`/`take` paging of `GET /deployments/applications/{uuid}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkipTake {
    /// How many deployments to skip, newest first.
    pub skip: u64,
    /// How many to return.
    pub take: u64,
}

/// Coolify uuid shape: `^[a-z0-9]{20,}$` (case-insensitive) or 8-4-4-4-12 hex.
pub fn looks_like_uuid(value: &str) -> bool {
    let cuid = value.len() >= 20 && value.bytes().all(|b| b.is_ascii_alphanumeric());
    let groups: Vec<&str> = value.split('-').collect();
    let hex = groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()));
    cuid || hex
}

impl CoolifyClient {
    /// `GET /deployments[?page&per_page]` (running/queued deployments).
    pub async fn list_deployments(&self, paging: Paging) -> Result<Value, ApiError> {
        self.get(&paging.apply(ApiPath::new("deployments"))).await
    }

    /// `GET /deployments/{uuid}` (carries `logs`, a JSON-array string).
    pub async fn deployment(&self, uuid: &str) -> Result<Value, ApiError> {
        self.get(&ApiPath::new("deployments").id("uuid", uuid)?)
            .await
    }

    /// `GET /deployments/{uuid}`, typed.
    pub async fn deployment_typed(&self, uuid: &str) -> Result<Deployment, ApiError> {
        decode("/deployments/{uuid}", self.deployment(uuid).await?)
    }

    /// `GET /deployments/applications/{uuid}[?skip&take]` (raw `{count, deployments}`).
    pub async fn application_deployments(
        &self,
        uuid: &str,
        window: Option<SkipTake>,
    ) -> Result<Value, ApiError> {
        let mut path = ApiPath::new("deployments")
            .lit("applications")
            .id("uuid", uuid)?;
        if let Some(window) = window {
            path = path.query("skip", window.skip).query("take", window.take);
        }
        self.get(&path).await
    }

    /// Typed [`application_deployments`](Self::application_deployments). Like the reference,
    /// a body without a `deployments` array yields an empty list; `count` falls back to the
    /// number of rows.
    pub async fn application_deployments_typed(
        &self,
        uuid: &str,
        window: Option<SkipTake>,
    ) -> Result<DeploymentList, ApiError> {
        let body = self.application_deployments(uuid, window).await?;
        let deployments = match body.get("deployments") {
            Some(Value::Array(rows)) => rows.clone(),
            _ => Vec::new(),
        };
        let count = body
            .get("count")
            .and_then(Value::as_u64)
            .unwrap_or(deployments.len() as u64);
        Ok(DeploymentList {
            count: Some(count),
            deployments,
        })
    }

    /// `POST /deploy?uuid=<v>&force=<b>` or `?tag=<v>&force=<b>`.
    pub async fn deploy(&self, target: &DeployTarget, force: Force) -> Result<Value, ApiError> {
        let path = match target {
            DeployTarget::Uuid(uuid) => ApiPath::new("deploy").query_component("uuid", uuid),
            DeployTarget::Tag(tag) => ApiPath::new("deploy").query_component("tag", tag),
        };
        self.post(&path.query("force", force == Force::Yes), None)
            .await
    }

    /// Typed [`deploy`](Self::deploy).
    pub async fn deploy_typed(
        &self,
        target: &DeployTarget,
        force: Force,
    ) -> Result<DeployResponse, ApiError> {
        decode("/deploy", self.deploy(target, force).await?)
    }

    /// `POST /deployments/{uuid}/cancel`.
    pub async fn cancel_deployment(&self, uuid: &str) -> Result<Value, ApiError> {
        self.post(
            &ApiPath::new("deployments").id("uuid", uuid)?.lit("cancel"),
            None,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_detection_matches_the_reference() {
        assert!(looks_like_uuid("h8k3m2n4p5q6r7s8t9u0v1w2"));
        assert!(looks_like_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(!looks_like_uuid("app-api"));
        assert!(!looks_like_uuid("short1"));
        assert_eq!(
            DeployTarget::detect("app-api"),
            DeployTarget::Tag("app-api".into())
        );
    }
}
