//! Progress reaches the observer of the call that asked for it, and only that one; a flood of
//! notifications is handed over one by one with nothing queued.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use coyote_protocol::Timeouts;
use coyote_test_support::{Capabilities, Scenario, ToolBehavior, in_process};
use serde_json::Map;

use super::*;
use crate::runtime::{McpRuntime, RuntimeOptions};

async fn runtime_with(
    tool: &str,
    behavior: ToolBehavior,
) -> (McpRuntime, coyote_test_support::FakeHandle) {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let scenario = Scenario::builder()
        .capabilities(Capabilities::all())
        .tool(tool, behavior)
        .tool("echo", ToolBehavior::Echo)
        .build();
    let ((r, w), fake) = in_process(scenario);
    let timeouts = Timeouts {
        startup: Duration::from_secs(20),
        call: Duration::from_secs(20),
    };
    runtime.attach_stream("srv", timeouts, r, w).await.unwrap();
    (runtime, fake)
}

#[tokio::test]
async fn the_observer_of_a_call_gets_its_progress_and_others_get_none() {
    let (runtime, _fake) = runtime_with(
        "slow",
        ToolBehavior::Slow {
            duration_ms: 60,
            progress_every_ms: Some(20),
        },
    )
    .await;
    let handle = runtime.server("srv").unwrap();
    let seen: Arc<Mutex<Vec<ProgressUpdate>>> = Arc::default();
    let log = seen.clone();
    let observer: ProgressObserver = Arc::new(move |u: &ProgressUpdate| {
        log.lock().unwrap().push(u.clone());
    });
    let out = observe(observer, handle.call_tool("slow", Map::new()))
        .await
        .unwrap();
    assert!(!out.is_error);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(seen[0].server, "srv");
    assert_eq!(seen[2].progress, 60.0);
    assert_eq!(seen[2].total, Some(60.0));
    assert_eq!(seen[2].fraction(), Some(1.0));
    // Outside `observe` nothing is observed (and nothing fails).
    assert!(current().is_none());
    handle.call_tool("slow", Map::new()).await.unwrap();
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_flood_of_progress_is_handed_over_without_queueing() {
    let (runtime, _fake) =
        runtime_with("flood", ToolBehavior::ProgressFlood { count: 20_000 }).await;
    let handle = runtime.server("srv").unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let last = Arc::new(Mutex::new(None::<ProgressUpdate>));
    let (c, l) = (count.clone(), last.clone());
    let observer: ProgressObserver = Arc::new(move |u: &ProgressUpdate| {
        c.fetch_add(1, Ordering::Relaxed);
        *l.lock().unwrap() = Some(u.clone());
    });
    let out = observe(observer, handle.call_tool("flood", Map::new()))
        .await
        .unwrap();
    assert!(!out.is_error);
    // Every notification that arrived while the call was in flight reached the observer; the
    // ones after the answer are dropped (the request is no longer watched).
    let n = count.load(Ordering::Relaxed);
    assert!(n > 0 && n <= 20_000, "{n}");
    let last = last.lock().unwrap().clone().unwrap();
    assert_eq!(last.total, Some(20_000.0));
    assert_eq!(
        last.message.as_deref(),
        Some(format!("step {}", last.progress as u64).as_str())
    );
    // The connection still answers.
    handle.call_tool("echo", Map::new()).await.unwrap();
    runtime.shutdown().await;
}
