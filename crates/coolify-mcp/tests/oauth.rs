//! The OAuth 2.1 authorization server in process, driven over HTTP on
//! 127.0.0.1 with reqwest: metadata, registration, the form checked against the fixture's
//! Coolify token, code + PKCE, refresh rotation, the bearer it yields on `/mcp` (and in the
//! audit line), the rate limit (paused clock), the state file.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use coolify_fixture::{FIXTURE_TOKEN, Fixture};
use coolify_mcp::audit::Audit;
use coolify_mcp::config::{HttpAuth, HttpSpec, OAuthSpec};
use coolify_mcp::http::HttpHandle;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{Setup, build_server};

pub(crate) const REDIRECT: &str = "http://127.0.0.1:9/callback";
pub(crate) const VERIFIER: &str = "verifier-0123456789-0123456789-0123456789-0123456789";

pub(crate) fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

pub(crate) struct AuthServer {
    pub handle: HttpHandle,
    pub base: String,
    pub audit: Arc<Mutex<Vec<String>>>,
    pub _dir: tempfile::TempDir,
    pub state_file: std::path::PathBuf,
}

pub(crate) async fn oauth_server(fixture_url: &str) -> AuthServer {
    let dir = tempfile::tempdir().unwrap();
    let state_file = dir.path().join("oauth-state.json");
    oauth_server_on(fixture_url, dir, state_file, None).await
}

/// [`oauth_server`] on a given state file, under a given public URL (default: its address).
pub(crate) async fn oauth_server_on(
    fixture_url: &str,
    dir: tempfile::TempDir,
    state_file: std::path::PathBuf,
    public_url: Option<&str>,
) -> AuthServer {
    let max = coolify_mcp::config::DEFAULT_MAX_CLIENTS;
    oauth_server_with(fixture_url, dir, state_file, public_url, max).await
}

/// [`oauth_server_on`] keeping at most `max_clients` registrations.
pub(crate) async fn oauth_server_with(
    fixture_url: &str,
    dir: tempfile::TempDir,
    state_file: std::path::PathBuf,
    public_url: Option<&str>,
    max_clients: usize,
) -> AuthServer {
    let audit = Arc::new(Mutex::new(Vec::new()));
    let sink = audit.clone();
    let setup = Setup {
        audit: Audit::to(Arc::new(move |l: &str| {
            sink.lock().unwrap().push(l.to_string())
        })),
        ..Setup::default()
    };
    let server = build_server(fixture_url, &setup);
    let spec = HttpSpec {
        bind: "127.0.0.1:0".parse().unwrap(),
        auth: HttpAuth::OAuthOnly,
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        oauth: Some(Box::new(OAuthSpec {
            public_url: public_url.map(str::to_string),
            state_file: state_file.clone(),
            state_url: None,
            access_ttl_secs: 3600,
            refresh_ttl_secs: 28_800,
            trusted_proxies: Vec::new(),
            coolify_url: fixture_url.to_string(),
            coolify_headers: Vec::new(),
            max_clients,
        })),
        stateless: false,
    };
    let handle = coolify_mcp::http::start(server, &spec).await.unwrap();
    let base = format!("http://{}", handle.addr);
    AuthServer {
        handle,
        base,
        audit,
        _dir: dir,
        state_file,
    }
}

pub(crate) fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

pub(crate) async fn register(base: &str) -> String {
    let r = http()
        .post(format!("{base}/register"))
        .json(&json!({"redirect_uris": [REDIRECT], "client_name": "Test <client>", "token_endpoint_auth_method": "none"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["token_endpoint_auth_method"], "none");
    v["client_id"].as_str().unwrap().to_string()
}

pub(crate) fn auth_params(client_id: &str) -> Vec<(&'static str, String)> {
    vec![
        ("response_type", "code".into()),
        ("client_id", client_id.into()),
        ("redirect_uri", REDIRECT.into()),
        ("code_challenge", challenge(VERIFIER)),
        ("code_challenge_method", "S256".into()),
        ("state", "st-1".into()),
    ]
}

/// POST the form with `coolify_token`: (status, Location, body).
pub(crate) async fn submit(
    base: &str,
    client_id: &str,
    coolify_token: &str,
) -> (u16, Option<String>, String) {
    let mut form = auth_params(client_id);
    form.push(("coolify_token", coolify_token.into()));
    let r = http()
        .post(format!("{base}/authorize"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(&form))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    (status, location, r.text().await.unwrap())
}

pub(crate) fn form_body<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref())))
        .finish()
}

pub(crate) fn query(location: &str, key: &str) -> Option<String> {
    url::Url::parse(location)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

pub(crate) async fn token(base: &str, form: &[(&str, &str)]) -> (u16, Value) {
    let r = http()
        .post(format!("{base}/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(form))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.headers()
            .get("cache-control")
            .map(|v| v.to_str().unwrap()),
        Some("no-store")
    );
    (r.status().as_u16(), r.json().await.unwrap())
}

/// register → authorize → token: the token response.
pub(crate) async fn sign_in(base: &str) -> (String, Value) {
    let client_id = register(base).await;
    let (status, location, _) = submit(base, &client_id, FIXTURE_TOKEN).await;
    assert_eq!(status, 303, "redirected back");
    let code = query(location.as_deref().unwrap(), "code").unwrap();
    let (status, tokens) = token(
        base,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", &client_id),
            ("code_verifier", VERIFIER),
        ],
    )
    .await;
    assert_eq!(status, 200, "{tokens}");
    (client_id, tokens)
}

pub(crate) async fn mcp_status(base: &str, bearer: Option<&str>) -> (u16, Option<String>) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let mut r = http()
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&init);
    if let Some(b) = bearer {
        r = r.bearer_auth(b);
    }
    let r = r.send().await.unwrap();
    let www = r
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), www)
}

#[tokio::test]
async fn oauth_metadata_and_the_challenge_name_each_other() {
    let fixture = Fixture::start().await.unwrap();
    let s = oauth_server(fixture.url()).await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let v: Value = http()
            .get(format!("{}{path}", s.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(v["resource"], format!("{}/mcp", s.base));
        assert_eq!(v["authorization_servers"], json!([s.base]));
    }
    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-authorization-server/mcp",
    ] {
        let v: Value = http()
            .get(format!("{}{path}", s.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(v["issuer"], s.base);
        assert_eq!(v["token_endpoint"], format!("{}/token", s.base));
        assert_eq!(v["registration_endpoint"], format!("{}/register", s.base));
        assert_eq!(v["code_challenge_methods_supported"], json!(["S256"]));
    }
    let (status, www) = mcp_status(&s.base, None).await;
    assert_eq!(status, 401);
    assert_eq!(
        www.unwrap(),
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            s.base
        )
    );
    s.handle.shutdown.cancel();
}

#[tokio::test]
async fn oauth_sign_in_with_the_users_coolify_token_yields_a_bearer_for_mcp() {
    let fixture = Fixture::start().await.unwrap();
    let s = oauth_server(fixture.url()).await;
    let client_id = register(&s.base).await;
    // The form: the parameters as hidden fields, the client's name escaped.
    let mut url = url::Url::parse(&format!("{}/authorize", s.base)).unwrap();
    url.query_pairs_mut().extend_pairs(auth_params(&client_id));
    let page = http().get(url).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("Test &lt;client&gt;"), "{page}");
    assert!(page.contains("name=\"coolify_token\""));
    // A wrong Coolify token: the form again, no code.
    let (status, location, body) = submit(&s.base, &client_id, "wrong-token").await;
    assert_eq!((status, location), (401, None));
    assert!(body.contains("Coolify did not accept that token"));
    assert!(!body.contains("wrong-token"), "the token is never echoed");
    // The right one: back to the client with a code, the state and the issuer.
    let (status, location, _) = submit(&s.base, &client_id, FIXTURE_TOKEN).await;
    assert_eq!(status, 303);
    let location = location.unwrap();
    assert!(location.starts_with(REDIRECT), "{location}");
    assert_eq!(query(&location, "state").as_deref(), Some("st-1"));
    assert_eq!(query(&location, "iss"), Some(s.base.clone()));
    let code = query(&location, "code").unwrap();
    let redeem = |verifier: &'static str, code: String| {
        let base = s.base.clone();
        let client_id = client_id.clone();
        async move {
            token(
                &base,
                &[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("redirect_uri", REDIRECT),
                    ("client_id", &client_id),
                    ("code_verifier", verifier),
                ],
            )
            .await
        }
    };
    let (status, err) = redeem(
        "wrong-verifier-0123456789-0123456789-0123456789-012",
        code.clone(),
    )
    .await;
    assert_eq!(
        (status, err["error"].clone()),
        (400, json!("invalid_grant"))
    );
    // A code is tried once: after a wrong verifier it is gone.
    let (status, _) = redeem(VERIFIER, code).await;
    assert_eq!(status, 400);

    let (client_id, tokens) = sign_in(&s.base).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(mcp_status(&s.base, Some(access)).await.0, 200);
    let (status, www) = mcp_status(&s.base, Some("cma_forged")).await;
    assert_eq!(status, 401);
    assert!(www.unwrap().starts_with("Bearer error=\"invalid_token\""));
    // Nothing secret in the state file.
    let file = std::fs::read_to_string(&s.state_file).unwrap();
    assert!(!file.contains(access) && !file.contains(FIXTURE_TOKEN));
    // Refresh rotates: the old refresh token stops working.
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", client_id.as_str()),
    ];
    let (status, fresh) = token(&s.base, &form).await;
    assert_eq!(status, 200, "{fresh}");
    assert_ne!(fresh["access_token"], tokens["access_token"]);
    assert_eq!(token(&s.base, &form).await.0, 400);
    s.handle.shutdown.cancel();
}

#[tokio::test]
async fn oauth_client_id_reaches_the_audit_line() {
    let fixture = Fixture::start().await.unwrap();
    let s = oauth_server(fixture.url()).await;
    let (client_id, tokens) = sign_in(&s.base).await;
    let access = tokens["access_token"].as_str().unwrap().to_string();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_config(
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            format!("{}/mcp", s.base),
        )
        .auth_header(access),
    );
    let client = rmcp::ServiceExt::serve((), transport).await.unwrap();
    let mut p = rmcp::model::CallToolRequestParams::new("get_application");
    p.arguments = Some(crate::common::as_map(json!({"uuid": "app-api"})));
    client.peer().call_tool(p).await.unwrap();
    let _ = client.cancel().await;
    let lines = s.audit.lock().unwrap().clone();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let v: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(v["client_id"], client_id);
    s.handle.shutdown.cancel();
}

/// One raw HTTP exchange (no client-side timers: safe with the paused clock).
async fn raw(addr: SocketAddr, request: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out).await;
    out
}

#[tokio::test(start_paused = true)]
async fn oauth_endpoints_allow_20_requests_a_minute_per_address() {
    let fixture = Fixture::start().await.unwrap();
    let s = oauth_server(fixture.url()).await;
    let body = r#"{"redirect_uris":["http://127.0.0.1:9/cb"]}"#;
    // X-Forwarded-For from an untrusted peer changes nothing.
    let request = |n: usize| {
        format!(
            "POST /register HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 198.51.100.{n}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    for n in 0..20 {
        let r = raw(s.handle.addr, &request(n)).await;
        assert!(r.starts_with("HTTP/1.1 201"), "request {n}: {r}");
    }
    let r = raw(s.handle.addr, &request(99)).await;
    assert!(r.starts_with("HTTP/1.1 429"), "{r}");
    assert!(r.contains(r#""error":"rate_limited""#), "{r}");
    // /token and /authorize share the address's budget.
    let r = raw(
        s.handle.addr,
        "POST /token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 429"), "{r}");
    tokio::time::advance(Duration::from_secs(61)).await;
    let r = raw(s.handle.addr, &request(0)).await;
    assert!(r.starts_with("HTTP/1.1 201"), "a minute later: {r}");
    s.handle.shutdown.cancel();
}

#[tokio::test(start_paused = true)]
async fn oauth_coolify_check_gives_up_after_10_s_and_issues_no_code() {
    // A Coolify that accepts the connection and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((conn, _)) = silent.accept().await {
            open.push(conn);
        }
    });
    let s = oauth_server(&silent_url).await;
    let store = coolify_mcp::oauth::store::Store::new(&s.state_file);
    store
        .update(|st| {
            st.clients.insert(
                "mcp_client_t".into(),
                coolify_mcp::oauth::store::Client {
                    redirect_uris: vec![REDIRECT.into()],
                    client_name: None,
                    issued_at: coolify_mcp::oauth::store::now_secs(),
                    used: false,
                },
            )
        })
        .unwrap();
    let mut form: Vec<(&str, String)> = auth_params("mcp_client_t");
    form.push(("coolify_token", "users-own-token".into()));
    let body = form_body(&form);
    let request = format!(
        "POST /authorize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let t0 = tokio::time::Instant::now();
    let r = raw(s.handle.addr, &request).await;
    let waited = t0.elapsed();
    assert!(r.starts_with("HTTP/1.1 502"), "{r}");
    assert!(r.contains("no answer within 10 s"), "{r}");
    assert!(!r.contains("users-own-token"), "never echoed");
    assert!(
        waited >= Duration::from_secs(10) && waited < Duration::from_secs(11),
        "{waited:?}"
    );
    assert!(store.load().unwrap().codes.is_empty(), "no code issued");
    held.abort();
    s.handle.shutdown.cancel();
}
