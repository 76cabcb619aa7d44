//! The instance registry and the per-instance [`Client`] every surface uses.
//!
//! Invariants:
//! - fleet mode ⇔ more than one instance; the first instance is the default;
//! - an absent or empty name means the default for tools and prompts, but resources
//!   resolve with [`Instances::resolve_exact`], which never falls back;
//! - an unknown name is an error naming the configured instances, never the default;
//! - the backend of an instance is built on first use (no network or TLS work at boot);
//! - every 2xx body passes through the sanitizer before anyone else sees it;
//! - while serving a request under an OAuth grant ([`signed_in`]), every client sends the
//!   signed-in user's own token to the default instance and refuses every other instance: a
//!   grant never exceeds what the user's token may do.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

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
    /// Backends built with signed-in users' own tokens, by the token's digest.
    user_backends: Mutex<HashMap<String, Arc<dyn Backend>>>,
    /// The first configured instance: the one OAuth sign-in checks tokens against.
    is_default: bool,
}

tokio::task_local! {
    /// The Coolify token of the user an OAuth grant was issued to, while serving that
    /// request (see [`signed_in`]).
    static SIGNED_IN: Arc<str>;
}

/// Run `f` on behalf of a signed-in user (when `token` is some): every [`Instance::client`]
/// built inside it sends the user's own token, so nothing done for the request can exceed what
/// that token may do. Nothing inside may spawn a task that builds a client.
pub async fn signed_in<F: std::future::Future>(token: Option<String>, f: F) -> F::Output {
    match token {
        Some(t) => SIGNED_IN.scope(Arc::from(t), f).await,
        None => f.await,
    }
}

/// The backend of a fleet instance for a signed-in user: the user's token is for the default
/// instance only, so every request is refused with that explanation.
struct NotSignedInHere {
    message: String,
}

impl NotSignedInHere {
    fn refuse(&self) -> ApiError {
        ApiError::new(None, self.message.clone())
    }
}

impl Backend for NotSignedInHere {
    fn send(&self, _request: ApiRequest) -> crate::backend::BoxFuture<'_, Result<Value, ApiError>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn version(&self) -> crate::backend::BoxFuture<'_, Result<String, ApiError>> {
        Box::pin(async move { Err(self.refuse()) })
    }
    fn post_with_get_fallback(
        &self,
        _path: Path,
    ) -> crate::backend::BoxFuture<'_, Result<Value, ApiError>> {
        Box::pin(async move { Err(self.refuse()) })
    }
}

/// Signed-in users' backends kept per instance; past it the cache starts over.
const MAX_USER_BACKENDS: usize = 256;

impl Instance {
    /// The instance's configured name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The client of this instance (built lazily). Inside [`signed_in`] it sends the signed-in
    /// user's token (and refuses on any instance but the default).
    pub fn client(&self) -> Client {
        if let Ok(token) = SIGNED_IN.try_with(Arc::clone) {
            if self.is_default {
                return self.client_as(&token);
            }
            return Client {
                backend: Arc::new(NotSignedInHere {
                    message: format!(
                        "You signed in with a Coolify token of the default instance, so requests under your sign-in cannot reach instance \"{}\". Omit \"instance\" (or name the default one), or connect with a client configured with a token for it",
                        self.name()
                    ),
                }),
            };
        }
        let backend = self
            .backend
            .get_or_init(|| (self.factory)(&self.spec))
            .clone();
        Client { backend }
    }

    /// A client of this instance that sends `token` (a signed-in user's own) instead of the
    /// configured one; built once per token and kept (up to [`MAX_USER_BACKENDS`]).
    pub fn client_as(&self, token: &str) -> Client {
        use sha2::{Digest, Sha256};
        let key: String = Sha256::digest(token.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let mut cache = self.user_backends.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(backend) = cache.get(&key) {
            return Client {
                backend: backend.clone(),
            };
        }
        if cache.len() >= MAX_USER_BACKENDS {
            cache.clear();
        }
        let spec = InstanceSpec {
            token: crate::config::TokenSource::Value(token.to_string()),
            ..self.spec.clone()
        };
        let backend = (self.factory)(&spec);
        cache.insert(key, backend.clone());
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
            .enumerate()
            .map(|(i, spec)| Instance {
                spec,
                backend: OnceLock::new(),
                factory: factory.clone(),
                user_backends: Mutex::new(HashMap::new()),
                is_default: i == 0,
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
