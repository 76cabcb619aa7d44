use std::time::Duration;

use serde_json::json;

use super::{MAX_POLL, MIN_POLL, TaskInfo, poll_interval};

#[test]
fn a_task_reads_from_either_wire() {
    let sep1686 = json!({"taskId": "t1", "status": "working", "statusMessage": "Analyzing",
        "createdAt": "2026-12-05T09:00:00Z", "lastUpdatedAt": "2026-12-05T09:00:01Z",
        "ttl": 300000, "pollInterval": 1000});
    let task = TaskInfo::from_wire(&sep1686).unwrap();
    assert_eq!(task.task_id, "t1");
    assert_eq!(task.status_message.as_deref(), Some("Analyzing"));
    assert_eq!(
        (task.ttl_ms, task.poll_interval_ms),
        (Some(300_000), Some(1000))
    );
    assert!(!task.is_terminal());

    let extension = json!({"taskId": "t2", "status": "completed", "ttlMs": 5, "pollIntervalMs": 7});
    let task = TaskInfo::from_wire(&extension).unwrap();
    assert_eq!((task.ttl_ms, task.poll_interval_ms), (Some(5), Some(7)));
    assert!(task.is_terminal());

    assert!(
        TaskInfo::from_wire(&json!({"status": "working"})).is_none(),
        "no id"
    );
}

#[test]
fn the_poll_interval_is_the_server_s_within_bounds() {
    let at = |ms: Option<u64>| TaskInfo {
        task_id: "t".into(),
        status: "working".into(),
        status_message: None,
        created_at: None,
        last_updated_at: None,
        ttl_ms: None,
        poll_interval_ms: ms,
    };
    assert_eq!(poll_interval(&at(Some(700))), Duration::from_millis(700));
    assert_eq!(poll_interval(&at(Some(1))), MIN_POLL);
    assert_eq!(poll_interval(&at(Some(3_600_000))), MAX_POLL);
    assert_eq!(poll_interval(&at(None)), Duration::from_secs(1));
}

#[test]
fn task_info_serialises_with_snake_case_keys() {
    let task = TaskInfo::from_wire(&json!({"taskId": "t", "status": "working",
        "lastUpdatedAt": "x", "pollInterval": 2}))
    .unwrap();
    assert_eq!(
        serde_json::to_value(&task).unwrap(),
        json!({"task_id": "t", "status": "working", "last_updated_at": "x", "poll_interval_ms": 2})
    );
}
