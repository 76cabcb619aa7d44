//! Unit tests of the task store: who may see a task, and the status messages.

use std::sync::Arc;

use rmcp::model::ErrorCode;
use serde_json::json;

use super::*;
use crate::backend::{ApiRequest, Backend, BoxFuture};
use crate::follow::FOLLOW_LIMIT;

/// A Coolify whose every deployment is finished.
struct Finished;

impl Backend for Finished {
    fn send(&self, _request: ApiRequest) -> BoxFuture<'_, Result<Value, ApiError>> {
        Box::pin(async { Ok(json!({"deployment_uuid": "d1", "status": "finished"})) })
    }
    fn version(&self) -> BoxFuture<'_, Result<String, ApiError>> {
        Box::pin(async { Ok("4.0.0".to_string()) })
    }
    fn post_with_get_fallback(&self, _path: Path) -> BoxFuture<'_, Result<Value, ApiError>> {
        Box::pin(async { Ok(json!({})) })
    }
}

fn follow(owner: &Owner) -> Follow {
    Follow {
        client: Client::new(Arc::new(Finished)),
        interval: Duration::from_millis(1),
        mode: Mode {
            fleet: false,
            read_only: false,
        },
        owner: owner.clone(),
        notify: None,
    }
}

fn pending() -> Pending {
    Pending {
        watch: vec!["d1".into()],
        cancel: vec!["d1".into()],
        deadline: FOLLOW_LIMIT,
        deploy: None,
    }
}

#[tokio::test]
async fn a_task_exists_only_for_the_caller_that_created_it() {
    let store = TaskStore::default();
    let owner = Owner::new(Some("client-a"), Some("token-a"));
    let created = store.start(pending(), tool_result("ok".into(), false), follow(&owner));
    let id = created.task.task_id;
    assert!(store.get(&id, &owner).is_ok());
    for other in [
        Owner::new(Some("client-b"), Some("token-a")),
        Owner::new(Some("client-a"), Some("token-b")),
        Owner::new(None, None),
        Owner::new(Some("client-atoken-a"), None),
    ] {
        let err = store.get(&id, &other).unwrap_err();
        assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(err.message, format!("unknown task: {id}"));
        assert!(store.cancel(&id, &other).is_err());
    }
    assert!(store.cancel(&id, &owner).is_ok());
}

#[tokio::test]
async fn a_followed_call_settles_with_its_own_answer() {
    let store = TaskStore::default();
    let owner = Owner::new(None, None);
    let answer = tool_result("{\"data\": 1}".into(), false);
    let id = store
        .start(pending(), answer.clone(), follow(&owner))
        .task
        .task_id;
    for _ in 0..500 {
        let got = store.get(&id, &owner).unwrap();
        if got.task.status().is_terminal() {
            let v = serde_json::to_value(&got).unwrap();
            assert_eq!(v["status"], "completed");
            assert_eq!(v["statusMessage"], "deployment d1: finished");
            assert_eq!(v["result"], serde_json::to_value(&answer).unwrap());
            return;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    panic!("the task did not settle");
}

#[test]
fn status_messages_name_each_deployment() {
    let state = |s: &str| Some(json!({"status": s}));
    assert_eq!(
        status_message(&[("a".into(), state("queued"))]),
        "deployment a: queued"
    );
    assert_eq!(
        status_message(&[
            ("a".into(), state("finished")),
            ("b".into(), state("in_progress"))
        ]),
        "deployments: a finished, b in_progress"
    );
    assert_eq!(names(&["a".into(), "b".into()]), "deployments a, b");
}
