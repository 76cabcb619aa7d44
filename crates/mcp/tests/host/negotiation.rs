//! Protocol negotiation against the fake binary over stdio: 2026-07-28 is offered first and a
//! server that does not speak it gets `initialize` on the same process; a pin is kept (and a
//! pinned 2026-07-28 that the server does not speak says so); what a server answered is
//! remembered in the catalog cache and the next start goes straight to it; a server that
//! takes longer than rmcp's own 10 s discovery limit still connects at 2026-07-28.

use std::time::Duration;

use coyote_mcp::catalog_cache::CatalogCache;
use coyote_mcp::{Lifecycle, McpRuntime, ProtocolRevisions, RuntimeOptions, ServerState};
use coyote_protocol::ProtocolPin;
use coyote_test_support::{Scenario, Startup, ToolBehavior};
use serde_json::Map;

use super::support::{relaxed, stdio, timeouts};

fn newest() -> RuntimeOptions {
    RuntimeOptions {
        protocol: ProtocolRevisions::Newest,
        ..RuntimeOptions::default()
    }
}

fn echo() -> coyote_test_support::ScenarioBuilder {
    Scenario::builder().tool("echo", ToolBehavior::Echo)
}

/// (negotiated protocol, the fake saw `server/discover` answered, the fake saw `initialize`)
async fn start(
    options: RuntimeOptions,
    spec: coyote_protocol::McpServerSpec,
    file: &coyote_test_support::ScenarioFile,
) -> (Option<String>, bool, bool) {
    let runtime = McpRuntime::new(options);
    runtime.start_all(vec![spec.clone()]).await;
    assert_eq!(
        runtime.state(&spec.name),
        Some(ServerState::Ready),
        "{:?}",
        runtime.statuses()
    );
    let handle = runtime.server(&spec.name).unwrap();
    let called = handle.call_tool("echo", Map::new()).await;
    assert!(called.is_ok(), "{called:?}");
    let protocol = handle.info().protocol_version;
    runtime.shutdown().await;
    let events = file.events();
    (protocol, events.discover_seen(), events.initialize_seen())
}

#[tokio::test]
async fn a_dual_era_server_speaks_2026_07_28_and_an_older_one_falls_back_on_the_same_process() {
    let dir = tempfile::tempdir().unwrap();
    let (file, spec) = stdio(dir.path(), "dual", echo().speaks_2026(), relaxed());
    assert_eq!(
        start(newest(), spec, &file).await,
        (Some("2026-07-28".to_owned()), true, false)
    );
    let (file, spec) = stdio(dir.path(), "older", echo(), relaxed());
    assert_eq!(
        start(newest(), spec, &file).await,
        (Some("2025-11-25".to_owned()), false, true)
    );
    // One process answered both steps: the fallback did not start another.
    let started = file
        .events()
        .events
        .iter()
        .filter(|e| matches!(e, coyote_test_support::Event::Started { .. }))
        .count();
    assert_eq!(started, 1);
}

#[tokio::test]
async fn pins_are_kept_and_a_pinned_2026_07_28_that_the_server_does_not_speak_says_so() {
    let dir = tempfile::tempdir().unwrap();
    // The entry's pin wins over the runtime's offer.
    let (file, mut spec) = stdio(dir.path(), "dual", echo().speaks_2026(), relaxed());
    spec.start.protocol = Some(ProtocolPin::V2025_11_25);
    assert_eq!(
        start(newest(), spec, &file).await,
        (Some("2025-11-25".to_owned()), false, true)
    );

    let (_file, mut spec) = stdio(dir.path(), "older", echo(), relaxed());
    spec.start.protocol = Some(ProtocolPin::V2026_07_28);
    let runtime = McpRuntime::new(RuntimeOptions::default());
    runtime.start_all(vec![spec]).await;
    let Some(ServerState::Failed(reason)) = runtime.state("older") else {
        panic!("{:?}", runtime.statuses());
    };
    assert!(
        reason.contains("does not speak protocol 2026-07-28, to which it is pinned")
            && reason.contains("it supports 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25")
            && reason.contains("remove the pin"),
        "{reason}"
    );
    runtime.shutdown().await;
}

#[tokio::test]
async fn what_a_server_answered_is_remembered_and_the_next_start_goes_straight_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CatalogCache::new(dir.path().join("cache"));
    let cached = || RuntimeOptions {
        catalog_cache: Some(cache.clone()),
        ..newest()
    };
    let (file, spec) = stdio(dir.path(), "older", echo(), relaxed());
    assert_eq!(
        start(cached(), spec.clone(), &file).await,
        (Some("2025-11-25".to_owned()), false, true)
    );
    assert_eq!(
        cache.remembered_lifecycle(&spec),
        Some(Lifecycle::Initialize)
    );

    // The same entry, now a dual-era server, remembered as answering `initialize`, gets
    // `initialize` at once: no `server/discover` reaches it.
    let (dual_file, _) = stdio(dir.path(), "older", echo().speaks_2026(), relaxed());
    std::fs::copy(&dual_file.path, &file.path).unwrap();
    assert_eq!(
        start(cached(), spec.clone(), &dual_file).await,
        (Some("2025-11-25".to_owned()), false, true)
    );

    // Forgotten, it is asked with `server/discover` again, and that is remembered.
    std::fs::remove_dir_all(cache.dir()).unwrap();
    let (file, dual) = stdio(dir.path(), "dual", echo().speaks_2026(), relaxed());
    assert_eq!(
        start(cached(), dual.clone(), &file).await,
        (Some("2026-07-28".to_owned()), true, false)
    );
    // Remembered although the server asks that its lists not be kept (`ttlMs: 0`).
    assert!(cache.load_fresh(&dual).is_none());
    assert_eq!(cache.remembered_lifecycle(&dual), Some(Lifecycle::Discover));
}

#[tokio::test]
async fn a_server_slower_than_ten_seconds_still_connects_at_2026_07_28() {
    let dir = tempfile::tempdir().unwrap();
    let builder = echo().speaks_2026().startup(Startup {
        delay_ms: 11_000,
        ..Startup::default()
    });
    let (file, spec) = stdio(
        dir.path(),
        "slow",
        builder,
        timeouts(Duration::from_secs(60), Duration::from_secs(20)),
    );
    assert_eq!(
        start(newest(), spec, &file).await,
        (Some("2026-07-28".to_owned()), true, false)
    );
}

#[tokio::test]
async fn watching_at_2026_07_28_a_server_without_subscriptions_listen_says_how_to_watch_it() {
    let dir = tempfile::tempdir().unwrap();
    let updates = coyote_test_support::ResourceUpdatesSpec {
        count: 1,
        every_ms: 10,
        exit_after: false,
    };
    let builder = echo().resource_updates(updates);
    let (_file, modern) = stdio(dir.path(), "dual", builder.speaks_2026(), relaxed());
    let (_file, older) = stdio(
        dir.path(),
        "older",
        echo().resource_updates(updates),
        relaxed(),
    );
    let runtime = McpRuntime::new(newest());
    runtime.start_all(vec![modern, older]).await;
    let error = runtime
        .server("dual")
        .unwrap()
        .subscribe_resource("fake://r")
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "MCP server 'dual': watching resources at protocol 2026-07-28 is not supported: the server \
         advertises resource subscriptions but does not serve `subscriptions/listen` (method not \
         found); pin it to 2025-11-25 (\"protocol\": \"2025-11-25\" in its mcp.json entry, or \
         COYOTE_MCP_PROTOCOL=2025-11-25) to watch it"
    );
    // The same server at 2025-11-25 subscribes.
    let subscribed = runtime
        .server("older")
        .unwrap()
        .subscribe_resource("fake://r")
        .await;
    assert!(subscribed.is_ok(), "{subscribed:?}");
    runtime.shutdown().await;
}
