//! Numbers from outside that become a duration, a size or a count are checked before any
//! side effect: out-of-range values get a clear error with
//! nothing sent, or are handled without overflow — never a panic after a request went out.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Harness, Setup, quick_timing};

/// A call that must answer (a panic in the handler would leave it unanswered).
async fn answered(h: &Harness, tool: &str, args: Value) -> String {
    tokio::time::timeout(Duration::from_secs(20), h.call(tool, args))
        .await
        .unwrap_or_else(|_| panic!("{tool} never answered (did the handler panic?)"))
}

#[tokio::test]
async fn deploy_wait_with_a_huge_timeout_is_refused_before_the_post() {
    let h = Harness::start(Setup::default()).await.unwrap();
    for timeout in [json!(1e300), json!(86_401)] {
        let text = answered(
            &h,
            "deploy",
            json!({"tag_or_uuid": "app-api", "wait": true, "timeout_seconds": timeout}),
        )
        .await;
        assert_eq!(
            text,
            "Error: timeout_seconds must be at most 86400 (one day); nothing was deployed."
        );
    }
    assert!(h.fixture.mutations().is_empty(), "no deploy was triggered");
}

#[tokio::test]
async fn deploy_wait_with_a_negative_timeout_reports_it_as_given() {
    let setup = Setup {
        timing: quick_timing(),
        ..Setup::default()
    };
    let fixture = coolify_fixture::Fixture::builder()
        .new_deployment_statuses(["in_progress"])
        .start()
        .await
        .unwrap();
    let h = Harness::with_fixture(fixture, setup).await.unwrap();
    let v: Value = serde_json::from_str(
        &answered(
            &h,
            "deploy",
            json!({"tag_or_uuid": "app-api", "wait": true, "timeout_seconds": -5}),
        )
        .await,
    )
    .unwrap();
    assert_eq!(v["data"]["timed_out"], true);
    assert!(
        v["data"]["next_action"]
            .as_str()
            .unwrap()
            .starts_with("Still \"in_progress\" after -5s"),
        "{v}"
    );
}

#[tokio::test]
async fn run_once_with_a_huge_wait_is_refused_before_the_task_is_created() {
    let h = Harness::start(Setup::default()).await.unwrap();
    let text = answered(
        &h,
        "scheduled_tasks",
        json!({"resource": "application", "action": "run_once", "uuid": "app-api", "command": "true", "container": "app", "wait_seconds": 1e300}),
    )
    .await;
    assert_eq!(
        text,
        "Error: wait_seconds must be at most 86400 (one day); nothing was created."
    );
    assert!(h.log().is_empty());
}

#[tokio::test]
async fn huge_pages_and_line_counts_never_overflow() {
    let h = Harness::start(Setup::default()).await.unwrap();
    let v: Value = serde_json::from_str(
        &answered(
            &h,
            "list_applications",
            json!({"page": 1e300, "per_page": 2}),
        )
        .await,
    )
    .unwrap();
    // The reference computes pages as JS numbers: prev is page - 1.
    assert_eq!(v["_pagination"]["prev"]["args"]["per_page"], 2);
    let v: Value = serde_json::from_str(
        &answered(
            &h,
            "deployment",
            json!({"action": "get", "uuid": "dep-9002", "lines": 9.0e18, "page": 9.0e18}),
        )
        .await,
    )
    .unwrap();
    assert_eq!(v["data"]["deployment_uuid"], "dep-9002");
    let text = answered(
        &h,
        "deployment",
        json!({"action": "list_for_app", "uuid": "app-api", "page": 9.0e18, "per_page": 9.0e18}),
    )
    .await;
    assert!(text.contains("\"deployments\""), "{text}");
    let text = answered(
        &h,
        "deployment",
        json!({"action": "get", "uuid": "dep-9002", "lines": 5, "max_chars": -1e300}),
    )
    .await;
    assert!(text.contains("logs_meta"), "{text}");
}
