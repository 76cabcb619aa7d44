//! Two `coolify-mcp --transport http --stateless` processes sharing one OAuth state file, as
//! two replicas behind a load balancer with no session affinity: a client signs in on one and
//! uses the token on the other; a refresh on the second rotates the token for both, and the
//! reuse of the rotated-out token on the first revokes the sign-in on both.

use std::process::Stdio;
use std::time::Duration;

use coolify_fixture::Fixture;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::as_map;
use crate::oauth::{mcp_status, sign_in, token};

const TIMEOUT: Duration = Duration::from_secs(30);

/// One replica; `(child, base URL)`.
async fn replica(
    fixture: &Fixture,
    state_file: &std::path::Path,
) -> (tokio::process::Child, String) {
    let file = state_file.display().to_string();
    replica_with(fixture, &[], &[("MCP_OAUTH_STATE_FILE", file.as_str())]).await
}

/// One `--stateless` replica signing in under the balancer's URL, with `args` and `env` added;
/// `(child, base URL)` once it listens.
pub(crate) async fn replica_with(
    fixture: &Fixture,
    args: &[&str],
    env: &[(&str, &str)],
) -> (tokio::process::Child, String) {
    let mut cmd = crate::process::command(fixture);
    cmd.args(["--transport", "http", "--port", "0", "--stateless"])
        .args(args)
        .env("MCP_PUBLIC_URL", "http://127.0.0.1:8080")
        .env("MCP_ALLOW_INSECURE_HTTP", "true")
        .env("COOLIFY_MCP_AUDIT", "off")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(TIMEOUT, async {
        let mut seen = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(rest) = line.strip_prefix("coolify-mcp: listening on ") {
                return rest.to_string();
            }
            seen.push(line);
        }
        panic!("the replica exited without listening: {seen:#?}");
    })
    .await
    .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url.trim_end_matches("/mcp").to_string())
}

#[tokio::test]
async fn two_stateless_replicas_share_one_state_file() {
    let fixture = Fixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("oauth-state.json");
    let (mut a, base_a) = replica(&fixture, &state).await;
    let (mut b, base_b) = replica(&fixture, &state).await;
    assert_ne!(base_a, base_b);

    let (client_id, tokens) = sign_in(&base_a).await;
    let access = tokens["access_token"].as_str().unwrap().to_string();
    assert_eq!(mcp_status(&base_b, Some(&access)).await.0, 200);

    // A full MCP client on B with A's token: stateless, so no session to be pinned to.
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{base_b}/mcp"))
        .auth_header(access.clone());
    let client = tokio::time::timeout(
        TIMEOUT,
        ().serve(StreamableHttpClientTransport::from_config(config)),
    )
    .await
    .unwrap()
    .unwrap();
    let mut p = CallToolRequestParams::new("get_application");
    p.arguments = Some(as_map(json!({"uuid": "app-api"})));
    let r = tokio::time::timeout(TIMEOUT, client.peer().call_tool(p))
        .await
        .unwrap()
        .unwrap();
    let text = serde_json::to_value(&r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("api-gateway"), "{text}");
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;

    // Refresh on B; the old refresh token is spent for A too.
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", client_id.as_str()),
    ];
    let (status, fresh) = token(&base_b, &form).await;
    assert_eq!(status, 200, "{fresh}");
    let new_access = fresh["access_token"].as_str().unwrap();
    assert_eq!(mcp_status(&base_a, Some(new_access)).await.0, 200);
    // Presenting the spent one on A is a reuse: refused, and the sign-in is revoked on both.
    assert_eq!(token(&base_a, &form).await.0, 400);
    assert_eq!(mcp_status(&base_a, Some(new_access)).await.0, 401);
    assert_eq!(mcp_status(&base_b, Some(new_access)).await.0, 401);
    // The issuer is the balancer's URL on both.
    let meta: serde_json::Value =
        reqwest::get(format!("{base_b}/.well-known/oauth-authorization-server"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(meta["issuer"], "http://127.0.0.1:8080");
    a.kill().await.unwrap();
    b.kill().await.unwrap();
}
