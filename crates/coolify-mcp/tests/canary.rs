//! No planted secret or canary appears in any tool, prompt or resource output without an
//! explicit `reveal`: every one of the 45 tools (every action of the
//! consolidated ones), every prompt and every resource, in single and fleet mode, in
//! process, over stdio and over streamable HTTP (the real binary). The planted values make
//! the assertion able to fail: `reveal` does surface the revealable ones.

use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::Duration;

use coolify_fixture::{FIXTURE_TOKEN, Fixture, PLANTED_SECRETS};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use rmcp::service::{Peer, RoleClient};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};

use crate::common::{Harness, Human, Setup, as_map};

const TIMEOUT: Duration = Duration::from_secs(30);

/// Every tool and action, none of them revealing.
fn calls() -> Vec<(&'static str, Value)> {
    let (app, db, svc) = ("app-api", "db-postgres", "svc-umami");
    let mut calls: Vec<(&str, Value)> = vec![
        ("get_version", json!({})),
        ("get_mcp_version", json!({})),
        ("get_infrastructure_overview", json!({})),
        ("diagnose_app", json!({"query": "api-gateway"})),
        ("diagnose_server", json!({"query": "hetzner-fsn1"})),
        ("find_issues", json!({})),
        ("list_servers", json!({})),
        ("get_server", json!({"uuid": "srv1-hetzner"})),
        ("server_resources", json!({"uuid": "srv1-hetzner"})),
        ("server_domains", json!({"uuid": "srv1-hetzner"})),
        ("list_destinations", json!({})),
        ("validate_server", json!({"uuid": "srv1-hetzner"})),
        ("list_applications", json!({})),
        ("get_application", json!({"uuid": app})),
        ("logs", json!({"resource": "application", "uuid": app})),
        (
            "logs",
            json!({"resource": "service", "uuid": svc, "container": "umami"}),
        ),
        ("application_logs", json!({"uuid": "app-logviewer"})),
        ("list_databases", json!({})),
        ("get_database", json!({"uuid": db})),
        ("list_services", json!({})),
        ("get_service", json!({"uuid": svc})),
        (
            "control",
            json!({"resource": "database", "action": "restart", "uuid": db}),
        ),
        ("list_deployments", json!({})),
        ("deploy", json!({"tag_or_uuid": app})),
        (
            "deployment",
            json!({"action": "get", "uuid": "dep-9002", "lines": 50}),
        ),
        (
            "deployment",
            json!({"action": "list_for_app", "uuid": app, "include_logs": true}),
        ),
        ("teams", json!({"action": "get_current_members"})),
        (
            "hetzner",
            json!({"action": "list_ssh_keys", "cloud_provider_token_uuid": "ctok-hetzner"}),
        ),
        ("search_docs", json!({"query": "database backups"})),
        (
            "bulk_env_update",
            json!({"app_uuids": [app], "key": "K", "value": "v"}),
        ),
        ("restart_project_apps", json!({"project_uuid": "proj-saas"})),
        ("stop_all_apps", json!({"confirm": true})),
        ("redeploy_project", json!({"project_uuid": "proj-saas"})),
    ];
    for (tool, actions) in [
        ("projects", &["list", "get", "update", "delete"][..]),
        ("private_keys", &["list", "get", "update", "delete"]),
        (
            "cloud_tokens",
            &["list", "get", "update", "delete", "validate"],
        ),
        ("teams", &["list", "get_current"]),
        (
            "system",
            &["health", "list_resources", "enable_api", "disable_api"],
        ),
    ] {
        for a in actions {
            calls.push((tool, json!({"action": a, "uuid": match tool { "projects" => "proj-saas", "private_keys" => "key-deploy", _ => "ctok-hetzner" }, "name": "renamed"})));
        }
    }
    calls.extend([
        ("system", json!({"action": "list_resources", "include_full": true})),
        ("environments", json!({"action": "get", "project_uuid": "proj-saas"})),
        ("environments", json!({"action": "verify_app", "project_uuid": "proj-saas", "name": "production", "application_uuid": app})),
        ("application", json!({"action": "update", "uuid": app, "name": "x"})),
        ("application", json!({"action": "delete", "uuid": app})),
        ("database", json!({"action": "update", "uuid": db, "postgres_password": "p"})),
        ("database", json!({"action": "move", "uuid": db, "environment_uuid": "env-2"})),
        ("service", json!({"action": "list_containers", "uuid": svc})),
        ("service", json!({"action": "delete", "uuid": svc})),
        ("env_vars", json!({"resource": "application", "action": "list", "uuid": app})),
        ("env_vars", json!({"resource": "application", "action": "list", "uuid": app, "key": "API_SECRET"})),
        ("env_vars", json!({"resource": "service", "action": "list", "uuid": svc})),
        ("github_apps", json!({"action": "list"})),
        ("github_apps", json!({"action": "get", "id": 1})),
        ("github_apps", json!({"action": "delete", "id": 1})),
        ("github_apps", json!({"action": "list_repos", "id": 1})),
        ("database_backups", json!({"action": "list_schedules", "database_uuid": db})),
        ("database_backups", json!({"action": "get_schedule", "database_uuid": db, "backup_uuid": "bkp-nightly"})),
        ("database_backups", json!({"action": "list_executions", "database_uuid": db, "backup_uuid": "bkp-nightly"})),
        ("database_backups", json!({"action": "get_execution", "database_uuid": db, "backup_uuid": "bkp-nightly", "execution_uuid": "bexec-1"})),
        ("storages", json!({"resource": "database", "action": "list", "uuid": db})),
        ("storages", json!({"resource": "database", "action": "backup_delete", "uuid": db, "storage_uuid": "vol-data"})),
        ("scheduled_tasks", json!({"resource": "service", "action": "list", "uuid": svc})),
        ("scheduled_tasks", json!({"resource": "application", "action": "run_once", "uuid": app, "command": "env", "container": "app"})),
        ("tags", json!({"action": "list"})),
        ("tags", json!({"action": "list", "resource": "service", "uuid": svc})),
    ]);
    calls
}

/// Every output a client can see through `peer`, labelled.
async fn every_output(peer: &Peer<RoleClient>, fleet: bool) -> Vec<(String, String)> {
    let inst = |mut v: Value| {
        if fleet {
            v["instance"] = json!("staging");
        }
        v
    };
    let mut out = Vec::new();
    let mut called = BTreeSet::new();
    let mut tool_calls = calls();
    if fleet {
        tool_calls.push(("list_instances", json!({})));
    }
    for (tool, args) in tool_calls {
        let args = if tool == "list_instances" {
            args
        } else {
            inst(args)
        };
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = Some(as_map(args.clone()));
        let r = tokio::time::timeout(TIMEOUT, peer.call_tool(params))
            .await
            .unwrap()
            .unwrap();
        called.insert(tool.to_string());
        out.push((format!("{tool} {args}"), serde_json::to_string(&r).unwrap()));
    }
    let registered: BTreeSet<String> = peer
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(called, registered, "every registered tool is exercised");
    for (name, args) in [
        ("troubleshoot_application", json!({"query": "api-gateway"})),
        (
            "explain_failed_deploy",
            json!({"deployment_uuid": "dep-9002"}),
        ),
        ("estate_health", json!({})),
    ] {
        let mut p: GetPromptRequestParams = serde_json::from_value(json!({"name": name})).unwrap();
        p.arguments = Some(as_map(inst(args)));
        let r = peer.get_prompt(p).await.unwrap();
        out.push((format!("prompt {name}"), serde_json::to_string(&r).unwrap()));
    }
    let listed = peer.list_all_resources().await.unwrap();
    out.push((
        "resources/list".into(),
        serde_json::to_string(&listed).unwrap(),
    ));
    for r in &listed {
        let p: ReadResourceRequestParams = serde_json::from_value(json!({"uri": r.uri})).unwrap();
        let read = peer.read_resource(p).await.unwrap();
        out.push((r.uri.to_string(), serde_json::to_string(&read).unwrap()));
    }
    out
}

fn assert_clean(outputs: &[(String, String)]) {
    for (what, text) in outputs {
        for secret in PLANTED_SECRETS {
            assert!(!text.contains(secret), "{what} leaked {secret}");
        }
    }
}

async fn in_process(setup: Setup, fleet: bool) {
    let h = Harness::start(setup.human(Human::Decline)).await.unwrap();
    assert_clean(&every_output(h.client.peer(), fleet).await);
    // What the human is asked in confirmations carries no secret either.
    let asked: Vec<(String, String)> = h
        .asked()
        .iter()
        .map(|a| ("elicitation".to_string(), a.to_string()))
        .collect();
    assert!(!asked.is_empty());
    assert_clean(&asked);
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
    in_process(Setup::default(), false).await;
}

#[tokio::test]
async fn item_21_no_canary_without_reveal_fleet() {
    in_process(Setup::default().fleet(), true).await;
}

fn fleet_env(fixture: &Fixture) -> String {
    json!([{"name": "staging", "url": fixture.url(), "token": FIXTURE_TOKEN}]).to_string()
}

async fn over_stdio(fleet: bool) {
    let fixture = Fixture::start().await.unwrap();
    let mut cmd = crate::process::command(&fixture);
    if fleet {
        cmd.env("COOLIFY_INSTANCES", fleet_env(&fixture));
    }
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let client = tokio::time::timeout(TIMEOUT, ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    assert_clean(&every_output(client.peer(), fleet).await);
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;
}

#[tokio::test]
async fn item_21_no_canary_over_stdio_single() {
    over_stdio(false).await;
}

#[tokio::test]
async fn item_21_no_canary_over_stdio_fleet() {
    over_stdio(true).await;
}

async fn over_http(fleet: bool) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fixture = Fixture::start().await.unwrap();
    let env = fleet.then(|| fleet_env(&fixture));
    let (mut child, url) =
        crate::process::spawn_http_with(&fixture, &["--no-auth"], None, env).await;
    let transport = StreamableHttpClientTransport::from_uri(url);
    let client = tokio::time::timeout(TIMEOUT, ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    assert_clean(&every_output(client.peer(), fleet).await);
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;
    child.kill().await.unwrap();
}

#[tokio::test]
async fn item_21_no_canary_over_http_single() {
    over_http(false).await;
}

#[tokio::test]
async fn item_21_no_canary_over_http_fleet() {
    over_http(true).await;
}
