//! The `/token` endpoint: an authorization code with its PKCE verifier, or a refresh token
//! (rotated on every use), for access and refresh tokens bound to this server's resource URL.
//!
//! Invariants:
//! - a `resource` parameter (RFC 8707), when sent, must name this server's canonical MCP URL;
//!   every token is bound to that URL, and one issued for another URL (a server sharing the
//!   state file under another `MCP_PUBLIC_URL`) is refused;
//! - every issued token carries the user's Coolify token sealed under itself (`sealed`), opened
//!   from the code or refresh token that is exchanged;
//! - tokens rotated out of one code form a family; presenting a refresh token that was already
//!   rotated revokes the whole family (access and refresh tokens alike).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Form;
use axum::extract::State as AxumState;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::flow::{oauth_error, pkce_shaped, random_token};
use super::state::RefreshTake;
use super::store::{Grant, StoreError, digest, now_secs};
use super::{Authority, sealed};

type Params = BTreeMap<String, String>;

const INVALID_TARGET: (&str, &str) = (
    "invalid_target",
    "resource must be this server's MCP endpoint (see /.well-known/oauth-protected-resource)",
);
const SIGN_IN_AGAIN: (&str, &str) = (
    "invalid_grant",
    "the grant carries no usable Coolify token (it predates this version); sign in again",
);
const OTHER_SERVER: (&str, &str) = (
    "invalid_grant",
    "the grant was issued for another server URL; sign in to this one",
);

type Refusal = (&'static str, String);

fn refused((error, description): (&'static str, &'static str)) -> Refusal {
    (error, description.to_string())
}

fn store_failed(e: &StoreError) -> Refusal {
    match e {
        StoreError::Unavailable { .. } => (
            "temporarily_unavailable",
            format!("{e}; nothing was granted, try again once it answers"),
        ),
        _ => (
            "server_error",
            "the OAuth state file could not be updated".to_string(),
        ),
    }
}

/// New access and refresh tokens of `family` for `client_id`, bound to this server's resource,
/// each carrying the user's Coolify token sealed under itself.
async fn issue(
    a: &Authority,
    client_id: &str,
    family: &str,
    coolify_token: &str,
) -> Result<Value, Refusal> {
    let access = random_token("cma_");
    let refresh = random_token("cmr_");
    let now = now_secs();
    let grant = |ttl: u64, under: &str| Grant {
        client_id: client_id.to_string(),
        exp: now + ttl,
        family: family.to_string(),
        resource: a.resource_url(),
        sealed_token: sealed::seal(coolify_token, under).unwrap_or_default(),
    };
    a.store
        .issue(
            (digest(&access), grant(a.spec.access_ttl_secs, &access)),
            (digest(&refresh), grant(a.spec.refresh_ttl_secs, &refresh)),
        )
        .await
        .map_err(|e| store_failed(&e))?;
    Ok(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": a.spec.access_ttl_secs,
        "refresh_token": refresh,
    }))
}

async fn redeem_code(a: &Authority, p: &Params) -> Result<Value, Refusal> {
    let (Some(code), Some(verifier)) = (p.get("code"), p.get("code_verifier")) else {
        return Err(refused((
            "invalid_request",
            "code and code_verifier are required",
        )));
    };
    a.check_resource(p.get("resource").map(String::as_str))
        .map_err(|_| refused(INVALID_TARGET))?;
    let expected = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    // Taken whatever happens next: a code is tried once.
    let c = a
        .store
        .take_code(digest(code))
        .await
        .map_err(|e| store_failed(&e))?;
    let c = c.ok_or(refused((
        "invalid_grant",
        "the code is unknown, used or expired",
    )))?;
    if p.get("client_id").is_some_and(|id| *id != c.client_id) {
        return Err(refused((
            "invalid_grant",
            "the code was issued to another client",
        )));
    }
    if p.get("redirect_uri").is_some_and(|u| *u != c.redirect_uri) {
        return Err(refused((
            "invalid_grant",
            "redirect_uri differs from the authorization request",
        )));
    }
    if !pkce_shaped(verifier) || expected != c.challenge {
        return Err(refused((
            "invalid_grant",
            "the PKCE code_verifier does not match",
        )));
    }
    if c.resource != a.resource_url() {
        return Err(refused(OTHER_SERVER));
    }
    let user_token = sealed::open(&c.sealed_token, code).ok_or(refused(SIGN_IN_AGAIN))?;
    a.store
        .mark_used(c.client_id.clone())
        .await
        .map_err(|e| store_failed(&e))?;
    issue(a, &c.client_id, &random_token("fam_"), &user_token).await
}

async fn refresh(a: &Authority, p: &Params) -> Result<Value, Refusal> {
    let Some(token) = p.get("refresh_token") else {
        return Err(refused(("invalid_request", "refresh_token is required")));
    };
    a.check_resource(p.get("resource").map(String::as_str))
        .map_err(|_| refused(INVALID_TARGET))?;
    let taken = a
        .store
        .take_refresh(digest(token))
        .await
        .map_err(|e| store_failed(&e))?;
    let g = match taken {
        // Reuse: whoever holds the other copy must not keep the sign-in either.
        RefreshTake::Reused => {
            return Err(refused((
                "invalid_grant",
                "the refresh token was already used, so every token of this sign-in is revoked; sign in again",
            )));
        }
        RefreshTake::Unknown => {
            return Err(refused((
                "invalid_grant",
                "the refresh token is unknown or expired",
            )));
        }
        RefreshTake::Taken(g) => g,
    };
    if p.get("client_id").is_some_and(|id| *id != g.client_id) {
        return Err(refused((
            "invalid_grant",
            "the refresh token was issued to another client",
        )));
    }
    if g.resource != a.resource_url() || g.family.is_empty() {
        return Err(refused(OTHER_SERVER));
    }
    let user_token = sealed::open(&g.sealed_token, token).ok_or(refused(SIGN_IN_AGAIN))?;
    issue(a, &g.client_id, &g.family, &user_token).await
}

/// `POST /token`.
pub(super) async fn token(
    AxumState(a): AxumState<Arc<Authority>>,
    Form(p): Form<Params>,
) -> Response {
    let result = match p.get("grant_type").map(String::as_str) {
        Some("authorization_code") => redeem_code(&a, &p).await,
        Some("refresh_token") => refresh(&a, &p).await,
        _ => Err(refused((
            "unsupported_grant_type",
            "grant_type must be authorization_code or refresh_token",
        ))),
    };
    match result {
        Ok(tokens) => (
            StatusCode::OK,
            [(header::CACHE_CONTROL, "no-store")],
            axum::Json(tokens),
        )
            .into_response(),
        Err((error, description)) => {
            let status = match error {
                "server_error" => StatusCode::INTERNAL_SERVER_ERROR,
                "temporarily_unavailable" => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::BAD_REQUEST,
            };
            oauth_error(status, error, &description)
        }
    }
}
