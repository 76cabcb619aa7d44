//! One server's OAuth state: its record, the rmcp `AuthorizationManager` the transport's
//! `AuthClient` uses, and the decision what to do about a 401/403 challenge — sign in (when
//! allowed), get a client-credentials token, or report `needs-auth` — with at most one sign-in
//! in flight and a bound per request (see the module invariants of [`super`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use coyote_protocol::{DpopMode, HttpSpec, OAuthGrant, OAuthSpec};
use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use rmcp::transport::AuthClient;
use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, ClientCredentialsConfig, OAuthClientConfig,
};

use super::browser::Notice;
use super::credentials::CellCredentials;
use super::dpop::{self, Advertised, DpopKey, DpopState, is_dpop_token_type};
use super::oauth_http::{Journal, JournalingClient};
use super::proof::{ProofClient, proof_client};
use super::refresh_lock::refresh_due;
use super::store::RecordCell;
use super::{AuthContext, MAX_SIGN_INS_PER_REQUEST, SignIn, flow, store_key};
use crate::connect::challenge::{Challenge, challenge_params};
use crate::error::AuthFailure;

/// What the transport should do after a challenge.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// New credentials are in place: send the request again.
    Retry,
    /// No sign-in may run here: pass the original 401/403 up (→ needs-auth).
    PassOn,
    Failed(AuthFailure),
}

/// Per-request bookkeeping of [`ServerAuth::answer`].
#[derive(Debug, Default)]
pub(crate) struct Attempts {
    sign_ins: u32,
    /// Scopes step-up challenges of this request already asked for: each is asked once.
    asked: Vec<String>,
}

type SharedSignIn = Shared<BoxFuture<'static, Result<(), AuthFailure>>>;

pub(crate) struct ServerAuth {
    pub(crate) server: String,
    pub(crate) url: String,
    pub(crate) spec: OAuthSpec,
    pub(crate) cell: Arc<RecordCell>,
    /// The manager inside the transport's `AuthClient`; replaced whole after a sign-in.
    pub(crate) manager: Arc<tokio::sync::Mutex<AuthorizationManager>>,
    /// `AuthClient` sharing [`Self::manager`] (its HTTP client is replaced per transport).
    pub(crate) http: AuthClient<ProofClient>,
    pub(crate) journal: Journal,
    /// The DPoP key and nonces of this sign-in.
    pub(crate) dpop: Arc<DpopState>,
    /// Told each step of a machine grant (`coyote mcp login` prints it).
    pub(crate) progress: Option<Notice>,
    pub(crate) sign_in: SignIn,
    pub(crate) login_timeout: Duration,
    pub(crate) client_name: String,
    /// Bumped by every sign-in / token grant, so a request knows a sign-in happened meanwhile.
    generation: AtomicU64,
    /// A sign-in completed in this process (the login report says so).
    signed_in: AtomicBool,
    in_flight: Mutex<Option<SharedSignIn>>,
}

impl std::fmt::Debug for ServerAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerAuth")
            .field("server", &self.server)
            .field("sign_in", &self.sign_in)
            .finish_non_exhaustive()
    }
}

impl ServerAuth {
    /// Loads the server's record and builds the manager the transport will use (configured
    /// from the record when it holds tokens, so they refresh without a new discovery).
    pub(crate) async fn new(
        server: &str,
        http: &HttpSpec,
        context: &AuthContext,
    ) -> Result<Arc<Self>, AuthFailure> {
        let store = context.store().await;
        let cell = RecordCell::load(store_key(http), store).await?;
        let journal = Journal::default();
        let dpop = Arc::new(DpopState::default());
        let manager = fresh_manager(&http.url, &cell, &journal, &dpop).await?;
        let client = AuthClient::new(proof_client(reqwest::Client::new(), &cell, &dpop), manager);
        let auth = ServerAuth {
            server: server.to_owned(),
            url: http.url.clone(),
            spec: http.oauth.clone(),
            cell,
            manager: client.auth_manager.clone(),
            http: client,
            journal,
            dpop,
            progress: context.options.progress.clone(),
            sign_in: context.options.sign_in.clone(),
            login_timeout: context.options.login_timeout,
            client_name: context.options.client_name.clone(),
            generation: AtomicU64::new(0),
            signed_in: AtomicBool::new(false),
            in_flight: Mutex::new(None),
        };
        auth.configure_from_record().await;
        Ok(Arc::new(auth))
    }

    /// Points the shared manager at the stored client and metadata, or drops stored tokens
    /// that cannot be refreshed without them.
    async fn configure_from_record(&self) {
        let record = self.cell.get();
        if !record.has_tokens() {
            return;
        }
        if let (Some(stored), Some(metadata)) = (&record.dpop_key, &record.metadata) {
            match DpopKey::from_stored(stored) {
                Ok(key) => self.dpop.activate(Arc::new(key), &metadata.token_endpoint),
                Err(e) => tracing::warn!(server = %self.server, %e, "stored DPoP key unusable"),
            }
        }
        let mut manager = self.manager.lock().await;
        let configured = match (&record.metadata, &record.client, &self.spec.grant) {
            (
                Some(metadata),
                Some(client),
                OAuthGrant::ClientCredentials(_)
                | OAuthGrant::JwtBearer(_)
                | OAuthGrant::Enterprise(_),
            ) => {
                manager.set_metadata(metadata.clone());
                let config = ClientCredentialsConfig::ClientSecret {
                    client_id: client.client_id.clone(),
                    client_secret: self.spec.client_secret.clone().unwrap_or_default(),
                    scopes: Vec::new(),
                    resource: Some(self.url.clone()),
                };
                manager.configure_client_credentials(&config).is_ok()
            }
            (Some(metadata), Some(client), OAuthGrant::AuthorizationCode) => {
                manager.set_metadata(metadata.clone());
                let mut config =
                    OAuthClientConfig::new(client.client_id.clone(), client.redirect_uri.clone());
                if let Some(secret) = client
                    .client_secret
                    .clone()
                    .or_else(|| self.spec.client_secret.clone())
                {
                    config = config.with_client_secret(secret);
                }
                manager.configure_client(config).is_ok()
            }
            _ => false,
        };
        drop(manager);
        if !configured {
            tracing::warn!(server = %self.server, "stored sign-in is incomplete; ignoring its tokens");
            let _ = self.cell.update(|r| r.credentials = None).await;
        }
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    pub(crate) fn signed_in(&self) -> bool {
        self.signed_in.load(Ordering::SeqCst)
    }

    /// Decides what a challenge means for a request that started at `generation`.
    pub(crate) async fn answer(
        self: &Arc<Self>,
        challenge: Challenge,
        generation: u64,
        attempts: &mut Attempts,
    ) -> Verdict {
        if self.generation() != generation {
            // Another request signed in meanwhile: try its token first.
            return Verdict::Retry;
        }
        // Grants that need no person: they run wherever a server asks.
        let machine = !matches!(self.spec.grant, OAuthGrant::AuthorizationCode);
        let interactive = matches!(self.sign_in, SignIn::Interactive(_));
        match &challenge {
            Challenge::Unauthorized { .. } if attempts.sign_ins > 0 => {
                return Verdict::Failed(AuthFailure::StillUnauthorized {
                    url: self.url.clone(),
                });
            }
            Challenge::Unauthorized { .. } if !machine && !interactive => return Verdict::PassOn,
            Challenge::Unauthorized { .. } => {}
            Challenge::InsufficientScope { scope, header } => {
                let params = challenge_params(header, &self.url);
                if !params.is_insufficient_scope() && params.error.is_some() {
                    return Verdict::PassOn;
                }
                let granted = self.cell.get().granted_scopes();
                let new: Vec<String> = scope
                    .iter()
                    .filter(|s| !granted.contains(s))
                    .cloned()
                    .collect();
                // Asked once per challenge: a repeat of what this request already asked for
                // (the authorization server did not grant it) ends the request.
                let repeated = scope.iter().all(|s| attempts.asked.contains(s));
                if new.is_empty() || repeated || attempts.sign_ins >= MAX_SIGN_INS_PER_REQUEST {
                    return Verdict::Failed(AuthFailure::ScopeRetryLimit {
                        url: self.url.clone(),
                        scope: scope.join(" "),
                        attempts: attempts.sign_ins,
                    });
                }
                if !machine && !interactive {
                    // Remembered for the next `coyote mcp login`.
                    let _ = self
                        .cell
                        .update(|r| merge(&mut r.pending_scopes, &new))
                        .await;
                    return Verdict::PassOn;
                }
                merge(&mut attempts.asked, scope);
            }
        }
        if attempts.sign_ins >= MAX_SIGN_INS_PER_REQUEST {
            return Verdict::Failed(AuthFailure::StillUnauthorized {
                url: self.url.clone(),
            });
        }
        attempts.sign_ins += 1;
        match self.run_once(challenge).await {
            Ok(()) => Verdict::Retry,
            Err(failure) => Verdict::Failed(failure),
        }
    }

    /// Runs the grant for `challenge`, or joins the one already running.
    async fn run_once(self: &Arc<Self>, challenge: Challenge) -> Result<(), AuthFailure> {
        let shared = {
            let mut slot = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
            match slot.as_ref() {
                Some(running) => running.clone(),
                None => {
                    let me = self.clone();
                    let run: BoxFuture<'static, Result<(), AuthFailure>> =
                        Box::pin(async move { me.run(challenge).await });
                    let shared = run.shared();
                    *slot = Some(shared.clone());
                    shared
                }
            }
        };
        let result = shared.clone().await;
        let mut slot = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_some_and(|s| s.ptr_eq(&shared)) {
            *slot = None;
        }
        result
    }

    async fn run(self: Arc<Self>, challenge: Challenge) -> Result<(), AuthFailure> {
        let manager = match (&self.spec.grant, &self.sign_in) {
            (OAuthGrant::ClientCredentials(cc), _) => {
                flow::client_credentials(&self, cc, &challenge).await?
            }
            (OAuthGrant::JwtBearer(_) | OAuthGrant::Enterprise(_), _) => {
                flow::federated(&self, &challenge).await?
            }
            (OAuthGrant::AuthorizationCode, SignIn::Interactive(authorizer)) => {
                flow::authorization_code(&self, authorizer.as_ref(), &challenge).await?
            }
            (OAuthGrant::AuthorizationCode, SignIn::Never) => {
                return Err(AuthFailure::Authorizer {
                    reason: "no sign-in may start here".to_owned(),
                });
            }
        };
        *self.manager.lock().await = manager;
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.signed_in.store(true, Ordering::SeqCst);
        tracing::info!(server = %self.server, "signed in");
        Ok(())
    }

    /// Refreshes the token when it is due, one process at a time: under the record's refresh
    /// gate and lock file, after re-reading the record — when another process refreshed in
    /// the meantime, its token is used and nothing is sent. Failures are left to the request
    /// (rmcp's refresh, then sign-in, report them).
    pub(crate) async fn refresh_if_due(&self) {
        let due = |auth: &Self| auth.cell.credentials().is_some_and(|c| refresh_due(&c));
        if !due(self) {
            return;
        }
        // The manager first, then the gate: rmcp's own refreshes take them in that order too.
        let manager = self.manager.lock().await;
        let guard = match self.cell.coordinate().await {
            Ok(guard) => guard,
            Err(failure) => {
                tracing::warn!(server = %self.server, %failure, "refresh not coordinated");
                return;
            }
        };
        if !due(self) {
            tracing::info!(server = %self.server, "another coyote process refreshed the token");
            return;
        }
        self.cell.refreshing.store(true, Ordering::SeqCst);
        let refreshed = manager.refresh_token().await;
        self.cell.refreshing.store(false, Ordering::SeqCst);
        drop(guard);
        match refreshed {
            Ok(_) => tracing::info!(server = %self.server, "refreshed the token"),
            Err(e) => tracing::debug!(server = %self.server, error = %e, "refresh failed"),
        }
    }

    /// A manager for a new grant, writing tokens into this server's record.
    pub(crate) async fn fresh_manager(&self) -> Result<AuthorizationManager, AuthFailure> {
        fresh_manager(&self.url, &self.cell, &self.journal, &self.dpop).await
    }

    /// Decides whether the grant about to run binds its token with DPoP — `"dpop": true`, or
    /// the authorization server advertising ES256 proofs (unless `"dpop": false`) — and if so
    /// makes sure a key exists (kept in the record) and the token endpoint gets proofs.
    pub(crate) async fn prepare_dpop(
        &self,
        metadata: &AuthorizationMetadata,
    ) -> Result<bool, AuthFailure> {
        let wanted = match (self.spec.dpop, dpop::advertised(metadata)) {
            (DpopMode::Off, _) | (DpopMode::Auto, Advertised::No) => false,
            (DpopMode::Auto, Advertised::OtherAlgorithms) => {
                tracing::warn!(
                    server = %self.server,
                    "the authorization server offers DPoP without ES256; using bearer tokens"
                );
                false
            }
            (DpopMode::Auto, Advertised::Es256) | (DpopMode::Required, _) => true,
        };
        if !wanted {
            self.dpop.deactivate();
            return Ok(false);
        }
        let key = match self.dpop.key() {
            Some(key) => key,
            None => {
                let key = Arc::new(DpopKey::generate()?);
                let stored = key.stored().to_owned();
                self.cell.update(|r| r.dpop_key = Some(stored)).await?;
                key
            }
        };
        self.dpop.activate(key, &metadata.token_endpoint);
        Ok(true)
    }

    /// After a grant: with `"dpop": true`, a token that is not DPoP-bound is refused (and
    /// forgotten); otherwise an unbound answer to a DPoP request is used as a bearer token.
    pub(crate) async fn check_bound(&self) -> Result<(), AuthFailure> {
        if !self.dpop.active() {
            return Ok(());
        }
        let token_type = self
            .cell
            .credentials()
            .map(|c| dpop::token_type(&c))
            .unwrap_or_default();
        if is_dpop_token_type(&token_type) {
            return Ok(());
        }
        if self.spec.dpop == DpopMode::Required {
            self.cell.update(|r| r.credentials = None).await?;
            return Err(AuthFailure::NotBound {
                url: self.url.clone(),
                token_type,
            });
        }
        tracing::warn!(
            server = %self.server,
            "asked for a DPoP-bound token, got a \"{token_type}\" token; using it as a bearer token"
        );
        Ok(())
    }
}

async fn fresh_manager(
    url: &str,
    cell: &Arc<RecordCell>,
    journal: &Journal,
    dpop: &Arc<DpopState>,
) -> Result<AuthorizationManager, AuthFailure> {
    lazy_tls::install_crypto_provider();
    let client = JournalingClient::new(journal.clone(), dpop.clone()).map_err(|e| {
        AuthFailure::Unusable {
            detail: format!("cannot build an HTTP client ({e})"),
        }
    })?;
    let mut manager = AuthorizationManager::new_with_oauth_http_client(url, Arc::new(client))
        .await
        .map_err(|e| AuthFailure::Unusable {
            detail: format!("the server URL cannot be used for sign-in ({e})"),
        })?;
    manager.set_credential_store(CellCredentials(cell.clone()));
    Ok(manager)
}

/// Adds the scopes of `more` not in `into`, keeping order.
pub(crate) fn merge(into: &mut Vec<String>, more: &[String]) {
    for scope in more {
        if !into.contains(scope) {
            into.push(scope.clone());
        }
    }
}
