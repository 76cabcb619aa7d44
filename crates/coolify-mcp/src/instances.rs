//! The instance registry and the per-instance [`Client`] every surface uses.
//!
//! Invariants:
//! - fleet mode ⇔ more than one instance; the first instance is the default;
//! - an absent or empty name means the default for tools and prompts, but resources
//!   resolve with [`Instances::resolve_exact`], which never falls back;
//! - an unknown name is an error naming the configured instances, never the default;
//! - the backend of an instance is built on first use (no network or TLS work at boot);
//! - every 2xx body passes through the sanitizer before anyone else sees it.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::backend::{ApiError, ApiRequest, Backend, BackendFactory, HttpMethod, Path};
use crate::config::{InstanceSpec, clip};
use crate::sanitize::{Reveal, sanitized};

/// One configured instance.
pub struct Instance {
    /// Its configuration.
    pub spec: InstanceSpec,
    backend: OnceLock<Arc<dyn Backend>>,
    factory: BackendFactory,
}

impl Instance {
    /// The instance's configured name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The client of this instance (built lazily).
    pub fn client(&self) -> Client {
        let backend = self
            .backend
            .get_or_init(|| (self.factory)(&self.spec))
            .clone();
        Client { backend }
    }
}

/// `Unknown instance "<name>". Configured instances: a, b`
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown instance \"{}\". Configured instances: {}", clip(.name, 40), .known.join(", "))]
pub struct UnknownInstance {
    /// The name asked for.
    pub name: String,
    /// The configured names, default first.
    pub known: Vec<String>,
}

/// All configured instances.
pub struct Instances {
    list: Vec<Instance>,
}

impl Instances {
    /// The instances of `specs` (the first is the default), each with a lazily built client.
    pub fn new(specs: Vec<InstanceSpec>, factory: BackendFactory) -> Self {
        let list = specs
            .into_iter()
            .map(|spec| Instance {
                spec,
                backend: OnceLock::new(),
                factory: factory.clone(),
            })
            .collect();
        Self { list }
    }

    /// More than one instance is configured (fleet mode).
    pub fn is_fleet(&self) -> bool {
        self.list.len() > 1
    }

    /// Every instance, default first.
    pub fn all(&self) -> &[Instance] {
        &self.list
    }

    /// The first configured instance, used when a call names none.
    pub fn default_instance(&self) -> &Instance {
        &self.list[0]
    }

    /// The configured names, default first.
    pub fn names(&self) -> Vec<String> {
        self.list.iter().map(|i| i.spec.name.clone()).collect()
    }

    /// Tools and prompts: absent or `""` means the default.
    pub fn resolve(&self, name: Option<&str>) -> Result<&Instance, UnknownInstance> {
        match name {
            None | Some("") => Ok(self.default_instance()),
            Some(n) => self.resolve_exact(n),
        }
    }

    /// Resources: the name must match exactly (case-sensitive), no fallback.
    pub fn resolve_exact(&self, name: &str) -> Result<&Instance, UnknownInstance> {
        self.list
            .iter()
            .find(|i| i.spec.name == name)
            .ok_or_else(|| UnknownInstance {
                name: name.to_string(),
                known: self.names(),
            })
    }
}

/// Requests against one instance, sanitized.
#[derive(Clone)]
pub struct Client {
    backend: Arc<dyn Backend>,
}

impl Client {
    /// A client over `backend`.
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        Self { backend }
    }

    /// Send and sanitize with the given reveal setting.
    pub async fn send(&self, request: ApiRequest, reveal: Reveal) -> Result<Value, ApiError> {
        self.backend
            .send(request)
            .await
            .map(|v| sanitized(v, reveal))
    }

    /// `GET`, masked.
    pub async fn get(&self, path: Path) -> Result<Value, ApiError> {
        self.send(ApiRequest::get(path), Reveal::Masked).await
    }

    /// `GET` with optional query pairs, masked.
    pub async fn get_query(
        &self,
        path: Path,
        query: &[(&'static str, Option<String>)],
    ) -> Result<Value, ApiError> {
        self.get(path.with_query(query.to_vec())).await
    }

    /// A mutating request, masked response.
    pub async fn write(
        &self,
        method: HttpMethod,
        path: Path,
        body: Option<Value>,
    ) -> Result<Value, ApiError> {
        self.send(ApiRequest::new(method, path, body), Reveal::Masked)
            .await
    }

    /// The instance's Coolify version (`GET /version`).
    pub async fn version(&self) -> Result<String, ApiError> {
        self.backend.version().await
    }

    /// `POST`, falling back to `GET` when the route is method-rejected (the v4.2 GET→POST
    /// change). The backend implements the exact rules.
    pub async fn post_with_get_fallback(&self, path: Path) -> Result<Value, ApiError> {
        self.backend
            .post_with_get_fallback(path)
            .await
            .map(|v| crate::sanitize::sanitized(v, Reveal::Masked))
    }
}

/// A page/per_page query pair.
pub fn paging(page: Option<u64>, per_page: Option<u64>) -> [(&'static str, Option<String>); 2] {
    [
        ("page", page.map(|p| p.to_string())),
        ("per_page", per_page.map(|p| p.to_string())),
    ]
}
