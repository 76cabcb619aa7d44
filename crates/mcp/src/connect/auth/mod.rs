//! OAuth 2.1 for streamable HTTP servers (MCP authorization, revision 2025-11-25), on rmcp's
//! `auth` feature: discovery (RFC 9728 protected-resource metadata from the `WWW-Authenticate`
//! challenge or the well-known paths, RFC 8414 / OpenID metadata with the path-insertion
//! variants, issuer checks), resource indicators (RFC 8707), client identity (pre-registered →
//! Client ID Metadata Document → dynamic registration), authorization code + PKCE (S256) with a
//! pluggable [`Authorizer`], client credentials (secret or JWT assertion), workload identity and
//! enterprise-managed authorization (JWT bearer grants), DPoP-bound tokens (RFC 9449), scope
//! selection and step-up, refresh, and token storage.
//!
//! Invariants:
//! - Only a runtime whose [`SignIn`] is `Interactive` starts a sign-in (the CLI's `login`, the
//!   conformance shim). Everywhere else a 401 the stored tokens cannot answer (after rmcp's
//!   one refresh) makes the server `needs-auth`; a 403 `insufficient_scope` is remembered for
//!   the next sign-in. The client-credentials grant needs no person and runs anywhere.
//! - One sign-in at a time per server; a request that raced with a finished sign-in retries
//!   with the new token instead of starting another. At most [`MAX_SIGN_INS_PER_REQUEST`]
//!   sign-ins answer one request, and a 401 right after a sign-in ends it.
//! - Tokens, client secrets and private keys never reach a log line, an error, `Debug`
//!   output or mcp.json; they live in the [`TokenStoreChoice`] only.

mod authorizer;
mod browser;
mod client;
mod credentials;
mod dpop;
mod federation;
mod flow;
mod jwt;
mod keyring;
mod loopback;
mod oauth_http;
mod proof;
mod refresh_lock;
mod revoke;
mod server_auth;
mod store;
mod token_post;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use coyote_protocol::{HttpSpec, McpServerSpec, McpTransport};

pub use crate::error::{AuthFailure, GrantKind};
pub use authorizer::{
    AuthorizationPrompt, Authorizer, BeginRequest, PendingSignIn, RedirectParams,
};
pub use browser::{BrowserAuthorizer, Notice};
pub use loopback::{CALLBACK_PATH, Loopback};
pub use oauth_http::OAUTH_HTTP_TIMEOUT;
pub use refresh_lock::REFRESH_LOCK_WAIT;
pub use revoke::{LogoutReport, Revocation};
pub use store::StoreKey;

pub(crate) use client::SignInClient;
pub(crate) use server_auth::ServerAuth;

use crate::error::McpError;
use store::{FileStore, MemoryStore, TokenStore};

/// How long a person has to finish a sign-in in the browser.
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(300);
/// Sign-ins that may answer one request (a 401, then up to two scope step-ups).
pub const MAX_SIGN_INS_PER_REQUEST: u32 = 3;
/// How long the OS keyring may take to answer before the file store is used instead.
pub const KEYRING_PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// Sub-directory of the state dir holding the file store.
pub const TOKEN_DIR: &str = "oauth";

/// Whether this runtime may start sign-ins.
#[derive(Clone, Default)]
pub enum SignIn {
    /// Report `needs-auth` instead (every command but `login`).
    #[default]
    Never,
    /// Run the authorization-code flow through this authorizer when a server asks.
    Interactive(Arc<dyn Authorizer>),
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SignIn::Never => "Never",
            SignIn::Interactive(_) => "Interactive",
        })
    }
}

/// Where tokens are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TokenStoreChoice {
    /// Nothing survives the process (tests, the conformance shim).
    #[default]
    Memory,
    /// One 0600 file per sign-in in this (0700) directory, e.g. `<state>/oauth`.
    File(PathBuf),
    /// The OS keyring (Secret Service); when it does not answer within
    /// [`KEYRING_PROBE_TIMEOUT`], one warning and the file store in `fallback`.
    Keyring {
        /// The directory of the file store used instead.
        fallback: PathBuf,
    },
}

/// Runtime-wide OAuth settings.
#[derive(Clone)]
pub struct AuthOptions {
    /// Where tokens are kept.
    pub store: TokenStoreChoice,
    /// Whether sign-ins may start (only `login` lets them).
    pub sign_in: SignIn,
    /// Bound of one browser sign-in (`oauth_login_timeout` in config.yaml).
    pub login_timeout: Duration,
    /// `client_name` in dynamic client registration.
    pub client_name: String,
    /// Told once when the keyring is unreachable and the file store is used instead.
    pub warn: Option<Notice>,
    /// Told each step of a grant that needs no browser (`coyote mcp login` prints them).
    pub progress: Option<Notice>,
}

impl std::fmt::Debug for AuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthOptions")
            .field("store", &self.store)
            .field("sign_in", &self.sign_in)
            .field("login_timeout", &self.login_timeout)
            .field("client_name", &self.client_name)
            .finish_non_exhaustive()
    }
}

impl Default for AuthOptions {
    fn default() -> Self {
        AuthOptions {
            store: TokenStoreChoice::default(),
            sign_in: SignIn::default(),
            login_timeout: DEFAULT_LOGIN_TIMEOUT,
            client_name: "coyote".to_owned(),
            warn: None,
            progress: None,
        }
    }
}

/// The options plus the store they name, opened once (lazily: probing a keyring costs time).
pub(crate) struct AuthContext {
    pub(crate) options: AuthOptions,
    store: tokio::sync::OnceCell<Arc<dyn TokenStore>>,
}

impl AuthContext {
    pub(crate) fn new(options: AuthOptions) -> Self {
        AuthContext {
            options,
            store: tokio::sync::OnceCell::new(),
        }
    }

    pub(crate) async fn store(&self) -> Arc<dyn TokenStore> {
        self.store
            .get_or_init(|| open_store(&self.options))
            .await
            .clone()
    }
}

async fn open_store(options: &AuthOptions) -> Arc<dyn TokenStore> {
    match &options.store {
        TokenStoreChoice::Memory => Arc::new(MemoryStore::default()),
        TokenStoreChoice::File(dir) => Arc::new(FileStore::new(dir.clone())),
        TokenStoreChoice::Keyring { fallback } => {
            match keyring::open(KEYRING_PROBE_TIMEOUT, fallback.clone()).await {
                Ok(store) => store,
                Err(reason) => {
                    let message = format!(
                        "the OS keyring is not available ({reason}); sign-ins are kept in {} instead",
                        fallback.display()
                    );
                    tracing::warn!("{message}");
                    if let Some(warn) = &options.warn {
                        warn(&message);
                    }
                    Arc::new(FileStore::new(fallback.clone()))
                }
            }
        }
    }
}

/// Whether an HTTP server's credentials come from OAuth: not when the entry supplies a bearer
/// token itself (`bearerTokenEnv` or an `Authorization` header).
pub(crate) fn uses_oauth(spec: &HttpSpec) -> bool {
    spec.bearer_token_env.is_none()
        && !spec
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
}

/// The store key of an HTTP server spec.
pub fn store_key(spec: &HttpSpec) -> StoreKey {
    StoreKey {
        server_url: spec.url.clone(),
        client_id: spec.oauth.client_id.clone(),
    }
}

/// Signs `spec` out: revokes its tokens at the authorization server when it offers that
/// (RFC 7009), then forgets the sign-in (tokens and coyote's client registration) whatever the
/// revocation's outcome. For `coyote mcp logout NAME`.
pub async fn logout(spec: &McpServerSpec, options: &AuthOptions) -> Result<LogoutReport, McpError> {
    let http = oauth_http_spec(spec)?;
    let store = AuthContext::new(options.clone()).store().await;
    let key = store_key(http);
    let failure = |failure| McpError::SignIn {
        server: spec.name.clone(),
        failure,
    };
    let loaded = {
        let (store, key) = (store.clone(), key.clone());
        store::blocking(move || store.load(&key))
            .await
            .map_err(failure)?
    };
    let revocation = match &loaded {
        Some(record) => revoke::revoke(record, &http.oauth).await,
        None => Revocation::NothingStored,
    };
    if let Revocation::Failed { endpoint, answer } = &revocation {
        tracing::warn!(server = %spec.name, %endpoint, %answer, "token revocation failed");
    }
    let forgot = store::blocking(move || store.delete(&key))
        .await
        .map_err(failure)?;
    Ok(LogoutReport { forgot, revocation })
}

/// Forgets `spec`'s tokens but keeps its client registration (a new sign-in follows).
pub(crate) async fn forget_tokens(
    spec: &McpServerSpec,
    context: &AuthContext,
) -> Result<(), McpError> {
    let http = oauth_http_spec(spec)?;
    let store = context.store().await;
    let key = store_key(http);
    let failure = |failure| McpError::SignIn {
        server: spec.name.clone(),
        failure,
    };
    let cell = store::RecordCell::load(key, store).await.map_err(failure)?;
    cell.update(|record| record.credentials = None)
        .await
        .map_err(failure)
}

/// `spec`'s HTTP transport when it signs in with OAuth; otherwise why not.
pub(crate) fn oauth_http_spec(spec: &McpServerSpec) -> Result<&HttpSpec, McpError> {
    let unsupported = |hint: &str| McpError::Unsupported {
        server: spec.name.clone(),
        what: "OAuth sign-in".to_owned(),
        hint: hint.to_owned(),
    };
    match &spec.transport {
        McpTransport::Http(http) | McpTransport::Sse(http) if uses_oauth(http) => Ok(http),
        McpTransport::Http(_) | McpTransport::Sse(_) => Err(unsupported(
            "the entry supplies its own credentials (\"bearerTokenEnv\" or an Authorization \
             header); remove them to sign in with OAuth",
        )),
        McpTransport::Stdio(_) => Err(unsupported(
            "it is a local (stdio) server; only HTTP servers sign in",
        )),
    }
}

#[cfg(test)]
#[path = "auth_tests.rs"]
mod tests;
