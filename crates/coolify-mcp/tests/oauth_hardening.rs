//! The sign-in server's hardening: RFC 8707 `resource` validated and tokens bound to this
//! server's URL (a server sharing the state file under another URL refuses them); a reused
//! refresh token revokes its whole family; the consent page names where the code goes, cannot
//! be framed, and the sign-in routes check `Host` like `/mcp`.

use coolify_fixture::{FIXTURE_TOKEN, Fixture};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::oauth::{
    REDIRECT, VERIFIER, auth_params, form_body, http, mcp_status, oauth_server, oauth_server_on,
    query, register, sign_in, token,
};

/// POST /authorize with the user's token and `extra` parameters: (status, Location).
async fn submit_with(base: &str, client_id: &str, extra: &[(&str, &str)]) -> (u16, Option<String>) {
    let mut form = auth_params(client_id);
    form.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    form.push(("coolify_token", FIXTURE_TOKEN.into()));
    let r = http()
        .post(format!("{base}/authorize"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(&form))
        .send()
        .await
        .unwrap();
    let location = r
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), location)
}

#[tokio::test]
async fn oauth_resource_is_validated_and_tokens_work_only_on_the_server_they_name() {
    let fixture = Fixture::start().await.unwrap();
    let s = oauth_server(fixture.url()).await;
    let canonical = format!("{}/mcp", s.base);
    let client_id = register(&s.base).await;
    // /authorize: a resource that is not this server is sent back as invalid_target, no code.
    let (status, location) = submit_with(
        &s.base,
        &client_id,
        &[("resource", "https://elsewhere.example/mcp")],
    )
    .await;
    assert_eq!(status, 303);
    let location = location.unwrap();
    assert_eq!(
        query(&location, "error").as_deref(),
        Some("invalid_target"),
        "{location}"
    );
    assert_eq!(query(&location, "code"), None);
    // This server's own URL (with or without a trailing slash) is accepted.
    let (status, location) = submit_with(
        &s.base,
        &client_id,
        &[("resource", &format!("{canonical}/"))],
    )
    .await;
    assert_eq!(status, 303);
    let code = query(&location.unwrap(), "code").unwrap();
    // /token: a foreign resource is invalid_target (and leaves the code unspent).
    let form = |resource: &str| {
        vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code.clone()),
            ("redirect_uri", REDIRECT.to_string()),
            ("client_id", client_id.clone()),
            ("code_verifier", VERIFIER.to_string()),
            ("resource", resource.to_string()),
        ]
    };
    let foreign = form("https://elsewhere.example/mcp");
    let pairs: Vec<(&str, &str)> = foreign.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, err) = token(&s.base, &pairs).await;
    assert_eq!(
        (status, err["error"].clone()),
        (400, json!("invalid_target"))
    );
    let own = form(&canonical);
    let pairs: Vec<(&str, &str)> = own.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, tokens) = token(&s.base, &pairs).await;
    assert_eq!(status, 200, "{tokens}");
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_status(&s.base, Some(access)).await.0, 200);
    s.handle.shutdown.cancel();
}

#[tokio::test]
async fn oauth_a_token_for_one_server_url_opens_nothing_on_another_sharing_the_state() {
    let fixture = Fixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("oauth-state.json");
    let other_dir = tempfile::tempdir().unwrap();
    let a = oauth_server_on(
        fixture.url(),
        dir,
        state.clone(),
        Some("http://127.0.0.1:7001"),
    )
    .await;
    let b = oauth_server_on(
        fixture.url(),
        other_dir,
        state,
        Some("http://127.0.0.1:7002"),
    )
    .await;
    let (client_id, tokens) = sign_in(&a.base).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_status(&a.base, Some(access)).await.0, 200);
    let (status, www) = mcp_status(&b.base, Some(access)).await;
    assert_eq!(status, 401, "a token for 7001 must not open 7002");
    assert!(www.unwrap().contains("invalid_token"));
    // Nor can its refresh token be turned into tokens for the other URL.
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let (status, err) = token(
        &b.base,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", &client_id),
        ],
    )
    .await;
    assert_eq!(status, 400, "{err}");
    a.handle.shutdown.cancel();
    b.handle.shutdown.cancel();
}

#[tokio::test]
async fn oauth_a_reused_refresh_token_revokes_the_whole_sign_in() {
    let fixture = Fixture::start().await.unwrap();
    let s = oauth_server(fixture.url()).await;
    let (client_id, first) = sign_in(&s.base).await;
    let old_refresh = first["refresh_token"].as_str().unwrap().to_string();
    let refresh = |t: String| {
        let base = s.base.clone();
        let client_id = client_id.clone();
        async move {
            token(
                &base,
                &[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", &t),
                    ("client_id", &client_id),
                ],
            )
            .await
        }
    };
    let (status, second) = refresh(old_refresh.clone()).await;
    assert_eq!(status, 200, "{second}");
    let new_access = second["access_token"].as_str().unwrap().to_string();
    assert_eq!(mcp_status(&s.base, Some(&new_access)).await.0, 200);
    // Someone replays the rotated-out refresh token: refused, and the family is revoked.
    let (status, err) = refresh(old_refresh).await;
    assert_eq!(
        (status, err["error"].clone()),
        (400, json!("invalid_grant"))
    );
    assert!(
        err["error_description"]
            .as_str()
            .unwrap()
            .contains("revoked"),
        "{err}"
    );
    assert_eq!(mcp_status(&s.base, Some(&new_access)).await.0, 401);
    assert_eq!(
        mcp_status(&s.base, Some(first["access_token"].as_str().unwrap()))
            .await
            .0,
        401
    );
    let (status, _) = refresh(second["refresh_token"].as_str().unwrap().to_string()).await;
    assert_eq!(status, 400, "the newest refresh token is revoked too");
    // Another sign-in of the same client is a family of its own and unaffected.
    let (_, other) = sign_in(&s.base).await;
    assert_eq!(
        mcp_status(&s.base, Some(other["access_token"].as_str().unwrap()))
            .await
            .0,
        200
    );
    s.handle.shutdown.cancel();
}

/// One raw request; the whole answer.
async fn raw(addr: std::net::SocketAddr, request: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out).await;
    out
}

fn lower_head(response: &str) -> String {
    response
        .split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

#[tokio::test]
async fn oauth_consent_names_the_redirect_host_cannot_be_framed_and_checks_host() {
    let fixture = Fixture::start().await.unwrap();
    let s = oauth_server(fixture.url()).await;
    let client_id = register(&s.base).await;
    let mut url = url::Url::parse(&format!("{}/authorize", s.base)).unwrap();
    url.query_pairs_mut().extend_pairs(auth_params(&client_id));
    let r = http().get(url.clone()).send().await.unwrap();
    let headers = r.headers().clone();
    let page = r.text().await.unwrap();
    // The client picks its own name; the host the code goes to it cannot fake.
    assert!(page.contains("Test &lt;client&gt;"), "{page}");
    assert!(
        page.contains("you are sent back to <strong>127.0.0.1:9</strong>"),
        "{page}"
    );
    assert_eq!(headers["x-frame-options"], "DENY");
    assert_eq!(headers["content-security-policy"], "frame-ancestors 'none'");
    // The error page and the token endpoint carry them too.
    let r = http()
        .get(format!("{}/authorize?client_id=nobody", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.headers()["x-frame-options"], "DENY");
    // A foreign Host (DNS rebinding) reaches no sign-in route.
    let path_and_query = format!("{}?{}", url.path(), url.query().unwrap());
    for (method, path) in [
        ("GET", path_and_query.as_str()),
        ("POST", "/token"),
        ("POST", "/register"),
        ("GET", "/.well-known/oauth-authorization-server"),
    ] {
        let r = raw(
            s.handle.addr,
            &format!(
                "{method} {path} HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            ),
        )
        .await;
        assert!(r.starts_with("HTTP/1.1 403"), "{method} {path}: {r}");
        assert!(r.contains("forbidden_host"), "{r}");
        assert!(lower_head(&r).contains("x-frame-options: deny"), "{r}");
    }
    let ok = raw(
        s.handle.addr,
        &format!("GET {path_and_query} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    s.handle.shutdown.cancel();
}
