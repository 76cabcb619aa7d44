//! Protocol details: 2026-07-28 discovery claims no `listChanged` the server never sends;
//! `DELETE` of an unknown session is 404; a `--stateless` refusal names stateless mode; stdin
//! closed before `initialize` is a clean exit; Coolify out of reach is an `isError` result.

use std::process::Stdio;
use std::time::Duration;

use coolify_mcp::http::{HttpHandle, start};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::common::{Setup, as_map, bearer_http, build_server};

const TIMEOUT: Duration = Duration::from_secs(30);
const TOKEN: &str = "protocol-test-token-0123456789abcdef";

async fn serve_http(coolify: &str, setup: &Setup, stateless: bool) -> HttpHandle {
    let server = build_server(coolify, setup);
    let spec = bearer_http(TOKEN, stateless);
    start(server, &spec).await.unwrap()
}

/// A 2026-07-28 client (discovery, no handshake).
#[derive(Clone)]
struct Modern;

impl ClientHandler for Modern {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "protocol-tests", "version": "1"}
        }))
        .unwrap()
    }
}

/// A 2025-era client that would answer every confirmation with yes.
#[derive(Clone)]
struct Yes;

impl ClientHandler for Yes {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "protocol-tests", "version": "1"}
        }))
        .unwrap()
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(serde_json::from_value(json!({"action": "accept"})).unwrap())
    }
}

#[tokio::test]
async fn discovery_at_2026_07_28_claims_no_list_changed() {
    let server = build_server("http://127.0.0.1:9", &Setup::default());
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(coolify_mcp::wire::outgoing(a)).await {
            let _ = running.waiting().await;
        }
    });
    let client = Modern
        .serve_with_lifecycle(
            b,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let discovered = client.peer().discover(Default::default()).await.unwrap();
    let caps = serde_json::to_value(&discovered).unwrap()["capabilities"].clone();
    for family in ["tools", "prompts", "resources"] {
        assert!(caps[family].is_object(), "{caps}");
        assert_eq!(caps[family].get("listChanged"), None, "{family}: {caps}");
    }
}

#[tokio::test]
async fn delete_of_an_unknown_session_is_404_and_of_a_live_one_200() {
    let h = serve_http("http://127.0.0.1:9", &Setup::default(), false).await;
    let url = format!("http://{}/mcp", h.addr);
    let http = reqwest::Client::new();
    let delete = |id: &str| {
        http.delete(&url)
            .bearer_auth(TOKEN)
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
    };
    let unknown = delete("no-such-session").await.unwrap();
    assert_eq!(unknown.status(), 404);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = http
        .post(&url)
        .bearer_auth(TOKEN)
        .header("accept", "application/json, text/event-stream")
        .json(&init)
        .send()
        .await
        .unwrap();
    let id = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    // 200 (not rmcp's 202, which the Python SDK reports as a failed termination).
    assert_eq!(delete(&id).await.unwrap().status(), 200);
    // Closed now: a second DELETE finds nothing to close.
    assert_eq!(delete(&id).await.unwrap().status(), 404);
}

#[tokio::test]
async fn a_stateless_refusal_names_stateless_mode() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fixture = coolify_fixture::Fixture::start().await.unwrap();
    let h = serve_http(fixture.url(), &Setup::default().require_human(), true).await;
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{}/mcp", h.addr))
        .auth_header(TOKEN);
    let client = tokio::time::timeout(
        TIMEOUT,
        Yes.serve(StreamableHttpClientTransport::from_config(config)),
    )
    .await
    .unwrap()
    .unwrap();
    let mut p = CallToolRequestParams::new("stop_all_apps");
    p.arguments = Some(as_map(json!({"confirm": true})));
    let r = tokio::time::timeout(TIMEOUT, client.peer().call_tool(p))
        .await
        .unwrap()
        .unwrap();
    let text = serde_json::to_value(&r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.starts_with("Aborted: this server runs in stateless HTTP mode (--stateless)"),
        "{text}"
    );
    assert!(!text.contains("does not support elicitation"), "{text}");
    assert!(fixture.mutations().is_empty());
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;
}

#[tokio::test]
async fn stdin_closed_before_initialize_exits_0() {
    let fixture = coolify_fixture::Fixture::start().await.unwrap();
    let mut cmd = crate::process::command(&fixture);
    cmd.stdin(Stdio::null());
    let out = tokio::time::timeout(TIMEOUT, cmd.output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

#[tokio::test]
async fn coolify_out_of_reach_is_an_is_error_result() {
    // A port nothing listens on: the connection is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let server = build_server(&url, &Setup::default());
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(coolify_mcp::wire::outgoing(a)).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(b).await.unwrap();
    let mut p = CallToolRequestParams::new("get_application");
    p.arguments = Some(as_map(json!({"uuid": "app-api"})));
    let r: Value = serde_json::to_value(client.peer().call_tool(p).await.unwrap()).unwrap();
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Error: Failed to connect to Coolify server at"),
        "{r}"
    );
    // An answer from Coolify, even an error one, stays a plain result (as the reference).
    let fixture = coolify_fixture::Fixture::start().await.unwrap();
    let server = build_server(fixture.url(), &Setup::default());
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(coolify_mcp::wire::outgoing(a)).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(b).await.unwrap();
    let mut p = CallToolRequestParams::new("get_application");
    p.arguments = Some(as_map(json!({"uuid": "no-such-app"})));
    let r: Value = serde_json::to_value(client.peer().call_tool(p).await.unwrap()).unwrap();
    assert_eq!(r.get("isError"), None, "{r}");
}
