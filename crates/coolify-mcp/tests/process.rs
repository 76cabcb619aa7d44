//! Process-level tests: the real `coolify-mcp` binary over stdio and over streamable HTTP.

use std::process::Stdio;
use std::time::Duration;

use coolify_fixture::{FIXTURE_TOKEN, Fixture};
use rmcp::ServiceExt;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_coolify-mcp");
const TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) fn command(fixture: &Fixture) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_clear()
        .env("COOLIFY_BASE_URL", fixture.url())
        .env("COOLIFY_ACCESS_TOKEN", FIXTURE_TOKEN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

#[tokio::test]
async fn stdio_process_serves_tools_and_calls_coolify() {
    let fixture = Fixture::start().await.unwrap();
    let cmd = command(&fixture);
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let client = tokio::time::timeout(TIMEOUT, ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    let tools = tokio::time::timeout(TIMEOUT, client.peer().list_all_tools())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(tools.len(), 45);
    let mut params = rmcp::model::CallToolRequestParams::new("get_version");
    params.arguments = Some(Default::default());
    let r = tokio::time::timeout(TIMEOUT, client.peer().call_tool(params))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap()["content"][0]["text"],
        "{\n  \"version\": \"4.1.2\"\n}"
    );
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;
}

#[tokio::test]
async fn bad_config_exits_1_with_the_problem_list() {
    let out = std::process::Command::new(BIN)
        .env_clear()
        .env("COOLIFY_BASE_URL", "http://127.0.0.1:1/api/v1")
        .env("COOLIFY_ACCESS_TOKEN", "t")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "stdout belongs to the protocol");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("coolify-mcp cannot start:\n  - COOLIFY_BASE_URL ends with /api/v1."),
        "{stderr}"
    );
}

/// Spawn `--transport http --port 0` and read the bound address from stderr.
async fn spawn_http(
    fixture: &Fixture,
    extra: &[&str],
    token: Option<&str>,
) -> (tokio::process::Child, String) {
    spawn_http_with(fixture, extra, token, None).await
}

/// [`spawn_http`] with an optional `COOLIFY_INSTANCES` (fleet mode).
pub(crate) async fn spawn_http_with(
    fixture: &Fixture,
    extra: &[&str],
    token: Option<&str>,
    instances: Option<String>,
) -> (tokio::process::Child, String) {
    let mut cmd = command(fixture);
    if let Some(json) = instances {
        cmd.env("COOLIFY_INSTANCES", json);
    }
    cmd.args(["--transport", "http", "--port", "0"])
        .args(extra)
        .stdin(Stdio::null());
    if let Some(t) = token {
        cmd.env("COOLIFY_MCP_HTTP_TOKEN", t);
    }
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(TIMEOUT, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(rest) = line.strip_prefix("coolify-mcp: listening on ") {
                return rest.to_string();
            }
        }
        panic!("the server exited without listening");
    })
    .await
    .unwrap();
    // Keep draining stderr so the server's diagnostics never hit a closed pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

#[tokio::test]
async fn http_process_requires_the_bearer_token_and_checks_host() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fixture = Fixture::start().await.unwrap();
    let (mut child, url) =
        spawn_http(&fixture, &[], Some("http-test-token-0123456789abcdef")).await;
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let http = reqwest::Client::new();
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let post = |auth: Option<&str>| {
        let mut r = http
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .json(&init);
        if let Some(a) = auth {
            r = r.bearer_auth(a);
        }
        r.send()
    };
    assert_eq!(post(None).await.unwrap().status(), 401);
    assert_eq!(post(Some("wrong")).await.unwrap().status(), 401);
    for (host, origin) in [
        ("evil.example", None),
        ("127.0.0.1", Some("http://evil.example")),
    ] {
        let status = raw_status(&url, host, origin, "http-test-token-0123456789abcdef").await;
        assert!(
            (400..500).contains(&status),
            "Host {host} / Origin {origin:?}: {status}"
        );
    }
    assert_eq!(
        raw_status(
            &url,
            "localhost",
            Some("http://localhost:3000"),
            "http-test-token-0123456789abcdef"
        )
        .await,
        200
    );
    assert_eq!(
        post(Some("http-test-token-0123456789abcdef"))
            .await
            .unwrap()
            .status(),
        200
    );

    // A real MCP client over streamable HTTP with the token.
    let config =
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            url.clone(),
        )
        .auth_header("http-test-token-0123456789abcdef");
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = tokio::time::timeout(TIMEOUT, ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    let tools = tokio::time::timeout(TIMEOUT, client.peer().list_all_tools())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(tools.len(), 45);
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;
    child.kill().await.unwrap();
}

#[tokio::test]
async fn http_no_auth_serves_loopback_without_a_token() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fixture = Fixture::start().await.unwrap();
    let (mut child, url) = spawn_http(&fixture, &["--no-auth"], None).await;
    let transport = StreamableHttpClientTransport::from_uri(url.clone());
    let client = tokio::time::timeout(TIMEOUT, ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    let prompts = tokio::time::timeout(TIMEOUT, client.peer().list_all_prompts())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(prompts.len(), 3);
    let resources = tokio::time::timeout(TIMEOUT, client.peer().list_all_resources())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resources.len(), 4);
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;
    let health = reqwest::get(url.replace("/mcp", "/healthz"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(health, "{\"status\":\"ok\"}");
    child.kill().await.unwrap();
}

/// One raw HTTP/1.1 `initialize` POST with a chosen Host (and Origin); the status code.
async fn raw_status(url: &str, host: &str, origin: Option<&str>, token: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let origin = origin
        .map(|o| format!("Origin: {o}\r\n"))
        .unwrap_or_default();
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{origin}Authorization: Bearer {token}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    tokio::time::timeout(TIMEOUT, stream.read_exact(&mut head))
        .await
        .unwrap()
        .unwrap();
    std::str::from_utf8(&head[9..12]).unwrap().parse().unwrap()
}
