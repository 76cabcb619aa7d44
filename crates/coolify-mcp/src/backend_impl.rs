//! The production [`Backend`]: `coolify-api`'s `CoolifyClient`, one per instance.
//!
//! Invariants: ids reach `coolify-api` as ids (validated there, so `../servers` or `?q=`
//! is refused before anything is sent); literal segments stay literal; the token never
//! appears in an error. A client that cannot be built (e.g. an unusable header) answers
//! every request with the build error instead of failing at boot.

use std::sync::Arc;

use coolify_api::{ApiPath, CoolifyClient, LegacyEndpoint, TokenSpec};
use serde_json::Value;

use crate::backend::{ApiError, ApiRequest, Backend, BoxFuture, HttpMethod, Path, QueryStyle, Seg};
use crate::config::{InstanceSpec, TokenSource};

/// The factory `main` passes to the server.
pub fn make_backend(spec: &InstanceSpec) -> Arc<dyn Backend> {
    let token = match &spec.token {
        TokenSource::Value(t) => TokenSpec::Inline(t.clone()),
        TokenSource::File(p) => TokenSpec::File(p.clone()),
    };
    let mut builder = CoolifyClient::builder(spec.url.clone(), token)
        .request_timeout(spec.request_timeout)
        .timeout_setting(spec.timeout_setting.clone());
    for (name, value) in &spec.headers {
        builder = builder.header(name.clone(), value.clone());
    }
    match builder.build() {
        Ok(client) => Arc::new(ApiBackend { client }),
        Err(e) => Arc::new(Broken {
            message: e.to_string(),
        }),
    }
}

struct ApiBackend {
    client: CoolifyClient,
}

fn convert_err(e: coolify_api::ApiError) -> ApiError {
    if e.is_unreachable() {
        return ApiError::unreachable(e.to_string());
    }
    ApiError::new(e.status(), e.to_string())
}

fn to_api_path(path: &Path) -> Result<ApiPath, ApiError> {
    let mut segments = path.segments.iter();
    let mut out = match segments.next() {
        Some(Seg::Lit(first)) => ApiPath::new(first),
        _ => {
            return Err(ApiError::new(
                None,
                "internal: a request path must start with a literal segment",
            ));
        }
    };
    for seg in segments {
        out = match seg {
            Seg::Lit(l) => out.lit(l),
            Seg::Id(id) => out.id("uuid", id).map_err(convert_err)?,
        };
    }
    for q in &path.query {
        out = match q.style {
            QueryStyle::Form => out.query(q.key, &q.value),
            QueryStyle::Component => out.query_component(q.key, &q.value),
        };
    }
    Ok(out)
}

fn method(m: HttpMethod) -> coolify_api::HttpMethod {
    match m {
        HttpMethod::Get => coolify_api::HttpMethod::Get,
        HttpMethod::Post => coolify_api::HttpMethod::Post,
        HttpMethod::Put => coolify_api::HttpMethod::Put,
        HttpMethod::Patch => coolify_api::HttpMethod::Patch,
        HttpMethod::Delete => coolify_api::HttpMethod::Delete,
    }
}

impl Backend for ApiBackend {
    fn send(&self, request: ApiRequest) -> BoxFuture<'_, Result<Value, ApiError>> {
        Box::pin(async move {
            let path = to_api_path(&request.path)?;
            self.client
                .send(method(request.method), &path, request.body.as_ref())
                .await
                .map_err(convert_err)
        })
    }

    fn version(&self) -> BoxFuture<'_, Result<String, ApiError>> {
        Box::pin(async move { self.client.version().await.map_err(convert_err) })
    }

    fn post_with_get_fallback(&self, path: Path) -> BoxFuture<'_, Result<Value, ApiError>> {
        Box::pin(async move {
            let api_path = to_api_path(&path)?;
            let key = match path.segments.first() {
                Some(Seg::Lit("enable")) => LegacyEndpoint::ApiEnable,
                Some(Seg::Lit("disable")) => LegacyEndpoint::ApiDisable,
                _ => LegacyEndpoint::ServersValidate,
            };
            self.client
                .post_with_legacy_get_fallback(key, &api_path)
                .await
                .map_err(convert_err)
        })
    }
}

/// A backend whose client could not be built.
struct Broken {
    message: String,
}

impl Backend for Broken {
    fn send(&self, _request: ApiRequest) -> BoxFuture<'_, Result<Value, ApiError>> {
        Box::pin(async move { Err(ApiError::new(None, self.message.clone())) })
    }
    fn version(&self) -> BoxFuture<'_, Result<String, ApiError>> {
        Box::pin(async move { Err(ApiError::new(None, self.message.clone())) })
    }
    fn post_with_get_fallback(&self, _path: Path) -> BoxFuture<'_, Result<Value, ApiError>> {
        Box::pin(async move { Err(ApiError::new(None, self.message.clone())) })
    }
}
