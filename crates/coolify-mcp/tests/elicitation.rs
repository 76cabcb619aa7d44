//! Confirmations of destructive operations (docs/coolify-mcp.md).

use coolify_fixture::{Fixture, Reply};
use serde_json::json;

use crate::common::{Harness, Human, Setup, quick_timing};

/// A harness on `setup`, and the text of `application delete app-api` called through it.
async fn delete_app_api(setup: Setup) -> (Harness, String) {
    let h = Harness::start(setup).await.unwrap();
    let text = h
        .call(
            "application",
            json!({"action": "delete", "uuid": "app-api"}),
        )
        .await;
    (h, text)
}

const DELETE_MSG: &str = "Delete application \"api-gateway\" (app-api)?\n\nPersistent volumes will be DESTROYED and their data is not recoverable (delete_volumes was not set, and it defaults to true). This cannot be undone.";

#[tokio::test]
async fn item_50_no_capability_on_stdio_runs_unconfirmed() {
    let h = Harness::start(Setup::default().human(Human::Absent))
        .await
        .unwrap();
    h.call(
        "application",
        json!({"action": "delete", "uuid": "app-api"}),
    )
    .await;
    assert_eq!(h.log(), ["DELETE /api/v1/applications/app-api"]);
    assert!(h.asked().is_empty());
}

#[tokio::test]
async fn item_51_decline() {
    let (h, text) = delete_app_api(Setup::default().human(Human::Decline)).await;
    assert_eq!(
        text,
        "Aborted: the user declined. Nothing was changed. Do not retry without new instructions from the user."
    );
    assert_eq!(h.log(), ["GET /api/v1/applications/app-api"]);
}

#[tokio::test]
async fn item_51_cancel() {
    let h = Harness::start(Setup::default().human(Human::Cancel))
        .await
        .unwrap();
    let text = h.call("stop_all_apps", json!({"confirm": true})).await;
    assert_eq!(
        text,
        "Aborted: the user cancelled the prompt. Nothing was changed. Do not retry without new instructions from the user."
    );
    assert!(h.fixture.mutations().is_empty());
}

#[tokio::test]
async fn item_52_accept_and_the_message() {
    let h = Harness::start(Setup::default().human(Human::Accept))
        .await
        .unwrap();
    h.call(
        "application",
        json!({"action": "delete", "uuid": "app-api"}),
    )
    .await;
    assert_eq!(
        h.log(),
        [
            "GET /api/v1/applications/app-api",
            "DELETE /api/v1/applications/app-api"
        ]
    );
    let asked = h.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["message"], DELETE_MSG);
    assert_eq!(
        asked[0]["requestedSchema"],
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(asked[0]["mode"], "form");
    h.fixture.clear_requests();
    h.call(
        "application",
        json!({"action": "delete", "uuid": "app-api", "delete_volumes": false}),
    )
    .await;
    assert_eq!(
        h.log(),
        [
            "GET /api/v1/applications/app-api",
            "DELETE /api/v1/applications/app-api?delete_volumes=false"
        ]
    );
    assert!(
        h.asked()[1]["message"]
            .as_str()
            .unwrap()
            .contains("Persistent volumes are kept. This cannot be undone.")
    );
    h.fixture.clear_requests();
    h.call(
        "application",
        json!({"action": "move", "uuid": "app-api", "environment_uuid": "env-staging"}),
    )
    .await;
    assert_eq!(
        h.log(),
        [
            "GET /api/v1/applications/app-api",
            "POST /api/v1/applications/app-api/move"
        ]
    );
    assert!(h.asked()[2]["message"].as_str().unwrap().starts_with("Move application \"api-gateway\" (app-api) to environment env-staging?\n\nContainers are not affected"));
}

#[tokio::test]
async fn item_53_elicitation_off() {
    let h = Harness::start(Setup::default().human(Human::Decline).elicitation_off())
        .await
        .unwrap();
    h.call(
        "application",
        json!({"action": "delete", "uuid": "app-api"}),
    )
    .await;
    assert!(h.asked().is_empty());
    assert_eq!(h.log(), ["DELETE /api/v1/applications/app-api"]);
    // Any other value (e.g. `OFF`) does not disable asking.
    let env: std::collections::BTreeMap<String, String> = [
        ("COOLIFY_ACCESS_TOKEN", "t"),
        ("COOLIFY_MCP_ELICITATION", "OFF"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let coolify_mcp::config::Command::Run(c) = coolify_mcp::config::parse(&env, &[]).unwrap()
    else {
        panic!()
    };
    assert_eq!(
        c.elicitation,
        coolify_mcp::config::ElicitationSetting::Enabled
    );
}

#[tokio::test]
async fn item_54_require_human_refuses_without_elicitation() {
    // Deliberate difference: require-human is also available on stdio (--require-human).
    let h = Harness::start(Setup::default().human(Human::Absent).require_human())
        .await
        .unwrap();
    for (tool, args) in [
        (
            "application",
            json!({"action": "delete", "uuid": "app-api"}),
        ),
        ("restart_project_apps", json!({"project_uuid": "proj-saas"})),
        ("stop_all_apps", json!({"confirm": true})),
    ] {
        let text = h.call(tool, args).await;
        assert_eq!(
            text,
            "Aborted: this server requires human confirmation for destructive operations, and this client does not support elicitation. Read-only tools work normally. For destructive operations, connect with a client that supports elicitation or use the stdio server locally. Nothing was changed. Do not retry without new instructions from the user."
        );
    }
    assert!(h.log().is_empty());
    let info = serde_json::to_value(h.client.peer().peer_info().unwrap()).unwrap();
    assert!(
        info["instructions"]
            .as_str()
            .unwrap()
            .contains("they are refused with a message rather than run")
    );
}

#[tokio::test]
async fn item_55_fleet_message_names_the_instance() {
    let h = Harness::start(Setup::default().fleet().human(Human::Decline))
        .await
        .unwrap();
    h.call(
        "application",
        json!({"action": "delete", "uuid": "app-api", "instance": "staging"}),
    )
    .await;
    assert_eq!(
        h.asked()[0]["message"],
        format!("Instance: staging\n{DELETE_MSG}")
    );
}

#[tokio::test]
async fn item_56_no_op_guards_do_not_ask() {
    let apps_stopped =
        json!([{"uuid": "app-a", "name": "a", "status": "exited", "environment_id": 1}]);
    let f = Fixture::builder()
        .route("GET", "/applications", Reply::Json(200, apps_stopped))
        .route(
            "GET",
            "/projects/proj-empty",
            Reply::Json(
                200,
                json!({"uuid": "proj-empty", "environments": [{"id": 99}]}),
            ),
        )
        .start()
        .await
        .unwrap();
    let h = Harness::with_fixture(f, Setup::default().human(Human::Decline))
        .await
        .unwrap();
    let empty = json!({"summary": {"total": 0, "succeeded": 0, "failed": 0}, "succeeded": [], "failed": []});
    assert_eq!(
        h.call_json("stop_all_apps", json!({"confirm": true})).await,
        empty
    );
    assert_eq!(
        h.call_json(
            "restart_project_apps",
            json!({"project_uuid": "proj-empty"})
        )
        .await,
        empty
    );
    assert_eq!(
        h.call_json("redeploy_project", json!({"project_uuid": "proj-empty"}))
            .await,
        empty
    );
    assert!(h.asked().is_empty());
    assert!(h.fixture.mutations().is_empty());
}

#[tokio::test]
async fn batch_tools_act_on_exactly_the_summarised_set() {
    let h = Harness::start(Setup::default().human(Human::Accept))
        .await
        .unwrap();
    let v = h.call_json("stop_all_apps", json!({"confirm": true})).await;
    assert_eq!(
        v["summary"],
        json!({"total": 2, "succeeded": 2, "failed": 0})
    );
    assert_eq!(
        h.asked()[0]["message"],
        "EMERGENCY STOP: take down 2 running applications (log-viewer, shop-frontend) across 2 servers?\n\nEvery one stays down until it is started again. This is estate-wide, not scoped to a project."
    );
    let stops: Vec<String> = h
        .log()
        .into_iter()
        .filter(|l| l.starts_with("POST"))
        .collect();
    assert_eq!(stops.len(), 2);
    h.fixture.clear_requests();
    let v = h
        .call_json("restart_project_apps", json!({"project_uuid": "proj-saas"}))
        .await;
    assert_eq!(
        v["summary"],
        json!({"total": 3, "succeeded": 3, "failed": 0})
    );
    assert_eq!(
        h.asked()[1]["message"],
        "Restart 3 applications (api-gateway, log-viewer, shop-frontend) in this project?\n\nEach one drops its connections briefly while the container comes back."
    );
    h.fixture.clear_requests();
    h.call_json("redeploy_project", json!({"project_uuid": "proj-saas"}))
        .await;
    let deploys: Vec<String> = h
        .log()
        .into_iter()
        .filter(|l| l.starts_with("POST /api/v1/deploy"))
        .collect();
    assert_eq!(deploys.len(), 3);
    assert!(deploys.iter().all(|d| d.ends_with("&force=true")));
}

#[tokio::test]
async fn item_58_failed_preflight_still_asks() {
    let f = Fixture::builder()
        .route(
            "GET",
            "/projects/proj-x",
            Reply::Json(500, json!({"message": "Server Error"})),
        )
        .start()
        .await
        .unwrap();
    let h = Harness::with_fixture(f, Setup::default().human(Human::Decline))
        .await
        .unwrap();
    h.call("restart_project_apps", json!({"project_uuid": "proj-x"}))
        .await;
    let msg = h.asked()[0]["message"].as_str().unwrap().to_string();
    assert!(msg.starts_with("Restart every application in a Coolify project.\n\nProceed? (Could not load the details first: Server Error"), "{msg}");
}

#[tokio::test]
async fn item_59_timeout_aborts_with_could_not_confirm() {
    let setup = Setup {
        timing: quick_timing(),
        ..Setup::default()
    }
    .human(Human::Silent);
    let (h, text) = delete_app_api(setup).await;
    assert!(
        text.starts_with(
            "Aborted: could not confirm with the user (MCP error -32001: Request timed out)"
        ),
        "the reference's wording: {text}"
    );
    assert!(
        text.ends_with("Nothing was changed. Do not retry without new instructions from the user.")
    );
    assert!(h.fixture.mutations().is_empty());
}

#[tokio::test]
async fn a_client_error_answer_is_worded_as_the_reference_words_it() {
    let (h, text) = delete_app_api(Setup::default().human(Human::Fails)).await;
    assert!(
        text.starts_with(
            "Aborted: could not confirm with the user (MCP error -32603: Elicitation failed)"
        ),
        "the TypeScript SDK's `MCP error <code>: <message>`, not rmcp's `Mcp error: …`: {text}"
    );
    assert!(h.fixture.mutations().is_empty());
}

#[tokio::test]
async fn item_60_dialog_names_are_flattened() {
    let weird = "evil\n**name** `x` [link](y) <b> \"q\" #tag_ok";
    let f = Fixture::builder()
        .route(
            "GET",
            "/applications/app-w",
            Reply::Json(200, json!({"uuid": "app-w", "name": weird})),
        )
        .start()
        .await
        .unwrap();
    let h = Harness::with_fixture(f, Setup::default().human(Human::Decline))
        .await
        .unwrap();
    h.call("application", json!({"action": "delete", "uuid": "app-w"}))
        .await;
    let msg = h.asked()[0]["message"].as_str().unwrap().to_string();
    assert!(
        msg.starts_with("Delete application \"evil name x linky b q tag_ok\" (app-w)?"),
        "{msg}"
    );
}

#[tokio::test]
async fn item_59_cancelled_tool_call_withdraws_the_prompt() {
    use rmcp::model::{CallToolRequestParams, ClientRequest, Request};
    let h = Harness::start(Setup::default().human(Human::Silent))
        .await
        .unwrap();
    let mut params = CallToolRequestParams::new("application");
    params.arguments = Some(crate::common::as_map(
        json!({"action": "delete", "uuid": "app-api"}),
    ));
    let handle = h
        .client
        .peer()
        .send_request_with_option(
            ClientRequest::CallToolRequest(Request::new(params)),
            Default::default(),
        )
        .await
        .unwrap();
    // Wait for the event (the question reaching the human), not for a clock.
    for _ in 0..500 {
        if !h.asked().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(h.asked().len(), 1);
    handle
        .cancel(Some("the user pressed stop".into()))
        .await
        .unwrap();
    let mut withdrawn = false;
    for _ in 0..500 {
        if h.progress().iter().any(|p| p.get("cancelled").is_some()) {
            withdrawn = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(withdrawn, "the server withdrew its elicitation request");
    assert!(h.fixture.mutations().is_empty());
}
