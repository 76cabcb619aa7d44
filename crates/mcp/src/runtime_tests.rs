use std::path::PathBuf;
use std::time::Duration;

use coyote_protocol::{HttpSpec, McpTransport};
use coyote_test_support::{Capabilities, Scenario, in_process};

use super::*;

fn timeouts() -> Timeouts {
    Timeouts {
        startup: Duration::from_secs(10),
        call: Duration::from_secs(10),
    }
}

fn http_spec(name: &str, transport: McpTransport) -> McpServerSpec {
    McpServerSpec {
        name: name.to_owned(),
        transport,
        timeouts: timeouts(),
        approve: Default::default(),
        expose: Default::default(),
        retrieve: Default::default(),
        auto_approve: Vec::new(),
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        source: PathBuf::from("mcp.json"),
    }
}

#[tokio::test]
async fn unknown_servers_name_the_known_ones() {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let ((r, w), _fake) = in_process(Scenario::default());
    runtime
        .attach_stream("a", timeouts(), r, w)
        .await
        .expect("ready");
    match runtime.server("b") {
        Err(McpError::UnknownServer { name, known }) => {
            assert_eq!((name.as_str(), known), ("b", vec!["a".to_owned()]));
        }
        other => panic!("expected UnknownServer, got {other:?}"),
    }
    runtime.shutdown().await;
}

#[tokio::test]
async fn features_come_from_the_live_handshake() {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let scenario = Scenario::builder()
        .capabilities(Capabilities::none().with_resources())
        .build();
    let ((r, w), _fake) = in_process(scenario);
    runtime
        .attach_stream("res", timeouts(), r, w)
        .await
        .expect("ready");
    assert_eq!(
        runtime.server_features(),
        vec![McpServerFeatures {
            name: "res".into(),
            tools: false,
            resources: true,
            prompts: false,
            completions: false,
            skills: false,
            peer_info_missing: false,
            tasks: false,
        }]
    );
    runtime.shutdown().await;
    assert_eq!(runtime.server_features(), Vec::new());
    assert_eq!(runtime.state("res"), Some(ServerState::Closed));
    assert!(matches!(
        runtime.server("res"),
        Err(McpError::ServerNotReady {
            state: ServerState::Closed,
            ..
        })
    ));
}

#[tokio::test]
async fn a_server_that_goes_away_becomes_failed_and_calls_say_why() {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let ((r, w), fake) = in_process(Scenario::default());
    let handle = runtime
        .attach_stream("gone", timeouts(), r, w)
        .await
        .expect("ready");
    fake.kill().await;
    let failed = ServerState::Failed("the connection to the server closed".to_owned());
    assert_eq!(handle.inner_state_wait().await, Some(failed.clone()));
    assert_eq!(runtime.state("gone"), Some(failed.clone()));
    match handle.list_tools().await {
        Err(McpError::ServerNotReady { server, state }) => {
            assert_eq!((server.as_str(), state), ("gone", failed));
        }
        other => panic!("expected ServerNotReady, got {other:?}"),
    }
    runtime.shutdown().await;
}

#[tokio::test]
async fn unusable_specs_fail_with_the_fix() {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let sse = http_spec(
        "legacy",
        McpTransport::Sse(HttpSpec {
            url: "http://127.0.0.1:1/sse".into(),
            headers: vec![("Mcp-Session-Id".into(), "x".into())],
            bearer_token_env: None,
            oauth: Default::default(),
            fallback_to_sse: false,
        }),
    );
    let token = http_spec(
        "token",
        McpTransport::Http(HttpSpec {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: vec![],
            bearer_token_env: Some("COYOTE_TEST_SURELY_UNSET_TOKEN".into()),
            oauth: Default::default(),
            fallback_to_sse: false,
        }),
    );
    let reserved = http_spec(
        "reserved",
        McpTransport::Http(HttpSpec {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: vec![("Accept".into(), "x".into())],
            bearer_token_env: None,
            oauth: Default::default(),
            fallback_to_sse: false,
        }),
    );
    runtime.start_all(vec![sse, token, reserved]).await;
    let states: Vec<(String, ServerState)> = runtime
        .statuses()
        .into_iter()
        .map(|s| (s.name, s.state))
        .collect();
    assert_eq!(
        states,
        vec![
            (
                "legacy".into(),
                ServerState::Failed(
                    "MCP server 'legacy' is misconfigured: header \"Mcp-Session-Id\" is managed \
                     by the MCP transport; remove it from \"headers\""
                        .into()
                )
            ),
            (
                "token".into(),
                ServerState::Failed(
                    "MCP server 'token' is misconfigured: bearer token env var \
                     COYOTE_TEST_SURELY_UNSET_TOKEN is not set; export it or remove \
                     \"bearerTokenEnv\""
                        .into()
                )
            ),
            (
                "reserved".into(),
                ServerState::Failed(
                    "MCP server 'reserved' is misconfigured: header \"Accept\" is managed by the \
                     MCP transport; remove it from \"headers\""
                        .into()
                )
            ),
        ]
    );
    runtime.shutdown().await;
}

impl ServerHandle {
    /// Test helper: the state once it is no longer Ready (bounded).
    async fn inner_state_wait(&self) -> Option<ServerState> {
        for _ in 0..200 {
            let state = self.state();
            if state != ServerState::Ready {
                return Some(state);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }
}

/// `notifications/resources/list_changed` refreshes the cached catalog — the runtime
/// lists the server again and stores what it got (here: once at the start, once after the
/// server's notice).
#[tokio::test]
async fn a_list_changed_notice_stores_the_catalog_again() {
    use coyote_test_support::{ListKind, ResourceBody, ServerNotice, ToolBehavior};

    let tmp = tempfile::tempdir().unwrap();
    let file = Scenario::builder()
        .capabilities(Capabilities::none().with_tools().with_resources())
        .safe_tool(
            "change",
            ToolBehavior::Notify {
                notifications: vec![ServerNotice::ResourcesListChanged],
            },
        )
        .resource("fake://doc", "doc", ResourceBody::Text { text: "x".into() })
        .write_to(tmp.path())
        .unwrap();
    let mut spec = file.stdio_spec("kb");
    spec.timeouts = timeouts();
    let cache = crate::catalog_cache::CatalogCache::new(tmp.path().join("catalogs"));
    let runtime = McpRuntime::new(RuntimeOptions {
        catalog_cache: Some(cache.clone()),
        ..RuntimeOptions::default()
    });
    runtime.start_all_lazily(vec![spec.clone()]).await;
    let stored = cache.load_fresh(&spec).expect("stored at the start");
    let listed = |n: usize| {
        move |log: &coyote_test_support::EventLog| log.list_requests(ListKind::Resources) >= n
    };
    file.wait_for(timeouts().call, listed(1)).await.unwrap();
    let handle = runtime.server("kb").unwrap();
    handle
        .call_tool("change", serde_json::Map::new())
        .await
        .unwrap();
    file.wait_for(timeouts().call, listed(2)).await.unwrap();
    // The second listing is stored (the write follows the listing: wait for it).
    for _ in 0..1000 {
        if cache
            .load_fresh(&spec)
            .is_some_and(|c| c.written_at_ms > stored.written_at_ms)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        cache
            .load_fresh(&spec)
            .is_some_and(|c| c.written_at_ms > stored.written_at_ms)
    );
    runtime.shutdown().await;
}
