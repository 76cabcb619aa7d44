//! The two grants, each on a fresh `AuthorizationManager` that the caller installs once it
//! succeeded (so a failed sign-in leaves the working one alone):
//!
//! - authorization code + PKCE: discovery (from the challenge) → client identity (configured
//!   client, else a Client ID Metadata Document URL the server supports, else the client coyote
//!   registered earlier for the same redirect URI, else dynamic registration) → scopes
//!   (configured, else challenge, else protected-resource `scopes_supported`, else none; plus
//!   step-up and remembered scopes) → the authorizer → `state` check → token exchange;
//! - client credentials: discovery → secret (basic/post as the server supports) or a signed JWT
//!   assertion → token;
//! - workload identity and enterprise-managed authorization: discovery → the token requests of
//!   [`super::federation`] → token.
//!
//! Every grant binds its token with DPoP where the server's metadata or mcp.json asks for it
//! ([`ServerAuth::prepare_dpop`], checked after the grant by [`ServerAuth::check_bound`]).
//!
//! rmcp's errors are turned into [`AuthFailure`]s here, with the URL and the answer each
//! endpoint gave taken from the OAuth HTTP journal.

use std::time::Duration;

use coyote_protocol::{ClientCredentials, OAuthGrant};
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataSource,
    ClientCredentialsConfig, OAuthClientConfig,
};

use super::authorizer::{AuthorizationPrompt, Authorizer, BeginRequest};
use super::federation::{self, GrantInput, fetch_metadata, read_key};
use super::jwt;
use super::oauth_http::strip_query;
use super::server_auth::{ServerAuth, merge};
use super::store::ClientRecord;
use crate::connect::challenge::Challenge;
use crate::error::{AuthFailure, GrantKind};

/// Bound of discovery (several metadata requests, each bounded by [`OAUTH_HTTP_TIMEOUT`]).
const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) async fn authorization_code(
    auth: &ServerAuth,
    authorizer: &dyn Authorizer,
    challenge: &Challenge,
) -> Result<AuthorizationManager, AuthFailure> {
    let mut manager = auth.fresh_manager().await?;
    let (metadata, source) = discover(auth, &manager, challenge).await?;
    manager.set_metadata(metadata.clone());
    auth.prepare_dpop(&metadata).await?;

    let pending = authorizer
        .begin(BeginRequest {
            server: &auth.server,
            redirect_port: auth.spec.redirect_port,
        })
        .await?;
    let redirect_uri = pending.redirect_uri().to_owned();
    let scopes = scopes(auth, &manager, challenge).await;
    let client = identity(
        auth,
        &mut manager,
        &metadata,
        source,
        &redirect_uri,
        &scopes,
    )
    .await?;

    let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
    let authorization_url = manager
        .get_authorization_url(&scope_refs)
        .await
        .map_err(|e| failure(auth, &metadata, GrantKind::AuthorizationCode, e))?;
    let state = url::Url::parse(&authorization_url)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        })
        .ok_or_else(|| AuthFailure::Unusable {
            detail: "the authorization URL has no state".to_owned(),
        })?;
    let prompt = AuthorizationPrompt {
        server: auth.server.clone(),
        authorization_url,
        state: state.clone(),
    };
    let answer = tokio::time::timeout(auth.login_timeout, pending.finish(prompt))
        .await
        .map_err(|_| AuthFailure::TimedOut {
            after: auth.login_timeout,
            redirect_uri: redirect_uri.clone(),
        })??;
    if let Some(error) = answer.error {
        return Err(AuthFailure::Denied {
            error: printable(&error),
            description: answer.error_description.as_deref().map(printable),
        });
    }
    if answer.state.as_deref() != Some(state.as_str()) {
        return Err(AuthFailure::StateMismatch { redirect_uri });
    }
    let code = answer.code.ok_or_else(|| AuthFailure::Authorizer {
        reason: "the redirect carried no authorization code".to_owned(),
    })?;
    manager
        .exchange_code_for_token_with_issuer(&code, &state, answer.iss.as_deref())
        .await
        .map_err(|e| failure(auth, &metadata, GrantKind::AuthorizationCode, e))?;
    auth.check_bound().await?;
    auth.cell
        .update(|record| {
            record.client = Some(client);
            record.metadata = Some(metadata);
            record.pending_scopes.clear();
        })
        .await?;
    Ok(manager)
}

pub(crate) async fn client_credentials(
    auth: &ServerAuth,
    cc: &ClientCredentials,
    challenge: &Challenge,
) -> Result<AuthorizationManager, AuthFailure> {
    let mut manager = auth.fresh_manager().await?;
    let (metadata, _) = discover(auth, &manager, challenge).await?;
    manager.set_metadata(metadata.clone());
    let dpop = auth.prepare_dpop(&metadata).await?;
    let scopes = scopes(auth, &manager, challenge).await;
    let client_id = auth.spec.client_id.clone().unwrap_or_default();
    let grant = GrantKind::ClientCredentials;
    // Configured even for the JWT path: an expired token then reads as "authorization
    // required" (a new grant follows) instead of "client not configured".
    let config = ClientCredentialsConfig::ClientSecret {
        client_id: client_id.clone(),
        client_secret: auth.spec.client_secret.clone().unwrap_or_default(),
        scopes: scopes.clone(),
        resource: Some(auth.url.clone()),
    };
    match &cc.private_key {
        None => {
            manager
                .validate_client_credentials_metadata(&config)
                .map_err(|e| failure(auth, &metadata, grant, e))?;
            manager
                .configure_client_credentials(&config)
                .map_err(|e| failure(auth, &metadata, grant, e))?;
            manager
                .exchange_client_credentials(&config)
                .await
                .map_err(|e| failure(auth, &metadata, grant, e))?;
        }
        Some(key) => {
            let pem = read_key(key).await?;
            let audience = metadata
                .issuer
                .clone()
                .unwrap_or_else(|| metadata.token_endpoint.clone());
            let credentials = jwt::request_token(&jwt::AssertionGrant {
                client_id: &client_id,
                audience: &audience,
                token_endpoint: &metadata.token_endpoint,
                pem: &pem,
                algorithm: cc.signing_algorithm.as_deref(),
                scopes: &scopes,
                resource: &auth.url,
                dpop: dpop.then_some(auth.dpop.as_ref()),
            })
            .await?;
            auth.cell
                .update(|record| record.credentials = Some(credentials))
                .await?;
            manager
                .configure_client_credentials(&config)
                .map_err(|e| failure(auth, &metadata, grant, e))?;
        }
    }
    auth.check_bound().await?;
    remember_machine_client(auth, client_id, metadata).await?;
    Ok(manager)
}

async fn remember_machine_client(
    auth: &ServerAuth,
    client_id: String,
    metadata: AuthorizationMetadata,
) -> Result<(), AuthFailure> {
    auth.cell
        .update(|record| {
            record.client = Some(ClientRecord {
                client_id,
                client_secret: None,
                redirect_uri: String::new(),
                registered: false,
            });
            record.metadata = Some(metadata);
            // Scopes remembered from earlier challenges were asked for by this grant.
            record.pending_scopes.clear();
        })
        .await
}

/// Workload identity or enterprise-managed authorization (see the module header).
pub(crate) async fn federated(
    auth: &ServerAuth,
    challenge: &Challenge,
) -> Result<AuthorizationManager, AuthFailure> {
    let mut manager = auth.fresh_manager().await?;
    let (metadata, _) = discover(auth, &manager, challenge).await?;
    manager.set_metadata(metadata.clone());
    let dpop = auth.prepare_dpop(&metadata).await?;
    let scopes = scopes(auth, &manager, challenge).await;
    let input = GrantInput {
        resource: &auth.url,
        metadata: &metadata,
        scopes: &scopes,
        client_id: auth.spec.client_id.as_deref(),
        client_secret: auth.spec.client_secret.as_deref(),
        dpop: dpop.then_some(auth.dpop.as_ref()),
        progress: auth.progress.as_ref(),
    };
    let credentials = match &auth.spec.grant {
        OAuthGrant::JwtBearer(source) => federation::workload(&input, source).await?,
        OAuthGrant::Enterprise(idp) => federation::enterprise(&input, idp).await?,
        OAuthGrant::AuthorizationCode | OAuthGrant::ClientCredentials(_) => {
            return Err(AuthFailure::Authorizer {
                reason: "not a federated grant".to_owned(),
            });
        }
    };
    auth.cell
        .update(|record| record.credentials = Some(credentials))
        .await?;
    auth.check_bound().await?;
    let client_id = auth.spec.client_id.clone().unwrap_or_default();
    // An expired token then reads as "authorization required", and the grant runs again.
    let config = ClientCredentialsConfig::ClientSecret {
        client_id: client_id.clone(),
        client_secret: auth.spec.client_secret.clone().unwrap_or_default(),
        scopes,
        resource: Some(auth.url.clone()),
    };
    manager
        .configure_client_credentials(&config)
        .map_err(|e| failure(auth, &metadata, GrantKind::JwtBearer, e))?;
    remember_machine_client(auth, client_id, metadata).await?;
    Ok(manager)
}

/// Authorization server metadata: the configured document, or discovery from the challenge.
async fn discover(
    auth: &ServerAuth,
    manager: &AuthorizationManager,
    challenge: &Challenge,
) -> Result<(AuthorizationMetadata, AuthorizationMetadataSource), AuthFailure> {
    if let Some(url) = &auth.spec.auth_server_metadata_url {
        let metadata = fetch_metadata(url).await?;
        return Ok((
            metadata,
            AuthorizationMetadataSource::AuthorizationServerMetadata,
        ));
    }
    let resolved = tokio::time::timeout(
        DISCOVERY_TIMEOUT,
        manager.resolve_metadata_from_challenge(Some(challenge.header())),
    )
    .await
    .map_err(|_| AuthFailure::Discovery {
        url: auth.url.clone(),
        detail: format!(
            "the metadata requests took longer than {} s",
            DISCOVERY_TIMEOUT.as_secs()
        ),
    })?;
    match resolved {
        Ok(resolution) => Ok((resolution.metadata, resolution.source)),
        Err(e) => Err(discovery_failure(auth, e)),
    }
}

/// The scopes to ask for (see the module header).
async fn scopes(
    auth: &ServerAuth,
    manager: &AuthorizationManager,
    challenge: &Challenge,
) -> Vec<String> {
    let record = auth.cell.get();
    let mut scopes = if auth.spec.scopes.is_empty() {
        manager.select_initial_scopes(&[]).await
    } else {
        auth.spec.scopes.clone()
    };
    if let Challenge::InsufficientScope { scope, .. } = challenge {
        merge(&mut scopes, &record.granted_scopes());
        merge(&mut scopes, scope);
    }
    merge(&mut scopes, &record.pending_scopes);
    scopes
}

/// Whether two metadata documents describe the same authorization server: the same issuer
/// when both name one, else the same authorization endpoint.
fn same_authorization_server(a: &AuthorizationMetadata, b: &AuthorizationMetadata) -> bool {
    match (&a.issuer, &b.issuer) {
        (Some(x), Some(y)) => x.trim_end_matches('/') == y.trim_end_matches('/'),
        _ => a.authorization_endpoint == b.authorization_endpoint,
    }
}

/// Configures `manager` with the client to sign in as (see the module header).
async fn identity(
    auth: &ServerAuth,
    manager: &mut AuthorizationManager,
    metadata: &AuthorizationMetadata,
    source: AuthorizationMetadataSource,
    redirect_uri: &str,
    scopes: &[String],
) -> Result<ClientRecord, AuthFailure> {
    let spec = &auth.spec;
    let supports_cimd = metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let record = auth.cell.get();
    // A registration belongs to the authorization server that issued it: after a migration
    // (the server's metadata names another one) register again, never reuse it (SEP-2352).
    let same_server = record
        .metadata
        .as_ref()
        .is_some_and(|old| same_authorization_server(old, metadata));
    let stored = record.client.filter(|_| same_server);
    let client = if let Some(id) = &spec.client_id {
        ClientRecord {
            client_id: id.clone(),
            client_secret: spec.client_secret.clone(),
            redirect_uri: redirect_uri.to_owned(),
            registered: false,
        }
    } else if let (Some(url), true) = (&spec.client_metadata_url, supports_cimd) {
        ClientRecord {
            client_id: url.clone(),
            client_secret: None,
            redirect_uri: redirect_uri.to_owned(),
            registered: false,
        }
    } else if let Some(client) = stored.filter(|c| c.registered && c.redirect_uri == redirect_uri) {
        client
    } else {
        let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
        let registered = manager
            .register_client(&auth.client_name, redirect_uri, &scope_refs)
            .await
            .map_err(|e| registration_failure(auth, metadata, source, e))?;
        ClientRecord {
            client_id: registered.client_id,
            client_secret: registered.client_secret,
            redirect_uri: redirect_uri.to_owned(),
            registered: true,
        }
    };
    let mut config = OAuthClientConfig::new(client.client_id.clone(), redirect_uri);
    // A configured secret stays in mcp.json; the record keeps only a registered one.
    if let Some(secret) = &client.client_secret {
        config = config.with_client_secret(secret.clone());
    }
    manager
        .configure_client(config)
        .map_err(|e| failure(auth, metadata, GrantKind::AuthorizationCode, e))?;
    Ok(ClientRecord {
        client_secret: client.client_secret.filter(|_| client.registered),
        ..client
    })
}

fn discovery_failure(auth: &ServerAuth, error: AuthError) -> AuthFailure {
    let detail = match &error {
        AuthError::DiscoveryRequestFailed { url, .. } => {
            let url = strip_query(url.as_str());
            match auth.journal.about(&url) {
                Some(note) => format!("{url} answered {}", note.answer),
                None => format!("{url} could not be read"),
            }
        }
        other => other.to_string(),
    };
    AuthFailure::Discovery {
        url: auth.url.clone(),
        detail,
    }
}

fn registration_failure(
    auth: &ServerAuth,
    metadata: &AuthorizationMetadata,
    source: AuthorizationMetadataSource,
    error: AuthError,
) -> AuthFailure {
    let Some(endpoint) = metadata.registration_endpoint.clone() else {
        return AuthFailure::Registration {
            endpoint: "(none)".to_owned(),
            answer: "no registration endpoint is published".to_owned(),
        };
    };
    let answer = auth
        .journal
        .about(&endpoint)
        .map(|note| note.answer)
        .unwrap_or_else(|| error.to_string());
    if source == AuthorizationMetadataSource::LegacyEndpointFallback {
        return AuthFailure::NoMetadata {
            url: auth.url.clone(),
            endpoint: strip_query(&endpoint),
            answer,
        };
    }
    AuthFailure::Registration {
        endpoint: strip_query(&endpoint),
        answer,
    }
}

/// Any other rmcp error of a grant, with the token endpoint's answer when it has one.
fn failure(
    auth: &ServerAuth,
    metadata: &AuthorizationMetadata,
    grant: GrantKind,
    error: AuthError,
) -> AuthFailure {
    match error {
        AuthError::TokenExchangeFailed(_)
        | AuthError::ClientCredentialsError(_)
        | AuthError::TokenRefreshFailed(_)
        | AuthError::TokenRefreshRejected(_) => {
            let endpoint = strip_query(&metadata.token_endpoint);
            let answer = match auth.journal.about(&endpoint) {
                Some(note) => note.answer,
                None => error.to_string(),
            };
            AuthFailure::Token {
                endpoint,
                answer,
                grant,
            }
        }
        AuthError::InvalidScope(response_type) => AuthFailure::Unusable {
            detail: format!(
                "it does not offer the \"{response_type}\" response type coyote signs in with"
            ),
        },
        other => AuthFailure::Unusable {
            detail: other.to_string(),
        },
    }
}

/// Server-chosen text, safe for a terminal and bounded.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(200).collect()
}
