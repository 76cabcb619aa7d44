//! The legacy HTTP+SSE transport against real servers nobody here wrote: server-everything's
//! `sse` mode on a free 127.0.0.1 port and the TypeScript SDK's `simpleSseServer.js` (port 3000;
//! skipped with a note when the port is busy). An entry without `type` falls back to SSE for
//! them and stays on streamable HTTP for server-everything's `streamableHttp` mode.

use coyote_mcp::{ContentItem, McpRuntime, ResourceContent, ServerState};
use coyote_protocol::{HttpSpec, McpServerSpec, McpTransport};
use coyote_test_support::peers::{ServerEverythingHttp, require};
use coyote_test_support::sse_peers::SdkSimpleSse;
use serde_json::{Map, json};

use super::support::{relaxed, runtime};

/// `declared`: `Some(true)` = `"type": "sse"`, `Some(false)` = `"type": "http"`, `None` = no
/// type (streamable HTTP with the fallback).
fn spec(name: &str, url: &str, declared: Option<bool>) -> McpServerSpec {
    let http = HttpSpec {
        url: url.to_owned(),
        headers: vec![("X-Coyote-Test".into(), "1".into())],
        bearer_token_env: None,
        oauth: Default::default(),
        fallback_to_sse: declared.is_none(),
    };
    McpServerSpec {
        name: name.to_owned(),
        transport: match declared {
            Some(true) => McpTransport::Sse(http),
            _ => McpTransport::Http(http),
        },
        timeouts: relaxed(),
        approve: Default::default(),
        expose: Default::default(),
        auto_approve: vec![],
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        retrieve: Default::default(),
        source: "mcp.json".into(),
    }
}

async fn start(spec: McpServerSpec) -> McpRuntime {
    let name = spec.name.clone();
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    assert_eq!(runtime.state(&name), Some(ServerState::Ready), "{name}");
    runtime
}

/// List, call and read through one ready server.
async fn list_call_read(runtime: &McpRuntime, name: &str) {
    let handle = runtime.server(name).expect("ready");
    let tools = handle.list_tools().await.expect("tools");
    assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");
    let mut args = Map::new();
    args.insert("message".into(), json!("over legacy sse"));
    let outcome = handle.call_tool("echo", args).await.expect("call");
    assert_eq!(
        outcome.content,
        vec![ContentItem::Text {
            text: "Echo: over legacy sse".into(),
            annotations: None
        }]
    );
    let resources = handle.list_resources().await.expect("resources");
    let first = resources
        .first()
        .expect("server-everything lists resources");
    let contents = handle.read_resource(&first.uri).await.expect("read");
    let uri = match &contents[0] {
        ResourceContent::Text { uri, .. } | ResourceContent::Blob { uri, .. } => uri,
        other => panic!("{other:?}"),
    };
    assert_eq!(uri, &first.uri);
}

async fn everything(mode_sse: bool) -> Option<ServerEverythingHttp> {
    let started = tokio::task::spawn_blocking(move || {
        if mode_sse {
            ServerEverythingHttp::start_sse()
        } else {
            ServerEverythingHttp::start()
        }
    })
    .await
    .expect("join");
    require(started)
}

#[tokio::test]
async fn server_everything_sse_mode_lists_calls_and_reads() {
    let Some(server) = everything(true).await else {
        return;
    };
    let runtime = start(spec("legacy", &server.url(), Some(true))).await;
    let info = runtime.server("legacy").expect("ready").info();
    assert_eq!(info.transport, "sse");
    assert_eq!(info.protocol_version.as_deref(), Some("2025-11-25"));
    list_call_read(&runtime, "legacy").await;
    runtime.shutdown().await;
    assert_eq!(runtime.state("legacy"), Some(ServerState::Closed));
}

#[tokio::test]
async fn without_type_server_everything_sse_mode_falls_back_to_sse() {
    let Some(server) = everything(true).await else {
        return;
    };
    let runtime = start(spec("auto", &server.url(), None)).await;
    assert_eq!(
        runtime.server("auto").expect("ready").info().transport,
        "sse"
    );
    // `coyote mcp servers` shows the transport in use.
    assert_eq!(runtime.statuses()[0].transport, "sse");
    list_call_read(&runtime, "auto").await;
    runtime.shutdown().await;
}

#[tokio::test]
async fn without_type_streamable_http_stays_streamable_http() {
    let Some(server) = everything(false).await else {
        return;
    };
    let runtime = start(spec("auto", &server.url(), None)).await;
    assert_eq!(
        runtime.server("auto").expect("ready").info().transport,
        "http"
    );
    list_call_read(&runtime, "auto").await;
    runtime.shutdown().await;
}

#[tokio::test]
async fn declared_http_does_not_fall_back() {
    let Some(server) = everything(true).await else {
        return;
    };
    let runtime = runtime();
    runtime
        .start_all(vec![spec("strict", &server.url(), Some(false))])
        .await;
    match runtime.state("strict") {
        Some(ServerState::Failed(reason)) => assert!(reason.contains("404"), "{reason}"),
        other => panic!("expected Failed, got {other:?}"),
    }
    runtime.shutdown().await;
}

#[tokio::test]
#[expect(
    clippy::print_stderr,
    reason = "the skip note is for the person reading the test output"
)]
async fn sdk_simple_sse_server_lists_and_calls_with_and_without_type() {
    let started = tokio::task::spawn_blocking(SdkSimpleSse::start)
        .await
        .expect("join");
    let Some(started) = require(started) else {
        return;
    };
    let Some(server) = started else {
        eprintln!(
            "SKIPPED: port 3000 is busy; simpleSseServer.js always listens there (free the \
             port to run this test)"
        );
        return;
    };
    for (name, declared) in [("typed", Some(true)), ("untyped", None)] {
        let runtime = start(spec(name, &server.url(), declared)).await;
        let handle = runtime.server(name).expect("ready");
        assert_eq!(handle.info().transport, "sse", "{}", server.output_tail());
        let tools = handle.list_tools().await.expect("tools");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["start-notification-stream"]);
        let mut args = Map::new();
        args.insert("interval".into(), json!(1));
        args.insert("count".into(), json!(2));
        let outcome = handle
            .call_tool("start-notification-stream", args)
            .await
            .expect("call");
        assert_eq!(
            outcome.content,
            vec![ContentItem::Text {
                text: "Completed sending 2 notifications every 1ms".into(),
                annotations: None
            }]
        );
        runtime.shutdown().await;
    }
}
