//! No planted secret or canary appears in any tool, prompt or resource output without an
//! explicit `reveal` (SPEC §7.4 item 21), in single and fleet mode. The planted values make
//! the assertion able to fail: `reveal` does surface them.

use coolify_fixture::PLANTED_SECRETS;
use serde_json::{Value, json};

use crate::common::{Harness, Human, Setup};

async fn every_output(h: &Harness, fleet: bool) -> Vec<(String, String)> {
    let inst = |mut v: Value| {
        if fleet {
            v["instance"] = json!("staging");
        }
        v
    };
    let calls: Vec<(&str, Value)> = vec![
        ("get_version", json!({})),
        ("get_infrastructure_overview", json!({})),
        ("diagnose_app", json!({"query": "api-gateway"})),
        ("diagnose_server", json!({"query": "hetzner-fsn1"})),
        ("find_issues", json!({})),
        ("list_servers", json!({})),
        ("get_server", json!({"uuid": "srv1-hetzner"})),
        ("list_applications", json!({})),
        ("get_application", json!({"uuid": "app-api"})),
        ("get_application", json!({"uuid": "app-shop"})),
        (
            "logs",
            json!({"resource": "application", "uuid": "app-api"}),
        ),
        (
            "logs",
            json!({"resource": "database", "uuid": "db-postgres"}),
        ),
        ("application_logs", json!({"uuid": "app-logviewer"})),
        (
            "env_vars",
            json!({"resource": "application", "action": "list", "uuid": "app-api"}),
        ),
        (
            "env_vars",
            json!({"resource": "application", "action": "list", "uuid": "app-api", "key": "API_SECRET"}),
        ),
        (
            "env_vars",
            json!({"resource": "database", "action": "list", "uuid": "db-postgres"}),
        ),
        ("list_deployments", json!({})),
        (
            "deployment",
            json!({"action": "get", "uuid": "dep-9002", "lines": 50}),
        ),
        (
            "deployment",
            json!({"action": "list_for_app", "uuid": "app-api", "include_logs": true}),
        ),
        ("deploy", json!({"tag_or_uuid": "app-api"})),
        (
            "control",
            json!({"resource": "application", "action": "restart", "uuid": "app-api"}),
        ),
        (
            "application",
            json!({"action": "update", "uuid": "app-api", "name": "x"}),
        ),
    ];
    let mut out = Vec::new();
    for (tool, args) in calls {
        out.push((format!("{tool} {args}"), h.call(tool, inst(args)).await));
    }
    if fleet {
        out.push((
            "list_instances".into(),
            h.call("list_instances", json!({})).await,
        ));
    }
    for (name, args) in [
        ("troubleshoot_application", json!({"query": "api-gateway"})),
        (
            "explain_failed_deploy",
            json!({"deployment_uuid": "dep-9002"}),
        ),
        ("estate_health", json!({})),
    ] {
        out.push((
            format!("prompt {name}"),
            h.prompt_text(name, inst(args)).await,
        ));
    }
    let listed = h.resources().await;
    out.push((
        "resources/list".into(),
        serde_json::to_string(&listed).unwrap(),
    ));
    for r in &listed {
        let uri = r["uri"].as_str().unwrap();
        out.push((uri.to_string(), h.read_text(uri).await));
    }
    out
}

async fn assert_no_canary(setup: Setup, fleet: bool) {
    let h = Harness::start(setup.human(Human::Absent)).await.unwrap();
    for (what, text) in every_output(&h, fleet).await {
        for secret in PLANTED_SECRETS {
            assert!(!text.contains(secret), "{what} leaked {secret}");
        }
    }
    // The planted values are really there: an explicit reveal returns them.
    let revealed = h
        .call(
            "get_application",
            json!({"uuid": "app-api", "reveal": true}),
        )
        .await;
    assert!(revealed.contains(coolify_fixture::FIXTURE_WEBHOOK_SECRET));
    let revealed = h.call("env_vars", json!({"resource": "application", "action": "list", "uuid": "app-api", "reveal": true, "key": "DATABASE_URL"})).await;
    assert!(revealed.contains(coolify_fixture::data::CANARY_DB_PASSWORD));
}

#[tokio::test]
async fn item_21_no_canary_without_reveal_single() {
    assert_no_canary(Setup::default(), false).await;
}

#[tokio::test]
async fn item_21_no_canary_without_reveal_fleet() {
    assert_no_canary(Setup::default().fleet(), true).await;
}
