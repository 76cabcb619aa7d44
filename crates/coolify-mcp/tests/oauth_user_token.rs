//! A sign-in grants no more than the signing-in user's own Coolify token: a read-only team
//! member signs in, reads work, and a write is refused by Coolify itself, because every call
//! under the grant — tool calls and resource reads — carries the member's token (never the
//! server's, which could write).

use coolify_fixture::{AuthSeen, Fixture};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

use crate::common::as_map;
use crate::oauth::{REDIRECT, VERIFIER, oauth_server, query, register, submit, token};

const READ_ONLY_TOKEN: &str = "2|read-only-member-token";

#[tokio::test]
async fn a_read_only_members_sign_in_reads_but_cannot_write() {
    let fixture = Fixture::builder()
        .read_only_token(READ_ONLY_TOKEN)
        .start()
        .await
        .unwrap();
    // The server itself is configured with the fixture's full token.
    let s = oauth_server(fixture.url()).await;
    let client_id = register(&s.base).await;
    let (status, location, _) = submit(&s.base, &client_id, READ_ONLY_TOKEN).await;
    assert_eq!(status, 303);
    let code = query(&location.unwrap(), "code").unwrap();
    let (status, tokens) = token(
        &s.base,
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
    let file = std::fs::read_to_string(&s.state_file).unwrap();
    assert!(
        !file.contains(READ_ONLY_TOKEN),
        "kept sealed, never in the clear"
    );
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", s.base))
        .auth_header(tokens["access_token"].as_str().unwrap().to_string());
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    let call = |name: &'static str, args: Value| {
        let peer = client.peer().clone();
        async move {
            let mut p = CallToolRequestParams::new(name);
            p.arguments = Some(as_map(args));
            let r = serde_json::to_value(peer.call_tool(p).await.unwrap()).unwrap();
            r["content"][0]["text"].as_str().unwrap().to_string()
        }
    };
    let read = call("get_application", json!({"uuid": "app-api"})).await;
    assert!(read.contains("api-gateway"), "{read}");
    let write = call(
        "env_vars",
        json!({"resource": "application", "action": "create", "uuid": "app-api", "key": "NEW", "value": "x"}),
    )
    .await;
    assert!(write.starts_with("Error: "), "{write}");
    assert!(write.contains("Missing required permissions"), "{write}");
    // Resources are read with the member's token too.
    let resource = client
        .peer()
        .read_resource(
            serde_json::from_value(json!({"uri": "coolify://application/app-api"})).unwrap(),
        )
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&resource)
            .unwrap()
            .contains("api-gateway")
    );
    let _ = client.cancel().await;
    // Every request Coolify saw (the sign-in check included) carried the member's token.
    let seen: Vec<(String, AuthSeen)> = fixture
        .requests()
        .iter()
        .map(|r| (format!("{} {}", r.method, r.path), r.auth))
        .collect();
    assert!(
        seen.iter().all(|(_, auth)| *auth == AuthSeen::ReadOnly),
        "{seen:?}"
    );
    assert!(seen.iter().any(|(r, _)| r.starts_with("POST ")), "{seen:?}");
    // A refreshed grant still carries the member's token, not the server's.
    let (status, fresh) = token(
        &s.base,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
            ("client_id", &client_id),
        ],
    )
    .await;
    assert_eq!(status, 200, "{fresh}");
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", s.base))
        .auth_header(fresh["access_token"].as_str().unwrap().to_string());
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    let mut p = CallToolRequestParams::new("get_application");
    p.arguments = Some(as_map(json!({"uuid": "app-api"})));
    client.peer().call_tool(p).await.unwrap();
    let _ = client.cancel().await;
    assert!(
        fixture
            .requests()
            .iter()
            .all(|r| r.auth == AuthSeen::ReadOnly)
    );
    s.handle.shutdown.cancel();
}
