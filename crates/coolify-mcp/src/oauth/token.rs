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
use super::store::{Grant, Spent, State, digest, now_secs};
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

/// New access and refresh tokens of `family` for `client_id`, bound to this server's resource,
/// each carrying the user's Coolify token sealed under itself.
fn issue(
    a: &Authority,
    st: &mut State,
    client_id: &str,
    family: &str,
    coolify_token: &str,
) -> Value {
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
    st.access
        .insert(digest(&access), grant(a.spec.access_ttl_secs, &access));
    st.refresh
        .insert(digest(&refresh), grant(a.spec.refresh_ttl_secs, &refresh));
    json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": a.spec.access_ttl_secs,
        "refresh_token": refresh,
    })
}

fn redeem_code(a: &Authority, p: &Params) -> Result<Value, (&'static str, &'static str)> {
    let (Some(code), Some(verifier)) = (p.get("code"), p.get("code_verifier")) else {
        return Err(("invalid_request", "code and code_verifier are required"));
    };
    a.check_resource(p.get("resource").map(String::as_str))
        .map_err(|_| INVALID_TARGET)?;
    let client_id = p.get("client_id").cloned();
    let redirect_uri = p.get("redirect_uri").cloned();
    let resource = a.resource_url();
    let expected = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let key = digest(code);
    a.store
        .update(|st| {
            // Removed whatever happens next: a code is tried once.
            let c = st.codes.remove(&key).filter(|c| c.exp > now_secs());
            let c = c.ok_or(("invalid_grant", "the code is unknown, used or expired"))?;
            if client_id.as_ref().is_some_and(|id| *id != c.client_id) {
                return Err(("invalid_grant", "the code was issued to another client"));
            }
            if redirect_uri.as_ref().is_some_and(|u| *u != c.redirect_uri) {
                return Err((
                    "invalid_grant",
                    "redirect_uri differs from the authorization request",
                ));
            }
            if !pkce_shaped(verifier) || expected != c.challenge {
                return Err(("invalid_grant", "the PKCE code_verifier does not match"));
            }
            if c.resource != resource {
                return Err(OTHER_SERVER);
            }
            let user_token = sealed::open(&c.sealed_token, code).ok_or(SIGN_IN_AGAIN)?;
            if let Some(client) = st.clients.get_mut(&c.client_id) {
                client.used = true;
            }
            Ok(issue(
                a,
                st,
                &c.client_id,
                &random_token("fam_"),
                &user_token,
            ))
        })
        .map_err(|_| ("server_error", "the OAuth state file could not be updated"))?
}

fn refresh(a: &Authority, p: &Params) -> Result<Value, (&'static str, &'static str)> {
    let Some(token) = p.get("refresh_token") else {
        return Err(("invalid_request", "refresh_token is required"));
    };
    a.check_resource(p.get("resource").map(String::as_str))
        .map_err(|_| INVALID_TARGET)?;
    let client_id = p.get("client_id").cloned();
    let resource = a.resource_url();
    let key = digest(token);
    a.store
        .update(|st| {
            if let Some(spent) = st.spent_refresh.get(&key).cloned() {
                // Reuse: whoever holds the other copy must not keep the sign-in either.
                st.revoke_family(&spent.family);
                return Err((
                    "invalid_grant",
                    "the refresh token was already used, so every token of this sign-in is revoked; sign in again",
                ));
            }
            let g = st.refresh.remove(&key).filter(|g| g.exp > now_secs());
            let g = g.ok_or((
                "invalid_grant",
                "the refresh token is unknown or expired",
            ))?;
            st.spent_refresh.insert(
                key,
                Spent {
                    family: g.family.clone(),
                    exp: g.exp,
                },
            );
            if client_id.as_ref().is_some_and(|id| *id != g.client_id) {
                return Err((
                    "invalid_grant",
                    "the refresh token was issued to another client",
                ));
            }
            if g.resource != resource || g.family.is_empty() {
                return Err(OTHER_SERVER);
            }
            let user_token = sealed::open(&g.sealed_token, token).ok_or(SIGN_IN_AGAIN)?;
            Ok(issue(a, st, &g.client_id, &g.family, &user_token))
        })
        .map_err(|_| ("server_error", "the OAuth state file could not be updated"))?
}

/// `POST /token`.
pub(super) async fn token(
    AxumState(a): AxumState<Arc<Authority>>,
    Form(p): Form<Params>,
) -> Response {
    let result = match p.get("grant_type").map(String::as_str) {
        Some("authorization_code") => redeem_code(&a, &p),
        Some("refresh_token") => refresh(&a, &p),
        _ => Err((
            "unsupported_grant_type",
            "grant_type must be authorization_code or refresh_token",
        )),
    };
    match result {
        Ok(tokens) => (
            StatusCode::OK,
            [(header::CACHE_CONTROL, "no-store")],
            axum::Json(tokens),
        )
            .into_response(),
        Err((error, description)) => {
            let status = if error == "server_error" {
                StatusCode::INTERNAL_SERVER_ERROR
            } else {
                StatusCode::BAD_REQUEST
            };
            oauth_error(status, error, description)
        }
    }
}
