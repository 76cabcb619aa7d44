use std::time::Duration;

use coyote_protocol::Timeouts;
use coyote_test_support::{Capabilities, ListKind, PaginationMode, Scenario, in_process};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::*;
use crate::runtime::{McpRuntime, RuntimeOptions};

fn timeouts() -> Timeouts {
    Timeouts {
        startup: Duration::from_secs(10),
        call: Duration::from_secs(10),
    }
}

async fn attach(scenario: Scenario) -> (McpRuntime, ServerHandle, coyote_test_support::FakeHandle) {
    let ((read, write), fake) = in_process(scenario);
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let handle = runtime
        .attach_stream("fake", timeouts(), read, write)
        .await
        .expect("ready");
    (runtime, handle, fake)
}

#[tokio::test]
async fn every_page_is_one_request_and_every_item_is_listed() {
    let scenario = Scenario::builder().page_size(2).generated_each(5).build();
    let (runtime, handle, fake) = attach(scenario).await;

    let catalog = handle.catalog().await;
    assert_eq!(catalog.warnings, Vec::<String>::new());
    let keys: Vec<String> = catalog.items.iter().map(CatalogItem::key).collect();
    let mut expected = Vec::new();
    expected.extend((0..5).map(|i| format!("tool:gen_tool_{i:04}")));
    expected.extend((0..5).map(|i| format!("resource:fake://gen/{i:04}")));
    expected.extend((0..5).map(|i| format!("resource_template:fake://gen/{i}/{{id}}")));
    expected.extend((0..5).map(|i| format!("prompt:gen_prompt_{i:04}")));
    assert_eq!(keys, expected);

    let events = fake.events();
    for kind in [
        ListKind::Tools,
        ListKind::Resources,
        ListKind::ResourceTemplates,
        ListKind::Prompts,
    ] {
        assert_eq!(
            events.list_requests(kind),
            3,
            "ceil(5/2) requests for {kind:?}"
        );
    }
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_repeated_cursor_is_an_error_not_a_loop() {
    let scenario = Scenario::builder()
        .page_size(1)
        .generated_each(3)
        .pagination(PaginationMode::RepeatedCursor)
        .build();
    let (runtime, handle, fake) = attach(scenario).await;
    match handle.list_tools().await {
        Err(McpError::RepeatedCursor {
            server,
            kind,
            cursor,
        }) => {
            assert_eq!(
                (server.as_str(), kind, cursor.as_str()),
                ("fake", CatalogKind::Tool, "repeat")
            );
        }
        other => panic!("expected RepeatedCursor, got {other:?}"),
    }
    assert_eq!(fake.events().list_requests(ListKind::Tools), 2);
    let catalog = handle.catalog().await;
    assert_eq!(catalog.items, Vec::new());
    assert_eq!(catalog.warnings.len(), 4, "{:?}", catalog.warnings);
    runtime.shutdown().await;
}

#[tokio::test]
async fn only_advertised_kinds_are_listed() {
    let scenario = Scenario::builder()
        .capabilities(Capabilities::none().with_prompts())
        .generated_each(2)
        .build();
    let (runtime, handle, fake) = attach(scenario).await;
    let catalog = handle.catalog().await;
    let kinds: Vec<CatalogKind> = catalog.items.iter().map(|i| i.kind).collect();
    assert_eq!(kinds, vec![CatalogKind::Prompt, CatalogKind::Prompt]);
    let events = fake.events();
    assert_eq!(events.list_requests(ListKind::Tools), 0);
    assert_eq!(events.list_requests(ListKind::Resources), 0);
    assert_eq!(events.list_requests(ListKind::ResourceTemplates), 0);
    runtime.shutdown().await;
}

/// A tiny server answering canned results per method, for shapes the fake cannot produce.
fn scripted(answer: fn(&str) -> Value) -> (tokio::io::DuplexStream, tokio::io::DuplexStream) {
    let (client_read, mut server_write) = tokio::io::duplex(1 << 16);
    let (server_read, client_write) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut lines = BufReader::new(server_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let request: Value = serde_json::from_str(&line).expect("json");
            let (Some(id), Some(method)) = (request.get("id"), request["method"].as_str()) else {
                continue;
            };
            let reply = if method == "initialize" {
                json!({"jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
                    "serverInfo": {"name": "scripted", "version": "1"}
                }})
            } else {
                let mut reply = answer(method);
                reply["jsonrpc"] = json!("2.0");
                reply["id"] = id.clone();
                reply
            };
            let mut bytes = serde_json::to_vec(&reply).expect("encode");
            bytes.push(b'\n');
            if server_write.write_all(&bytes).await.is_err() {
                break;
            }
        }
    });
    (client_read, client_write)
}

#[tokio::test]
async fn a_failing_kind_is_a_warning_and_bad_items_are_skipped() {
    let (read, write) = scripted(|method| match method {
        "tools/list" => json!({"result": {"tools": [
            {"name": "good", "inputSchema": {"type": "object"}},
            {"name": "bad_no_schema"},
            {"name": "good2", "inputSchema": {"type": "object"}}
        ]}}),
        "prompts/list" => json!({"error": {"code": -32603, "message": "database down"}}),
        "resources/list" => json!({"result": {"resources": []}}),
        _ => json!({"error": {"code": -32601, "message": "Method not found"}}),
    });
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let handle = runtime
        .attach_stream("scripted", timeouts(), read, write)
        .await
        .expect("ready");
    assert_eq!(
        handle.info().protocol_version.as_deref(),
        Some("2025-06-18")
    );

    let catalog = handle.catalog().await;
    let names: Vec<&str> = catalog.items.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, vec!["good", "good2"]);
    assert_eq!(catalog.warnings.len(), 2, "{:?}", catalog.warnings);
    assert!(
        catalog.warnings[0].starts_with("skipped tool #1 (bad_no_schema) of server 'scripted'")
    );
    assert_eq!(
        catalog.warnings[1],
        "could not list prompts: MCP server 'scripted' answered 'prompts/list' with error -32603: \
         database down"
    );
    runtime.shutdown().await;
}
