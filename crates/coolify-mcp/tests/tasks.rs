//! Deployments as MCP tasks (the `io.modelcontextprotocol/tasks` extension), end to end against
//! the fixture with rmcp's client in process: a `deploy` answers with a task whose status
//! message follows Coolify's statuses and whose final result is the blocking call's answer,
//! byte for byte; `tasks/cancel` reaches Coolify's cancel endpoint and settles the task
//! `cancelled`; an application restart is followed the same way; a guarded project redeploy
//! confirms through `input_required` and becomes a task on its final round; a session client
//! gets `notifications/tasks` for each status change; and a client that did not declare the
//! extension sees neither the extension nor a task.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use coolify_fixture::{Fixture, Reply};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientConfig, GetTaskParams,
    InputResponses, ProtocolVersion, TaskStatusNotificationParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

use coolify_mcp::config::HumanPolicy;
use coolify_mcp::request_state::ConfirmationSeal;

use crate::common::{Setup, as_map, build_server, quick_timing, rpc_error};

#[derive(Clone, Default)]
struct Client {
    tasks: bool,
    elicitation: bool,
    /// The `notifications/tasks` received (a session client only).
    notes: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut caps = json!({});
        if self.tasks {
            caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
        }
        if self.elicitation {
            caps["elicitation"] = json!({});
        }
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": caps,
            "clientInfo": {"name": "coolify-mcp-task-tests", "version": "1"}
        }))
        .unwrap()
    }

    async fn on_task_status(
        &self,
        params: TaskStatusNotificationParams,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notes
            .lock()
            .unwrap()
            .push(serde_json::to_value(&params).unwrap());
    }
}

/// A server over `fixture` polling Coolify every `interval`, and a 2026-07-28 client.
async fn connect(
    fixture: &Fixture,
    tasks: bool,
    interval: Duration,
) -> RunningService<RoleClient, Client> {
    let client = Client {
        tasks,
        ..Client::default()
    };
    connect_with(fixture, client, interval, Setup::default(), true).await
}

/// A server over `fixture` with `setup` (its poll interval set to `interval`) and `client`,
/// speaking 2026-07-28 (`modern`) or with an `initialize` session.
async fn connect_with(
    fixture: &Fixture,
    client: Client,
    interval: Duration,
    mut setup: Setup,
    modern: bool,
) -> RunningService<RoleClient, Client> {
    let mut timing = quick_timing();
    timing.deploy_poll_interval = interval;
    setup.timing = timing;
    let server = build_server(fixture.url(), &setup);
    let (a, b) = tokio::io::duplex(1 << 22);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(coolify_mcp::wire::outgoing(a)).await {
            let _ = running.waiting().await;
        }
    });
    if !modern {
        return client.serve(b).await.unwrap();
    }
    client
        .serve_with_lifecycle(
            b,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap()
}

async fn call(c: &RunningService<RoleClient, Client>, tool: &str, args: Value) -> CallToolResponse {
    let mut p = CallToolRequestParams::new(tool.to_string());
    p.arguments = Some(as_map(args));
    c.peer().call_tool_once(p).await.unwrap()
}

fn task_id(r: CallToolResponse) -> String {
    match r {
        CallToolResponse::Task(t) => {
            let v = serde_json::to_value(&t).unwrap();
            assert_eq!(v["resultType"], "task", "{v}");
            assert_eq!(v["status"], "working", "{v}");
            assert!(v["ttlMs"].as_u64().is_some_and(|t| t > 0), "{v}");
            assert!(v["pollIntervalMs"].as_u64().is_some_and(|t| t > 0), "{v}");
            t.task.task_id
        }
        other => panic!("expected a task, got {other:?}"),
    }
}

/// Poll `tasks/get` until the task settles; the distinct status messages seen on the way and
/// the final `tasks/get` answer.
async fn settle(c: &RunningService<RoleClient, Client>, id: &str) -> (Vec<String>, Value) {
    let mut seen: Vec<String> = Vec::new();
    for _ in 0..2000 {
        let got = c.peer().get_task(GetTaskParams::new(id)).await.unwrap();
        let v = serde_json::to_value(&got).unwrap();
        if let Some(m) = v["statusMessage"].as_str()
            && seen.last().map(String::as_str) != Some(m)
        {
            seen.push(m.to_string());
        }
        if got.task.status().is_terminal() {
            return (seen, v);
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("task {id} did not settle; saw {seen:?}");
}

fn statuses() -> [&'static str; 4] {
    ["queued", "in_progress", "in_progress", "finished"]
}

/// A fixture whose new deployments go through [`statuses`].
async fn deploying_fixture() -> Fixture {
    Fixture::builder()
        .new_deployment_statuses(statuses())
        .start()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_deploy_task_follows_coolify_and_ends_with_the_blocking_answer() {
    let fixture = deploying_fixture().await;
    let c = connect(&fixture, true, Duration::from_millis(60)).await;
    let id = task_id(call(&c, "deploy", json!({"tag_or_uuid": "app-api"})).await);
    let (mut seen, done) = settle(&c, &id).await;
    // Before its first read the task says what it follows.
    if seen
        .first()
        .is_some_and(|m| m == "following deployment dep-new-1")
    {
        seen.remove(0);
    }
    assert_eq!(
        seen,
        [
            "deployment dep-new-1: queued",
            "deployment dep-new-1: in_progress",
            "deployment dep-new-1: finished"
        ],
        "the status message follows Coolify's statuses"
    );
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["resultType"], "complete", "{done}");
    let posts: Vec<String> = fixture
        .mutations()
        .iter()
        .map(|r| r.path_and_query())
        .collect();
    assert_eq!(posts, ["/api/v1/deploy?tag=app-api&force=false"]);

    // The same deploy, blocking with `wait: true`, from a client without the extension.
    let fixture = deploying_fixture().await;
    let plain = connect(&fixture, false, Duration::from_millis(1)).await;
    let blocking = match call(
        &plain,
        "deploy",
        json!({"tag_or_uuid": "app-api", "wait": true}),
    )
    .await
    {
        CallToolResponse::Complete(r) => serde_json::to_value(&r).unwrap(),
        other => panic!("expected a result, got {other:?}"),
    };
    let mut expected = blocking.clone();
    expected.as_object_mut().unwrap().remove("resultType");
    let mut ours = done["result"].clone();
    ours.as_object_mut().unwrap().remove("resultType");
    assert_eq!(ours, expected, "the task's result is the blocking call's");
    let text = ours["content"][0]["text"].as_str().unwrap();
    let data: Value = serde_json::from_str(text).unwrap();
    assert_eq!(data["data"]["status"], "finished", "{text}");
}

#[tokio::test]
async fn cancelling_a_deploy_task_cancels_the_coolify_deployment() {
    let fixture = Fixture::builder()
        .new_deployment_statuses(["queued", "in_progress"])
        .start()
        .await
        .unwrap();
    let c = connect(&fixture, true, Duration::from_millis(20)).await;
    let id = task_id(call(&c, "deploy", json!({"tag_or_uuid": "app-api"})).await);
    // Wait until Coolify reports the build running.
    for _ in 0..400 {
        let v = serde_json::to_value(c.peer().get_task(GetTaskParams::new(&id)).await.unwrap())
            .unwrap();
        if v["statusMessage"] == "deployment dep-new-1: in_progress" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    c.peer()
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    let (_, done) = settle(&c, &id).await;
    assert_eq!(done["status"], "cancelled", "{done}");
    assert_eq!(done["statusMessage"], "cancelled in Coolify: dep-new-1");
    assert!(done.get("result").is_none(), "{done}");
    let cancels: Vec<String> = fixture
        .mutations()
        .iter()
        .map(|r| r.path_and_query())
        .filter(|p| p.contains("cancel"))
        .collect();
    assert_eq!(cancels, ["/api/v1/deployments/dep-new-1/cancel"]);
    // Coolify now reports the deployment cancelled.
    let dep = reqwest::Client::new()
        .get(format!("{}/api/v1/deployments/dep-new-1", fixture.url()))
        .bearer_auth(coolify_fixture::FIXTURE_TOKEN)
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(dep["status"], "cancelled-by-user");
    // Cancelling a settled task is acknowledged again (idempotent).
    c.peer()
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
}

#[tokio::test]
async fn an_application_restart_is_followed_and_answers_as_before() {
    let restart = || {
        Fixture::builder()
            .new_deployment_statuses(["in_progress", "finished"])
            .route(
                "POST",
                "/applications/app-api/restart",
                Reply::Json(
                    200,
                    json!({"message": "Restart request queued.", "deployment_uuid": "dep-new-1"}),
                ),
            )
            .start()
    };
    let args = json!({"resource": "application", "action": "restart", "uuid": "app-api"});
    let fixture = restart().await.unwrap();
    let c = connect(&fixture, true, Duration::from_millis(20)).await;
    let id = task_id(call(&c, "control", args.clone()).await);
    let (seen, done) = settle(&c, &id).await;
    assert_eq!(seen.last().unwrap(), "deployment dep-new-1: finished");
    assert_eq!(done["status"], "completed");

    let fixture = restart().await.unwrap();
    let plain = connect(&fixture, false, Duration::from_millis(20)).await;
    let CallToolResponse::Complete(blocking) = call(&plain, "control", args).await else {
        panic!("a client without the extension gets a result")
    };
    assert_eq!(
        done["result"]["content"],
        serde_json::to_value(&blocking).unwrap()["content"]
    );
    // A stop starts no deployment: a plain answer even for a client of the extension.
    let stop = json!({"resource": "application", "action": "stop", "uuid": "app-api"});
    assert!(matches!(
        call(&c, "control", stop).await,
        CallToolResponse::Complete(_)
    ));
}

#[tokio::test]
async fn a_client_without_the_extension_sees_no_task_and_no_extension() {
    let fixture = deploying_fixture().await;
    let plain = connect(&fixture, false, Duration::from_millis(1)).await;
    let discovered = plain.peer().discover(Default::default()).await.unwrap();
    let caps = serde_json::to_value(&discovered).unwrap()["capabilities"].clone();
    assert_eq!(caps.get("extensions"), None, "{caps}");
    let r = call(&plain, "deploy", json!({"tag_or_uuid": "app-api"})).await;
    assert!(matches!(r, CallToolResponse::Complete(_)), "{r:?}");
    let err = plain
        .peer()
        .get_task(GetTaskParams::new("nope"))
        .await
        .unwrap_err();
    assert_eq!(rpc_error(&err).0, -32021, "{err}");

    let with = connect(&fixture, true, Duration::from_millis(1)).await;
    let discovered = with.peer().discover(Default::default()).await.unwrap();
    let caps = serde_json::to_value(&discovered).unwrap()["capabilities"].clone();
    assert_eq!(
        caps["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}})
    );
    let err = with
        .peer()
        .get_task(GetTaskParams::new("nope"))
        .await
        .unwrap_err();
    assert_eq!(rpc_error(&err).0, -32602, "{err}");
}

#[tokio::test]
async fn a_confirmed_project_redeploy_becomes_a_task_on_its_final_round() {
    let fixture = Fixture::builder()
        .new_deployment_statuses(["in_progress", "finished"])
        .start()
        .await
        .unwrap();
    let (seal, _) = ConfirmationSeal::from_key(Some(&[7u8; 32])).unwrap();
    let setup = Setup {
        policy: HumanPolicy::RequireHuman,
        seal: Some(seal),
        ..Setup::default()
    };
    let client = Client {
        tasks: true,
        elicitation: true,
        ..Client::default()
    };
    let c = connect_with(&fixture, client, Duration::from_millis(20), setup, true).await;
    let args = json!({"project_uuid": "proj-saas"});
    let CallToolResponse::InputRequired(first) = call(&c, "redeploy_project", args.clone()).await
    else {
        panic!("round one asks first")
    };
    assert!(
        fixture.mutations().is_empty(),
        "nothing is sent before the answer"
    );
    let mut p = CallToolRequestParams::new("redeploy_project");
    p.arguments = Some(as_map(args));
    p.input_responses = Some(
        serde_json::from_value::<InputResponses>(json!({"confirm": {"action": "accept"}})).unwrap(),
    );
    p.request_state = first.request_state.clone();
    let id = task_id(c.peer().call_tool_once(p).await.unwrap());
    let (seen, done) = settle(&c, &id).await;
    assert_eq!(seen.last().unwrap(), "deployment dep-new-1: finished");
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        v["summary"],
        json!({"total": 3, "succeeded": 3, "failed": 0})
    );
    let deploys = fixture
        .mutations()
        .iter()
        .filter(|r| r.path.ends_with("/deploy"))
        .count();
    assert_eq!(deploys, 3, "one deploy per application, once");
}

#[tokio::test]
async fn a_session_client_is_told_each_status_change() {
    let fixture = deploying_fixture().await;
    let client = Client {
        tasks: true,
        ..Client::default()
    };
    let notes = client.notes.clone();
    let c = connect_with(
        &fixture,
        client,
        Duration::from_millis(20),
        Setup::default(),
        false,
    )
    .await;
    let init = serde_json::to_value(c.peer().peer_info().unwrap()).unwrap();
    assert_eq!(
        init["capabilities"]["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}})
    );
    let id = task_id(call(&c, "deploy", json!({"tag_or_uuid": "app-api"})).await);
    let (_, done) = settle(&c, &id).await;
    assert_eq!(done["status"], "completed");
    let mut last = Vec::new();
    for _ in 0..200 {
        last = notes.lock().unwrap().clone();
        if last.last().is_some_and(|n| n["status"] == "completed") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let seen: Vec<(String, String)> = last
        .iter()
        .map(|n| {
            assert_eq!(n["taskId"], id.as_str());
            (
                n["status"].as_str().unwrap().to_string(),
                n["statusMessage"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("working".into(), "deployment dep-new-1: queued".into()),
            ("working".into(), "deployment dep-new-1: in_progress".into()),
            ("working".into(), "deployment dep-new-1: finished".into()),
            ("completed".into(), "deployment dep-new-1: finished".into()),
        ]
    );
    assert_eq!(last.last().unwrap()["result"], done["result"]);
}
