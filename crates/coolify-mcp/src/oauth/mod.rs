//! The OAuth 2.1 authorization server of the HTTP transport: metadata
//! (RFC 9728 protected resource, RFC 8414 authorization server), dynamic client registration,
//! `/authorize` (a form where the user proves access with their own Coolify token) and
//! `/token` (authorization code with PKCE S256, refresh with rotation; `token`).
//!
//! Beside `http` (which mounts [`routes`] and asks [`Authority::client_for`] about bearer
//! tokens); imports `http_limits` and `config` only.
//!
//! Invariants:
//! - the Coolify token typed into the form is checked with one `GET /api/v1/teams/current`
//!   (10 s timeout); it is never logged, echoed back or stored in the clear: it is kept only
//!   sealed under the code and then under each token it grants (`sealed`), and every call under
//!   the grant uses it, so a grant never exceeds what the user's own token may do;
//! - public clients only: a code is redeemed once, by the client and redirect URI it was
//!   issued for, with the PKCE verifier of its challenge; a refresh token is rotated on use;
//! - nothing is redirected to a URI the client did not register (errors before that check
//!   are a plain page);
//! - `/register`, `/authorize` and `/token` are rate-limited per client address (`limit`);
//! - every sign-in route checks `Host` like `/mcp` and forbids framing (`guard`);
//! - state lives behind `state::OAuthStore` and the rate limit behind `state::Limiter` (the
//!   state file, or Redis shared by replicas on several machines); a bearer check looks up one
//!   token (the file store re-reads the file only after it changed), so its cost does not grow
//!   with the number of registered clients;
//! - tokens are bound to the canonical MCP URL (`<public URL>/mcp`, the RFC 8707 resource): a
//!   `resource` naming anything else is refused, and a token issued under another public URL
//!   (a server sharing the state file) opens nothing here.

mod flow;
pub mod guard;
mod limit;
mod page;
pub mod redis_store;
pub mod sealed;
pub mod state;
pub mod store;
mod token;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use coolify_api::Prober;
use serde_json::json;

pub use limit::{PER_MINUTE, RateLimit, WINDOW, client_address};
use state::{FileState, Limiter, OAuthStore};
use store::{Store, StoreError, digest, now_secs};

use crate::config::OAuthSpec;
use crate::http_limits::PeerAddr;

/// How long the Coolify token check may take.
pub const COOLIFY_CHECK_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an authorization code stays redeemable.
pub const CODE_TTL_SECS: u64 = 300;

/// Why the authorization server could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("OAuth: cannot probe the Coolify instance for sign-in checks ({0})")]
pub struct AuthorityError(String);

/// The authorization server's state (one per process; the file is shared between processes).
pub struct Authority {
    spec: OAuthSpec,
    public_url: String,
    store: Arc<dyn OAuthStore>,
    limit: Arc<dyn Limiter>,
    prober: Prober,
}

impl std::fmt::Debug for Authority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authority")
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

impl Authority {
    /// Set up with `public_url` (no trailing slash) as issuer and resource base.
    pub fn new(spec: OAuthSpec, public_url: String) -> Result<Self, AuthorityError> {
        let prober = Prober::new(
            &spec.coolify_url,
            spec.coolify_headers.clone(),
            COOLIFY_CHECK_TIMEOUT,
        )
        .map_err(|e| AuthorityError(e.to_string()))?;
        let (store, limit): (Arc<dyn OAuthStore>, Arc<dyn Limiter>) = match &spec.state_url {
            Some(url) => {
                let redis = redis_store::RedisState::open(url)
                    .map_err(|e| AuthorityError(e.to_string()))?;
                let redis = Arc::new(redis);
                (redis.clone(), redis)
            }
            None => (
                Arc::new(FileState::new(Store::new(&spec.state_file))),
                Arc::new(RateLimit::default()),
            ),
        };
        Ok(Self {
            store,
            public_url: public_url.trim_end_matches('/').to_string(),
            spec,
            limit,
            prober,
        })
    }

    /// The issuer (and resource base) URL.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// The protected-resource metadata URL named in `WWW-Authenticate`.
    pub fn resource_metadata_url(&self) -> String {
        format!(
            "{}/.well-known/oauth-protected-resource/mcp",
            self.public_url
        )
    }

    /// The canonical MCP URL: the RFC 8707 resource every token is bound to.
    pub fn resource_url(&self) -> String {
        format!("{}/mcp", self.public_url)
    }

    /// Check a `resource` parameter: absent, or this server's canonical MCP URL (a trailing
    /// slash aside). The refusal says what was expected.
    pub fn check_resource(&self, resource: Option<&str>) -> Result<(), String> {
        let Some(r) = resource else {
            return Ok(());
        };
        let canonical = self.resource_url();
        if r.trim_end_matches('/') == canonical {
            Ok(())
        } else {
            Err(format!(
                "resource must be {canonical}, this server's MCP endpoint"
            ))
        }
    }

    /// The OAuth client an access token was issued to and the signed-in user's Coolify token
    /// (opened with the access token), while the grant is valid and bound to this server's
    /// resource. One lookup of one key, whatever the number of clients.
    pub async fn client_for(
        &self,
        access_token: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        let resource = self.resource_url();
        let Some(grant) = self
            .store
            .access(digest(access_token))
            .await?
            .filter(|g| g.exp > now_secs() && g.resource == resource)
        else {
            return Ok(None);
        };
        Ok(sealed::open(&grant.sealed_token, access_token).map(|t| (grant.client_id, t)))
    }

    /// How often a bearer check had to read the whole state file (it does only after a change).
    pub fn access_reads(&self) -> usize {
        self.store.whole_reads()
    }
}

fn protected_resource(authority: &Authority) -> serde_json::Value {
    json!({
        "resource": authority.resource_url(),
        "authorization_servers": [authority.public_url],
        "bearer_methods_supported": ["header"],
        "resource_name": "coolify-mcp",
    })
}

fn authorization_server(authority: &Authority) -> serde_json::Value {
    let base = &authority.public_url;
    json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    })
}

/// The metadata, registration, authorization and token routes, answering only requests whose
/// `Host` is in `hosts`.
pub fn routes(authority: Arc<Authority>, hosts: guard::AllowedHosts) -> Router {
    let limited = Router::new()
        .route("/register", post(flow::register))
        .route(
            "/authorize",
            get(flow::authorize_form).post(flow::authorize),
        )
        .route("/token", post(token::token))
        .layer(middleware::from_fn(crate::http_limits::limit_body))
        .layer(middleware::from_fn_with_state(
            authority.clone(),
            rate_limited,
        ));
    let prm = |State(a): State<Arc<Authority>>| async move { axum::Json(protected_resource(&a)) };
    let asm = |State(a): State<Arc<Authority>>| async move { axum::Json(authorization_server(&a)) };
    Router::new()
        .route("/.well-known/oauth-protected-resource", get(prm))
        .route("/.well-known/oauth-protected-resource/mcp", get(prm))
        .route("/.well-known/oauth-authorization-server", get(asm))
        .route("/.well-known/oauth-authorization-server/mcp", get(asm))
        .merge(limited)
        .layer(middleware::from_fn_with_state(
            Arc::new(hosts),
            guard::guard,
        ))
        .with_state(authority)
}

async fn rate_limited(
    State(authority): State<Arc<Authority>>,
    request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<PeerAddr>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |p| p.0.ip());
    let forwarded = request
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok());
    let client = client_address(peer, forwarded, &authority.spec.trusted_proxies);
    let counted = match authority.limit.check(client).await {
        Ok(counted) => counted,
        Err(e) => {
            tracing::error!("sign-in rate limit: {e}");
            return flow::unavailable(&e);
        }
    };
    if let Err(wait) = counted {
        let mut response = (
            StatusCode::TOO_MANY_REQUESTS,
            axum::Json(json!({"error": "rate_limited", "error_description": format!("more than {PER_MINUTE} sign-in requests a minute from this address")})),
        )
            .into_response();
        if let Ok(v) = HeaderValue::from_str(&wait.as_secs().max(1).to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return response;
    }
    next.run(request).await
}

#[cfg(test)]
#[path = "authority_tests.rs"]
mod tests;
