//! The handlers of `/register` and `/authorize` (GET: the form; POST: the Coolify token check
//! and the code, which carries the user's token sealed under it); `/token` is in `token`.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Form;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use coolify_api::ProbeAuth;
use serde_json::{Value, json};

use super::store::{Client, Code, StoreError, digest, now_secs};
use super::{Authority, CODE_TTL_SECS, page};

type Params = BTreeMap<String, String>;

/// Redirect URIs one client may register.
const MAX_REDIRECT_URIS: usize = 10;
/// The longest redirect URI accepted.
const MAX_REDIRECT_URI_BYTES: usize = 2048;
/// All of one client's redirect URIs together.
const MAX_REDIRECT_URIS_BYTES: usize = 4096;

pub(super) fn random_token(prefix: &str) -> String {
    let bytes: [u8; 32] = rand::random();
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))
}

pub(super) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        axum::Json(json!({"error": error, "error_description": description})),
    )
        .into_response()
}

fn server_error() -> Response {
    oauth_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "server_error",
        "the OAuth state file could not be updated",
    )
}

/// The answer when the state store cannot be used: 503 for a store that is unreachable (retry
/// later), 500 otherwise; the description names the store and what to check.
pub(super) fn unavailable(e: &StoreError) -> Response {
    match e {
        StoreError::Unavailable { .. } => oauth_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "temporarily_unavailable",
            &format!("{e}; nothing was granted, try again once it answers"),
        ),
        _ => server_error(),
    }
}

/// Where a client may be sent back to: https, http on a loopback host, or a native app's own
/// scheme; never a fragment or a script-ish scheme.
fn valid_redirect(uri: &str) -> bool {
    let Ok(url) = url::Url::parse(uri) else {
        return false;
    };
    if url.fragment().is_some() {
        return false;
    }
    match url.scheme() {
        "https" => true,
        "http" => matches!(
            url.host_str(),
            Some("localhost" | "127.0.0.1" | "[::1]" | "::1")
        ),
        "javascript" | "data" | "file" | "vbscript" | "blob" => false,
        _ => true,
    }
}

/// `POST /register` (RFC 7591): public clients only.
pub(super) async fn register(State(a): State<Arc<Authority>>, body: Bytes) -> Response {
    let bad = |d: &str| oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", d);
    let Ok(meta) = serde_json::from_slice::<Value>(&body) else {
        return bad("the body is not JSON client metadata");
    };
    let uris: Vec<String> = meta["redirect_uris"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if uris.is_empty() || uris.len() > MAX_REDIRECT_URIS {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect_uris must list 1 to 10 URIs",
        );
    }
    if uris.iter().any(|u| u.len() > MAX_REDIRECT_URI_BYTES)
        || uris.iter().map(String::len).sum::<usize>() > MAX_REDIRECT_URIS_BYTES
    {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "a redirect URI may be at most 2048 bytes, and all of a client's together 4096",
        );
    }
    if let Some(bad_uri) = uris.iter().find(|u| !valid_redirect(u)) {
        let _ = bad_uri;
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "a redirect URI must be https, http on a loopback host, or an app scheme, without a fragment",
        );
    }
    let client_name = meta["client_name"]
        .as_str()
        .map(|n| n.chars().take(100).collect::<String>());
    let client_id = format!("mcp_client_{}", &random_token("")[..22]);
    let issued_at = now_secs();
    let client = Client {
        redirect_uris: uris.clone(),
        client_name: client_name.clone(),
        issued_at,
        used: false,
    };
    let registered = a
        .store
        .register(client_id.clone(), client, a.spec.max_clients)
        .await;
    match registered {
        Ok(true) => {}
        Ok(false) | Err(StoreError::TooLarge { .. }) => {
            return oauth_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily_unavailable",
                "the server holds as many signed-in clients as it may (MCP_OAUTH_MAX_CLIENTS); ask its operator to raise the limit",
            );
        }
        Err(e) => return unavailable(&e),
    }
    let mut out = json!({
        "client_id": client_id,
        "client_id_issued_at": issued_at,
        "redirect_uris": uris,
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    if let Some(name) = client_name {
        out["client_name"] = json!(name);
    }
    (StatusCode::CREATED, axum::Json(out)).into_response()
}

/// A checked authorization request.
struct AuthRequest {
    client_id: String,
    client_name: String,
    redirect_uri: String,
    challenge: String,
    state: Option<String>,
    /// The canonical MCP URL the code will grant access to.
    resource: String,
}

/// Why an authorization request is refused.
enum Refusal {
    /// Before the redirect URI is trusted: a page.
    Page(String),
    /// After: back to the client with an OAuth error.
    Redirect(Box<Response>),
}

fn back_to(uri: &str, issuer: &str, pairs: &[(&str, &str)], state: Option<&str>) -> Response {
    let Ok(mut url) = url::Url::parse(uri) else {
        return (
            StatusCode::BAD_REQUEST,
            Html(page::error_page("bad redirect URI")),
        )
            .into_response();
    };
    {
        let mut q = url.query_pairs_mut();
        for (k, v) in pairs {
            q.append_pair(k, v);
        }
        if let Some(s) = state {
            q.append_pair("state", s);
        }
        q.append_pair("iss", issuer);
    }
    Redirect::to(url.as_str()).into_response()
}

pub(super) fn pkce_shaped(s: &str) -> bool {
    (43..=128).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

async fn check(a: &Authority, p: &Params) -> Result<AuthRequest, Refusal> {
    let page = |m: &str| Refusal::Page(m.to_string());
    let client_id = p
        .get("client_id")
        .ok_or_else(|| page("client_id is missing"))?;
    let client = match a.store.client(client_id.clone()).await {
        Ok(found) => found.ok_or_else(|| page("unknown client_id: register the client first"))?,
        Err(StoreError::Unavailable { .. }) => {
            return Err(page(
                "the server's sign-in store is unreachable; try again in a moment",
            ));
        }
        Err(_) => return Err(page("the server's OAuth state is unreadable")),
    };
    let redirect_uri = match p.get("redirect_uri") {
        Some(u) if client.redirect_uris.contains(u) => u.clone(),
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        _ => return Err(page("redirect_uri is not one this client registered")),
    };
    let st = p.get("state").cloned();
    let fail = |error: &str, d: &str| {
        Refusal::Redirect(Box::new(back_to(
            &redirect_uri,
            &a.public_url,
            &[("error", error), ("error_description", d)],
            st.as_deref(),
        )))
    };
    if p.get("response_type").map(String::as_str) != Some("code") {
        return Err(fail("unsupported_response_type", "only response_type=code"));
    }
    let challenge = p
        .get("code_challenge")
        .filter(|c| pkce_shaped(c))
        .ok_or_else(|| fail("invalid_request", "a PKCE code_challenge is required"))?;
    if p.get("code_challenge_method").map(String::as_str) != Some("S256") {
        return Err(fail(
            "invalid_request",
            "code_challenge_method must be S256",
        ));
    }
    if let Err(why) = a.check_resource(p.get("resource").map(String::as_str)) {
        return Err(fail("invalid_target", &why));
    }
    Ok(AuthRequest {
        client_id: client_id.clone(),
        client_name: client
            .client_name
            .clone()
            .unwrap_or_else(|| client_id.clone()),
        redirect_uri,
        challenge: challenge.clone(),
        state: st,
        resource: a.resource_url(),
    })
}

fn refusal(r: Refusal) -> Response {
    match r {
        Refusal::Page(m) => (StatusCode::BAD_REQUEST, Html(page::error_page(&m))).into_response(),
        Refusal::Redirect(resp) => *resp,
    }
}

/// `GET /authorize`: the form.
pub(super) async fn authorize_form(
    State(a): State<Arc<Authority>>,
    Query(p): Query<Params>,
) -> Response {
    match check(&a, &p).await {
        Ok(req) => Html(page::form(
            &p,
            &req.client_name,
            &page::destination(&req.redirect_uri),
            None,
        ))
        .into_response(),
        Err(r) => refusal(r),
    }
}

/// `POST /authorize`: check the user's Coolify token (then drop it), issue a code.
pub(super) async fn authorize(
    State(a): State<Arc<Authority>>,
    Form(mut p): Form<Params>,
) -> Response {
    let token = p.remove("coolify_token").unwrap_or_default();
    let req = match check(&a, &p).await {
        Ok(req) => req,
        Err(r) => return refusal(r),
    };
    let again = |status: StatusCode, why: &str| {
        let to = page::destination(&req.redirect_uri);
        (
            status,
            Html(page::form(&p, &req.client_name, &to, Some(why))),
        )
            .into_response()
    };
    let token = token.trim();
    if token.is_empty() {
        return again(StatusCode::BAD_REQUEST, "Paste a Coolify API token.");
    }
    match a
        .prober
        .get("/teams/current", ProbeAuth::Bearer(token))
        .await
    {
        Ok(r) if r.status == 200 => {}
        Ok(r) if r.status == 401 || r.status == 403 => {
            return again(
                StatusCode::UNAUTHORIZED,
                "Coolify did not accept that token. Check it and try again.",
            );
        }
        Ok(r) => {
            return again(
                StatusCode::BAD_GATEWAY,
                &format!(
                    "Coolify answered HTTP {} to the check; try again later.",
                    r.status
                ),
            );
        }
        Err(e) => {
            return again(
                StatusCode::BAD_GATEWAY,
                &format!("Could not check the token with Coolify: {e}"),
            );
        }
    }
    let code = random_token("cmc_");
    let Some(sealed_token) = super::sealed::seal(token, &code) else {
        return server_error();
    };
    let entry = Code {
        sealed_token,
        client_id: req.client_id.clone(),
        redirect_uri: req.redirect_uri.clone(),
        challenge: req.challenge.clone(),
        resource: req.resource.clone(),
        exp: now_secs() + CODE_TTL_SECS,
    };
    if let Err(e) = a.store.put_code(digest(&code), entry).await {
        return unavailable(&e);
    }
    back_to(
        &req.redirect_uri,
        &a.public_url,
        &[("code", &code)],
        req.state.as_deref(),
    )
}
