//! Behaviour of the tools beyond the first 21 that the golden replay cannot show on its
//! own (the deliberate differences from the reference): masking and reveal of the new
//! secret kinds, the read-only `diagnose_server`, the merged database kinds of
//! `environments get` and `run_once` polling.

use coolify_fixture::data::{
    CANARY_BACKUP_S3_SECRET, CANARY_COMPOSE_SECRET, CANARY_DB_PASSWORD,
    CANARY_GITHUB_CLIENT_SECRET, CANARY_HETZNER_TOKEN, CANARY_PRIVATE_KEY, CANARY_SERVICE_ENV,
};
use coolify_fixture::{Fixture, Reply};
use serde_json::{Value, json};

use crate::common::{Harness, Setup, quick_timing};

#[tokio::test]
async fn item_17_database_credentials_and_key_material_are_masked() {
    let h = Harness::start(Setup::default()).await.unwrap();
    let db = h
        .call_json("get_database", json!({"uuid": "db-postgres"}))
        .await;
    assert_eq!(db["postgres_password"], "***");
    assert_eq!(db["internal_db_url"], "***");
    assert_eq!(
        db["external_db_url"],
        Value::Null,
        "null means no secret set"
    );
    let keys = h.call_json("private_keys", json!({"action": "list"})).await;
    assert_eq!(keys[0]["private_key"], "***");
    // reveal returns the resource's own credentials…
    let db = h
        .call(
            "get_database",
            json!({"uuid": "db-postgres", "reveal": true}),
        )
        .await;
    assert!(db.contains(CANARY_DB_PASSWORD));
    let svc = h
        .call("get_service", json!({"uuid": "svc-umami", "reveal": true}))
        .await;
    assert!(svc.contains(CANARY_COMPOSE_SECRET) && svc.contains(CANARY_SERVICE_ENV));
    let full = h
        .call(
            "system",
            json!({"action": "list_resources", "include_full": true, "reveal": true}),
        )
        .await;
    assert!(full.contains(CANARY_DB_PASSWORD));
    // …but never the always-masked kinds, whatever the caller asks for.
    for (tool, args) in [
        (
            "private_keys",
            json!({"action": "get", "uuid": "key-deploy"}),
        ),
        ("github_apps", json!({"action": "get", "id": 1})),
        (
            "cloud_tokens",
            json!({"action": "get", "uuid": "ctok-hetzner"}),
        ),
        (
            "database_backups",
            json!({"action": "list_schedules", "database_uuid": "db-postgres"}),
        ),
        (
            "system",
            json!({"action": "list_resources", "include_full": true, "reveal": true}),
        ),
    ] {
        let text = h.call(tool, args.clone()).await;
        for secret in [
            CANARY_PRIVATE_KEY,
            CANARY_GITHUB_CLIENT_SECRET,
            CANARY_HETZNER_TOKEN,
            CANARY_BACKUP_S3_SECRET,
        ] {
            assert!(!text.contains(secret), "{tool} {args} leaked {secret}");
        }
    }
}

#[tokio::test]
async fn read_only_diagnose_server_sends_no_post_and_says_so() {
    let h = Harness::start(Setup::default().read_only()).await.unwrap();
    let v = h
        .call_json("diagnose_server", json!({"query": "hetzner-fsn1"}))
        .await;
    assert!(h.fixture.mutations().is_empty(), "{:?}", h.log());
    assert_eq!(
        v["validation"]["message"],
        "Not run: this server is read-only, and validating a server is a write (POST /servers/srv1-hetzner/validate). Use validate_server on a server that is not read-only."
    );
    assert_eq!(v["server"]["uuid"], "srv1-hetzner");
    // A read-write server still validates.
    let h = Harness::start(Setup::default()).await.unwrap();
    h.call_json("diagnose_server", json!({"query": "hetzner-fsn1"}))
        .await;
    assert!(
        h.log()
            .contains(&"POST /api/v1/servers/srv1-hetzner/validate".to_string())
    );
}

#[tokio::test]
async fn environments_get_adds_the_database_kinds_the_endpoint_omits() {
    // Coolify's environment endpoint leaves dragonfly, keydb and clickhouse out; they are
    // merged back from the database list by environment id, uuid or name.
    let fixture = Fixture::builder()
        .route(
            "GET",
            "/databases",
            Reply::Json(
                200,
                json!([
                    {"uuid": "db-df", "name": "cache", "database_type": "standalone-dragonfly", "status": "running:healthy", "environment_id": 1},
                    {"uuid": "db-ch", "name": "events", "database_type": "standalone-clickhouse", "environment_name": "production"},
                    {"uuid": "db-other", "name": "elsewhere", "database_type": "standalone-keydb", "environment_id": 7, "environment_name": "x", "environment_uuid": "y"}
                ]),
            ),
        )
        .start()
        .await
        .unwrap();
    let h = Harness::with_fixture(fixture, Setup::default())
        .await
        .unwrap();
    let env = h
        .call_json(
            "environments",
            json!({"action": "get", "project_uuid": "proj-saas"}),
        )
        .await;
    assert_eq!(env["name"], "production");
    assert_eq!(env["dragonflys"][0]["uuid"], "db-df");
    assert_eq!(env["clickhouses"][0]["uuid"], "db-ch");
    assert!(env.get("keydbs").is_none(), "{env}");
}

#[tokio::test]
async fn run_once_polls_until_an_execution_finishes_and_always_cleans_up() {
    let fixture = Fixture::builder()
        .route(
            "GET",
            "/applications/app-api/scheduled-tasks/fixture-created/executions",
            Reply::Json(200, json!([{"uuid": "e1", "status": "running"}])),
        )
        .start()
        .await
        .unwrap();
    let setup = Setup {
        timing: quick_timing(),
        ..Setup::default()
    };
    let h = Harness::with_fixture(fixture, setup).await.unwrap();
    let text = h
        .call(
            "scheduled_tasks",
            json!({"resource": "application", "action": "run_once", "uuid": "app-api", "command": "sleep 600", "container": "app", "wait_seconds": 12}),
        )
        .await;
    assert_eq!(
        text,
        "Timed out after 12s waiting for one-off task fixture-created to produce an execution. One-off task fixture-created deleted."
    );
    let log = h.log();
    let polls = log.iter().filter(|l| l.ends_with("/executions")).count();
    assert_eq!(polls, 3, "ceil(12 / 5) polls: {log:?}");
    assert_eq!(
        log.last().unwrap(),
        "DELETE /api/v1/applications/app-api/scheduled-tasks/fixture-created"
    );
}
