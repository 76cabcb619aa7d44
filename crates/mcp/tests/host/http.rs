//! Streamable HTTP servers (the fake server in-process, bound to 127.0.0.1).

use coyote_mcp::{ContentItem, McpError, McpRuntime, RuntimeOptions, ServerState};
use coyote_protocol::{HttpSpec, McpServerSpec, McpTransport, Timeouts};
use coyote_test_support::{FakeHttpServer, ListKind, Scenario, ToolBehavior};
use serde_json::{Map, json};

use super::support::{relaxed, runtime};

pub(super) fn http_spec(name: &str, url: &str, timeouts: Timeouts) -> McpServerSpec {
    McpServerSpec {
        name: name.to_owned(),
        transport: McpTransport::Http(HttpSpec {
            url: url.to_owned(),
            headers: vec![("X-Coyote-Test".into(), "1".into())],
            bearer_token_env: None,
            oauth: Default::default(),
            fallback_to_sse: false,
        }),
        timeouts,
        approve: Default::default(),
        expose: Default::default(),
        retrieve: Default::default(),
        auto_approve: vec![],
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        source: "mcp.json".into(),
    }
}

#[tokio::test]
async fn an_http_server_becomes_ready_lists_and_answers() {
    let scenario = Scenario::builder()
        .page_size(2)
        .generated_each(3)
        .tool("echo", ToolBehavior::Echo)
        .build();
    let server = FakeHttpServer::start(scenario)
        .await
        .expect("bind 127.0.0.1");
    let runtime = runtime();
    runtime
        .start_all(vec![http_spec("web", server.url(), relaxed())])
        .await;
    assert_eq!(runtime.state("web"), Some(ServerState::Ready));
    let handle = runtime.server("web").expect("ready");
    let info = handle.info();
    assert_eq!(
        (info.transport.as_str(), info.protocol_version.as_deref()),
        ("http", Some("2025-11-25"))
    );

    let tools = handle.list_tools().await.expect("tools");
    assert_eq!(tools.len(), 4);
    assert_eq!(server.handle().events().list_requests(ListKind::Tools), 2);

    let mut args = Map::new();
    args.insert("text".into(), json!("over http"));
    let outcome = handle.call_tool("echo", args).await.expect("call");
    assert_eq!(
        outcome.content,
        vec![ContentItem::Text {
            text: "over http".into(),
            annotations: None
        }]
    );
    runtime.shutdown().await;
    assert_eq!(runtime.state("web"), Some(ServerState::Closed));
}

#[tokio::test]
async fn an_unreachable_http_server_fails_without_blocking_the_others() {
    // A port nothing listens on (bound, then released).
    let url = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}/mcp", listener.local_addr().expect("addr"))
    };
    let server = FakeHttpServer::start(Scenario::default())
        .await
        .expect("bind 127.0.0.1");
    let runtime = runtime();
    runtime
        .start_all(vec![
            http_spec("down", &url, relaxed()),
            http_spec("up", server.url(), relaxed()),
        ])
        .await;
    assert_eq!(runtime.state("up"), Some(ServerState::Ready));
    match runtime.state("down") {
        Some(ServerState::Failed(reason)) => {
            assert!(
                reason.starts_with(&format!(
                    "MCP server 'down' failed the initialize handshake: cannot connect to {url} ("
                )),
                "{reason}"
            );
            // The transport's Rust type (`Transport [coyote_mcp::connect::Observed<…>]`) is
            // not part of the sentence.
            assert!(
                !reason.contains("::") && !reason.contains("Transport ["),
                "{reason}"
            );
        }
        other => panic!("expected Failed, got {other:?}"),
    }
    runtime.shutdown().await;
}

#[tokio::test]
async fn an_http_message_over_the_limit_is_an_error() {
    let scenario = Scenario::builder()
        .tool("big", ToolBehavior::Oversized { mib: 2 })
        .build();
    let server = FakeHttpServer::start(scenario)
        .await
        .expect("bind 127.0.0.1");
    let options = RuntimeOptions {
        max_message_bytes: 1024 * 1024,
        ..RuntimeOptions::default()
    };
    let runtime = McpRuntime::new(options);
    runtime
        .start_all(vec![http_spec("web", server.url(), relaxed())])
        .await;
    let result = runtime
        .server("web")
        .expect("ready")
        .call_tool("big", Map::new())
        .await;
    // The oversized SSE event is cut off before it is parsed (`connect/post.rs`): the call
    // fails at once (never a hang) with the same error a stdio server's oversized line gets.
    match result {
        Err(
            ref error @ McpError::MessageTooLarge {
                size,
                size_is_lower_bound: true,
                limit,
                ..
            },
        ) => {
            assert_eq!((size, limit), (1024 * 1024 + 1, 1024 * 1024));
            let text = error.to_string();
            assert!(text.contains("(MAX_MESSAGE_BYTES)"), "{text}");
        }
        other => panic!("expected the message-too-large error, got {other:?}"),
    }
    assert_eq!(runtime.state("web"), Some(ServerState::Ready));
    runtime.shutdown().await;
}
