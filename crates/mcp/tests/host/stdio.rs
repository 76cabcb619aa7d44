//! stdio servers that behave: handshake, listing, calls, progress, elicitation, big messages.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use coyote_mcp::{
    ContentItem, ElicitationHook, ElicitationRequest, ElicitationResponse, McpError, McpRuntime,
    ResourceContent, RuntimeOptions, ServerState, TimeoutPhase,
};
use coyote_test_support::{ListKind, ResourceBody, Scenario, ToolBehavior};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::support::{PROMPT, process_gone, relaxed, runtime, stdio, timeouts};

fn text_of(items: &[ContentItem]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            ContentItem::Text { text, .. } => text.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn a_stdio_server_becomes_ready_and_answers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder()
        .instructions("be nice")
        .tool("echo", ToolBehavior::Echo);
    let (_file, spec) = stdio(dir.path(), "fake", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    assert_eq!(runtime.state("fake"), Some(ServerState::Ready));

    let handle = runtime.server("fake").expect("ready");
    let info = handle.info();
    assert_eq!(info.protocol_version.as_deref(), Some("2025-11-25"));
    assert_eq!(info.server_name.as_deref(), Some("fake"));
    assert_eq!(info.instructions.as_deref(), Some("be nice"));
    assert_eq!(info.transport, "stdio");
    assert!(info.capabilities.tools && info.capabilities.resources && info.capabilities.prompts);

    let mut args = Map::new();
    args.insert("text".into(), json!("hello"));
    let outcome = handle.call_tool("echo", args).await.expect("call");
    assert_eq!(text_of(&outcome.content), vec!["hello".to_owned()]);
    assert!(!outcome.is_error);

    match handle.call_tool("nope", Map::new()).await {
        Err(McpError::Rpc {
            server,
            method,
            code,
            message,
            ..
        }) => {
            assert_eq!(
                (server.as_str(), method.as_str(), code),
                ("fake", "tools/call", -32602)
            );
            assert_eq!(message, "tool not found: nope");
        }
        other => panic!("expected an Rpc error, got {other:?}"),
    }
    let pid = info.pid.expect("pid");
    runtime.shutdown().await;
    assert_eq!(runtime.state("fake"), Some(ServerState::Closed));
    assert!(
        process_gone(pid, PROMPT).await,
        "server process {pid} still running"
    );
}

#[tokio::test]
async fn page_size_two_costs_ceil_n_over_two_requests_per_kind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder().page_size(2).generated_each(7);
    let (file, spec) = stdio(dir.path(), "paged", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    let handle = runtime.server("paged").expect("ready");

    let catalog = handle.catalog().await;
    assert_eq!(catalog.warnings, Vec::<String>::new());
    assert_eq!(catalog.items.len(), 28);
    let tools = handle.list_tools().await.expect("tools");
    assert_eq!(tools.len(), 7);
    runtime.shutdown().await;

    let events = file.events();
    assert_eq!(
        events.list_requests(ListKind::Tools),
        8,
        "4 for the catalog + 4 for list_tools"
    );
    for kind in [
        ListKind::Resources,
        ListKind::ResourceTemplates,
        ListKind::Prompts,
    ] {
        assert_eq!(events.list_requests(kind), 4, "{kind:?}");
    }
}

#[tokio::test]
async fn progress_keeps_a_slow_call_alive_past_the_inactivity_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder()
        .tool(
            "slow_progress",
            ToolBehavior::Slow {
                duration_ms: 2400,
                progress_every_ms: Some(100),
            },
        )
        .tool(
            "slow_silent",
            ToolBehavior::Slow {
                duration_ms: 2400,
                progress_every_ms: None,
            },
        );
    // The call deadline is far shorter than the work, but longer than the progress interval.
    let (file, spec) = stdio(
        dir.path(),
        "slow",
        builder,
        timeouts(PROMPT, Duration::from_millis(800)),
    );
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    let handle = runtime.server("slow").expect("ready");

    let outcome = handle
        .call_tool("slow_progress", Map::new())
        .await
        .expect("progress resets the timeout");
    assert_eq!(
        text_of(&outcome.content),
        vec!["done after 2400 ms".to_owned()]
    );

    match handle.call_tool("slow_silent", Map::new()).await {
        Err(McpError::Timeout {
            server,
            phase,
            after,
        }) => {
            assert_eq!(server, "slow");
            assert_eq!(
                phase,
                TimeoutPhase::Call {
                    method: "tools/call".into()
                }
            );
            assert_eq!(after, Duration::from_millis(800));
        }
        other => panic!("expected a call timeout, got {other:?}"),
    }
    // The timed-out call was cancelled on the wire.
    file.wait_for(PROMPT, |e| {
        e.tools_cancelled() == vec!["slow_silent".to_owned()]
    })
    .await
    .expect("cancelled");
    runtime.shutdown().await;
}

struct FillDefaults;

impl ElicitationHook for FillDefaults {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        let mut content = Map::new();
        if let Some(Value::Object(props)) = request.requested_schema.get("properties") {
            for (key, prop) in props {
                if let Some(default) = prop.get("default") {
                    content.insert(key.clone(), default.clone());
                }
            }
        }
        content.insert("server".into(), json!(request.server));
        Box::pin(async move { ElicitationResponse::Accept(content) })
    }
}

#[tokio::test]
async fn elicitation_goes_to_the_hook_and_is_declined_by_default() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder().tool("ask", ToolBehavior::elicit_form());
    let (_file, declined_spec) = stdio(dir.path(), "declined", builder.clone(), relaxed());
    let (file, accepted_spec) = stdio(dir.path(), "accepted", builder, relaxed());

    let default_runtime = runtime();
    default_runtime.start_all(vec![declined_spec]).await;
    let outcome = default_runtime
        .server("declined")
        .expect("ready")
        .call_tool("ask", Map::new())
        .await;
    assert_eq!(
        text_of(&outcome.expect("call").content),
        vec![r#"{"action":"decline","content":null}"#.to_owned()]
    );
    default_runtime.shutdown().await;

    let options = RuntimeOptions {
        elicitation: Arc::new(FillDefaults),
        ..RuntimeOptions::default()
    };
    let hooked = McpRuntime::new(options);
    hooked.start_all(vec![accepted_spec]).await;
    hooked
        .server("accepted")
        .expect("ready")
        .call_tool("ask", Map::new())
        .await
        .expect("call");
    let elicitations = file.events().elicitations();
    assert_eq!(elicitations.len(), 1);
    let (action, content) = &elicitations[0];
    assert_eq!(action, "accept");
    assert_eq!(
        content.as_ref().and_then(|c| c.get("server")),
        Some(&json!("accepted"))
    );
    hooked.shutdown().await;
}

#[tokio::test]
async fn a_blob_beyond_rmcps_16_mib_line_limit_arrives_whole() {
    const BYTES: u64 = 20 * 1024 * 1024;
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder().resource(
        "fake://big",
        "big",
        ResourceBody::GeneratedBlob { bytes: BYTES },
    );
    let (_file, spec) = stdio(dir.path(), "big", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    let contents = runtime
        .server("big")
        .expect("ready")
        .read_resource("fake://big")
        .await
        .expect("read");
    // The transport decodes a big blob while it arrives; `blob_base64` then carries a token
    // that the content policy resolves. Either way, decode_blob yields the server's bytes.
    let store = coyote_mcp::SpillStore::new(dir.path().join("mcp-resources"));
    match contents.as_slice() {
        [
            ResourceContent::Blob {
                uri, blob_base64, ..
            },
        ] => {
            assert_eq!(uri, "fake://big");
            assert!(
                blob_base64.len() < 200,
                "the base64 was never buffered whole"
            );
            let decoded = coyote_mcp::render::decode_blob(blob_base64, None, "big", &store);
            let Ok(coyote_mcp::render::DecodedBlob::Spilled(file)) = decoded else {
                panic!("a binary blob spills: {decoded:?}")
            };
            let expected = coyote_test_support::generated_blob(BYTES);
            assert_eq!(std::fs::read(&file.path).expect("spill file"), expected);
        }
        other => panic!("expected one blob, got {} entries", other.len()),
    }
    runtime.shutdown().await;
}

#[tokio::test]
async fn off_spec_content_and_stdout_garbage_do_not_break_a_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder()
        .tool("mixed", ToolBehavior::off_spec_mixed())
        .tool("garbage", ToolBehavior::GarbageStdout { line: "Debugger listening on ws://…".into() })
        .resource(
            "fake://odd",
            "odd",
            ResourceBody::RawContents {
                contents: json!([{"uri": "fake://odd", "mimeType": "text/plain"}, {"uri": "fake://odd", "text": "ok"}]),
            },
        );
    let (_file, spec) = stdio(dir.path(), "odd", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    let handle = runtime.server("odd").expect("ready");

    let outcome = handle.call_tool("mixed", Map::new()).await.expect("call");
    assert_eq!(
        outcome.content,
        vec![
            ContentItem::Text {
                text: "before off-spec".into(),
                annotations: None
            },
            ContentItem::Invalid {
                index: 1,
                reason: "unknown content type \"hologram\"".into()
            },
            ContentItem::Text {
                text: "after off-spec".into(),
                annotations: None
            },
        ]
    );
    let garbage = handle.call_tool("garbage", Map::new()).await.expect("call");
    assert_eq!(text_of(&garbage.content), vec!["ok".to_owned()]);
    let contents = handle.read_resource("fake://odd").await.expect("read");
    assert_eq!(
        contents,
        vec![
            ResourceContent::Invalid {
                uri: Some("fake://odd".into()),
                reason: "resource contents has neither \"text\" nor \"blob\"".into(),
            },
            ResourceContent::Text {
                uri: "fake://odd".into(),
                mime_type: None,
                text: "ok".into()
            },
        ]
    );
    let prompt = handle.get_prompt("missing", BTreeMap::new()).await;
    assert!(matches!(prompt, Err(McpError::Rpc { .. })), "{prompt:?}");
    runtime.shutdown().await;
}
