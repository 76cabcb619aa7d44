//! Bounded sign-in state: redirect URIs are capped in length, registrations in number (the
//! oldest never-used one makes room; signed-in clients are never evicted, and when every kept
//! client is signed in a new registration is refused with 503).

use coolify_fixture::{FIXTURE_TOKEN, Fixture};
use serde_json::{Value, json};

use crate::oauth::{
    REDIRECT, VERIFIER, auth_params, http, oauth_server, oauth_server_with, query, submit, token,
};

async fn register_uris(base: &str, uris: &[String]) -> (u16, Value) {
    let r = http()
        .post(format!("{base}/register"))
        .json(&json!({"redirect_uris": uris, "client_name": "limits"}))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

/// GET /authorize for `client_id`: the status (400 when the client is unknown).
async fn authorize_status(base: &str, client_id: &str) -> u16 {
    let mut url = url::Url::parse(&format!("{base}/authorize")).unwrap();
    url.query_pairs_mut().extend_pairs(auth_params(client_id));
    http().get(url).send().await.unwrap().status().as_u16()
}

/// Complete a sign-in with an already registered client (which makes it "used").
async fn sign_in_as(base: &str, client_id: &str) {
    let (status, location, _) = submit(base, client_id, FIXTURE_TOKEN).await;
    assert_eq!(status, 303);
    let code = query(&location.unwrap(), "code").unwrap();
    let (status, tokens) = token(
        base,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", client_id),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
}

#[tokio::test]
async fn oauth_redirect_uris_are_capped_in_length() {
    let fixture = Fixture::start().await.unwrap();
    let s = oauth_server(fixture.url()).await;
    let huge = format!("https://client.example.dev/{}", "a".repeat(1024 * 1024));
    let (status, v) = register_uris(&s.base, &[huge]).await;
    assert_eq!(
        (status, v["error"].clone()),
        (400, json!("invalid_redirect_uri"))
    );
    assert!(
        v["error_description"].as_str().unwrap().contains("2048"),
        "{v}"
    );
    let long = |n: usize| format!("https://client.example.dev/{n}/{}", "b".repeat(1500));
    let (status, _) = register_uris(&s.base, &[long(1), long(2), long(3)]).await;
    assert_eq!(status, 400, "4.5 KB of redirect URIs in all");
    let (status, _) = register_uris(&s.base, &[long(1), long(2)]).await;
    assert_eq!(status, 201);
    let size = std::fs::metadata(&s.state_file).unwrap().len();
    assert!(size < 16 * 1024, "{size} bytes");
    s.handle.shutdown.cancel();
}

#[tokio::test]
async fn oauth_registrations_are_capped_and_the_oldest_unused_makes_room() {
    let fixture = Fixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("oauth-state.json");
    let s = oauth_server_with(fixture.url(), dir, state, None, 2).await;
    let one = vec![REDIRECT.to_string()];
    let id = |v: &Value| v["client_id"].as_str().unwrap().to_string();
    let (_, a) = register_uris(&s.base, &one).await;
    sign_in_as(&s.base, &id(&a)).await;
    let (_, b) = register_uris(&s.base, &one).await;
    // Full (a signed in, b not): c pushes out b, never a.
    let (status, c) = register_uris(&s.base, &one).await;
    assert_eq!(status, 201, "{c}");
    assert_eq!(
        authorize_status(&s.base, &id(&b)).await,
        400,
        "b was evicted"
    );
    assert_eq!(authorize_status(&s.base, &id(&a)).await, 200, "a is kept");
    assert_eq!(authorize_status(&s.base, &id(&c)).await, 200);
    // Every kept client signed in: a new registration is refused, nothing is evicted.
    sign_in_as(&s.base, &id(&c)).await;
    let (status, d) = register_uris(&s.base, &one).await;
    assert_eq!(
        (status, d["error"].clone()),
        (503, json!("temporarily_unavailable")),
        "{d}"
    );
    assert!(
        d["error_description"]
            .as_str()
            .unwrap()
            .contains("MCP_OAUTH_MAX_CLIENTS"),
        "{d}"
    );
    assert_eq!(authorize_status(&s.base, &id(&a)).await, 200);
    s.handle.shutdown.cancel();
}
