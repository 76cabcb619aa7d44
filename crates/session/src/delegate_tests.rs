use std::sync::Mutex;

use super::*;

/// Records what it was asked to launch and refuses (the checks under test run before it).
#[derive(Default)]
struct Recorder {
    asked: Mutex<Vec<(String, u32)>>,
}

impl DelegateLauncher for Recorder {
    fn launch<'a>(
        &'a self,
        request: DelegateLaunch<'a>,
    ) -> BoxFuture<'a, Result<DelegateRun, DelegateError>> {
        self.asked
            .lock()
            .unwrap()
            .push((request.agent.to_owned(), request.depth));
        let agent = request.agent.to_owned();
        Box::pin(async move {
            Err(DelegateError::Launch {
                agent,
                reason: "test launcher".into(),
            })
        })
    }
}

fn delegates(launcher: &Arc<Recorder>, depth: u32) -> Delegates {
    let agents = vec![
        DelegateInfo {
            name: "researcher".into(),
            description: Some("finds things".into()),
        },
        DelegateInfo {
            name: "writer".into(),
            description: None,
        },
    ];
    Delegates::new(agents, launcher.clone()).at_depth(depth)
}

fn task() -> Value {
    json!({"task": "look it up"})
}

#[tokio::test]
async fn depth_is_bounded_with_a_teaching_error_and_nothing_launched() {
    let launcher = Arc::new(Recorder::default());
    let at_limit = delegates(&launcher, MAX_DELEGATE_DEPTH);
    let error = start(&at_limit, "researcher", &task()).await.unwrap_err();
    assert_eq!(
        error,
        DelegateError::TooDeep {
            agent: "researcher".into(),
            depth: MAX_DELEGATE_DEPTH + 1,
            max: MAX_DELEGATE_DEPTH,
        }
    );
    assert_eq!(
        error.to_string(),
        "delegation is limited to 3 levels (agent → delegate → …) and `researcher` would be \
         level 4; do this part of the task yourself with your own functions and answer"
    );
    assert!(launcher.asked.lock().unwrap().is_empty());

    // One level below the limit still launches, at the next depth.
    let below = delegates(&launcher, MAX_DELEGATE_DEPTH - 1);
    let error = start(&below, "researcher", &task()).await.unwrap_err();
    assert!(matches!(error, DelegateError::Launch { .. }), "{error:?}");
    assert_eq!(
        *launcher.asked.lock().unwrap(),
        vec![("researcher".to_owned(), MAX_DELEGATE_DEPTH)]
    );
}

#[tokio::test]
async fn a_custom_bound_applies() {
    let launcher = Arc::new(Recorder::default());
    let none_allowed = delegates(&launcher, 0).max_depth(0);
    let error = start(&none_allowed, "writer", &task()).await.unwrap_err();
    assert!(
        matches!(
            error,
            DelegateError::TooDeep {
                depth: 1,
                max: 0,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(launcher.asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn unknown_delegate_and_missing_task_say_what_to_call() {
    let launcher = Arc::new(Recorder::default());
    let d = delegates(&launcher, 0);
    let error = start(&d, "ghost", &task()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "agent `ghost` is not one of your delegates; call one of: \
         agent_delegate_researcher, agent_delegate_writer"
    );
    for args in [json!({}), json!({"task": "  "}), json!({"task": 3})] {
        let error = start(&d, "writer", &args).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "call agent_delegate_writer with {\"task\": \"what the agent should do\"}"
        );
    }
    assert!(launcher.asked.lock().unwrap().is_empty());
}

#[test]
fn one_declaration_per_delegate_with_a_required_task() {
    let launcher = Arc::new(Recorder::default());
    let declared = delegates(&launcher, 0).declarations();
    let names: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["agent_delegate_researcher", "agent_delegate_writer"]
    );
    assert_eq!(
        declared[0].parameters["required"],
        json!(["task"]),
        "{:?}",
        declared[0]
    );
    assert!(declared[0].description.contains("(finds things)"));
}

#[test]
fn progress_forwards_status_lines_only() {
    let log = crate::event::EventLog::new();
    let progress = Progress {
        parent: &log,
        agent: "kb".into(),
        depth: 1,
    };
    progress.emit(SessionEvent::TextDelta {
        text: "secret thoughts".into(),
    });
    progress.emit(SessionEvent::ToolCallFinished {
        call_id: "c".into(),
        name: "mcp_read_kb".into(),
        server: Some("kb".into()),
        tool: None,
        status: ToolCallStatus::Ok,
        duration_ms: 3,
        output: "x".into(),
    });
    let nested = SessionEvent::DelegateProgress {
        agent: "deeper".into(),
        depth: 2,
        message: "started".into(),
    };
    progress.emit(nested.clone());
    assert_eq!(
        log.events(),
        vec![
            SessionEvent::DelegateProgress {
                agent: "kb".into(),
                depth: 1,
                message: "mcp_read_kb: ok".into(),
            },
            nested,
        ]
    );
}
