//! Real-clock tests (tokio's paused clock needs `test-util`, which the shared feature set
//! lacks). Each asserts which path fired: the inner expiry or the outer, much longer bound.

use std::time::Duration;

use rmcp::model::{NumberOrString, ProgressToken};

use super::CallActivity;

/// The request's inactivity timeout.
const TIMEOUT: Duration = Duration::from_millis(20);
/// Outer bound: an expiry must have happened long before it.
const LONG: Duration = Duration::from_secs(20);
/// Outer bound while paused: many timeouts long, so a running timer would have fired.
const PAUSED_FOR: Duration = Duration::from_millis(300);

fn token(n: i64) -> ProgressToken {
    ProgressToken(NumberOrString::Number(n))
}

#[tokio::test]
async fn expires_without_activity() {
    let activity = CallActivity::default();
    let watch = activity.watch(token(1));
    let outcome = tokio::time::timeout(LONG, activity.expired(TIMEOUT, &watch)).await;
    assert!(outcome.is_ok(), "the inactivity timeout must fire");
}

#[tokio::test]
async fn never_expires_while_a_question_is_open_and_restarts_after() {
    let activity = CallActivity::default();
    let watch = activity.watch(token(1));
    let question = activity.question_opened();
    assert_eq!(activity.open_questions(), 1);
    let outcome = tokio::time::timeout(PAUSED_FOR, activity.expired(TIMEOUT, &watch)).await;
    assert!(
        outcome.is_err(),
        "the timer must stay paused while the question is open"
    );
    drop(question);
    assert_eq!(activity.open_questions(), 0);
    let outcome = tokio::time::timeout(LONG, activity.expired(TIMEOUT, &watch)).await;
    assert!(outcome.is_ok());
}

#[tokio::test]
async fn a_question_opened_mid_wait_pauses_the_running_timer() {
    let activity = CallActivity::default();
    let watch = activity.watch(token(1));
    let expired = activity.expired(Duration::from_millis(100), &watch);
    tokio::pin!(expired);
    // Start the timer, then open a question while it runs.
    assert!(
        tokio::time::timeout(Duration::from_millis(1), &mut expired)
            .await
            .is_err()
    );
    let question = activity.question_opened();
    assert!(
        tokio::time::timeout(Duration::from_millis(600), &mut expired)
            .await
            .is_err(),
        "an open question pauses a timer that was already running"
    );
    drop(question);
    assert!(tokio::time::timeout(LONG, &mut expired).await.is_ok());
}

#[tokio::test]
async fn progress_reaches_only_its_own_request() {
    let activity = CallActivity::default();
    let mine = activity.watch(token(1));
    let other = activity.watch(token(2));
    activity.progress(&token(1));
    assert!(
        tokio::time::timeout(LONG, mine.notify.notified())
            .await
            .is_ok()
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(50), other.notify.notified())
            .await
            .is_err(),
        "another request's progress must not keep this one alive"
    );
}

#[test]
fn a_finished_request_unregisters_its_watcher() {
    let activity = CallActivity::default();
    let watch = activity.watch(token(7));
    drop(watch);
    // Progress for a finished request is ignored (no panic, nothing stored).
    activity.progress(&token(7));
    assert!(activity.progress.lock().unwrap().is_empty());
}

/// A hook that keeps the question open for `hold` (many call timeouts), then accepts.
struct SlowAccept {
    hold: Duration,
}

impl crate::client_handler::ElicitationHook for SlowAccept {
    fn elicit(
        &self,
        _request: crate::client_handler::ElicitationRequest,
    ) -> futures::future::BoxFuture<'_, crate::client_handler::ElicitationResponse> {
        Box::pin(async move {
            tokio::time::sleep(self.hold).await;
            let mut content = serde_json::Map::new();
            content.insert("name".into(), serde_json::json!("Grace"));
            crate::client_handler::ElicitationResponse::Accept(content)
        })
    }
}

#[tokio::test]
async fn a_call_is_not_timed_out_while_its_question_is_open() {
    use coyote_test_support::{Scenario, ToolBehavior, in_process};

    let call_timeout = Duration::from_millis(300);
    let scenario = Scenario::builder()
        .tool("ask", ToolBehavior::elicit_form())
        .build();
    let ((r, w), fake) = in_process(scenario);
    let runtime = crate::McpRuntime::new(crate::RuntimeOptions {
        elicitation: std::sync::Arc::new(SlowAccept {
            hold: call_timeout * 5,
        }),
        ..crate::RuntimeOptions::default()
    });
    let timeouts = coyote_protocol::Timeouts {
        startup: Duration::from_secs(20),
        call: call_timeout,
    };
    let server = runtime.attach_stream("asks", timeouts, r, w).await.unwrap();
    let outcome = server.call_tool("ask", serde_json::Map::new()).await;
    let outcome = outcome.expect("the call must wait for the answer, not time out");
    assert!(!outcome.is_error, "{outcome:?}");
    let events = fake.events();
    assert_eq!(
        events.elicitations(),
        vec![(
            "accept".to_owned(),
            Some(serde_json::json!({"name": "Grace"}))
        )]
    );
    assert_eq!(events.cancelled_notifications(), 0);
    runtime.shutdown().await;
}
