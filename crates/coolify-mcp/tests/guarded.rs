//! The 18 guarded operations (docs/coolify-mcp.md; the golden replay compares their texts with the
//! reference; this pins the safety properties directly): require-human refuses every one
//! with nothing sent, a declining human is asked exactly once and nothing is changed, an
//! accepting human gets the operation, and the unguarded neighbours never ask.

use serde_json::{Value, json};

use crate::common::{Harness, Human, Setup};

/// A call for each of the 18 guarded operations (22 calls: the move/delete
/// pairs and the two database-update triggers are separate calls), with the mutation it
/// performs once approved.
fn guarded() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "projects",
            json!({"action": "delete", "uuid": "proj-saas"}),
            "DELETE /api/v1/projects/proj-saas",
        ),
        (
            "environments",
            json!({"action": "delete", "project_uuid": "proj-saas", "name": "staging"}),
            "DELETE /api/v1/projects/proj-saas/environments/staging",
        ),
        (
            "application",
            json!({"action": "move", "uuid": "app-api", "environment_uuid": "env-2"}),
            "POST /api/v1/applications/app-api/move",
        ),
        (
            "application",
            json!({"action": "delete", "uuid": "app-api"}),
            "DELETE /api/v1/applications/app-api",
        ),
        (
            "database",
            json!({"action": "move", "uuid": "db-postgres", "environment_uuid": "env-2"}),
            "POST /api/v1/databases/db-postgres/move",
        ),
        (
            "database",
            json!({"action": "delete", "uuid": "db-postgres"}),
            "DELETE /api/v1/databases/db-postgres",
        ),
        (
            "database",
            json!({"action": "update", "uuid": "db-postgres", "is_public": true}),
            "PATCH /api/v1/databases/db-postgres",
        ),
        (
            "database",
            json!({"action": "update", "uuid": "db-postgres", "postgres_password": "new"}),
            "PATCH /api/v1/databases/db-postgres",
        ),
        (
            "database",
            json!({"action": "create", "type": "redis", "server_uuid": "srv1-hetzner", "project_uuid": "proj-saas", "is_public": true}),
            "POST /api/v1/databases/redis",
        ),
        (
            "service",
            json!({"action": "move", "uuid": "svc-umami", "environment_uuid": "env-2"}),
            "POST /api/v1/services/svc-umami/move",
        ),
        (
            "service",
            json!({"action": "delete", "uuid": "svc-umami"}),
            "DELETE /api/v1/services/svc-umami",
        ),
        (
            "service",
            json!({"action": "update_application", "uuid": "svc-umami", "app_uuid": "svcapp-umami", "force_domain_override": true}),
            "PATCH /api/v1/services/svc-umami/applications/svcapp-umami?force_domain_override=true",
        ),
        (
            "private_keys",
            json!({"action": "update", "uuid": "key-deploy", "private_key": "new material"}),
            "PATCH /api/v1/security/keys/key-deploy",
        ),
        (
            "private_keys",
            json!({"action": "delete", "uuid": "key-deploy"}),
            "DELETE /api/v1/security/keys/key-deploy",
        ),
        (
            "github_apps",
            json!({"action": "delete", "id": 1}),
            "DELETE /api/v1/github-apps/1",
        ),
        (
            "cloud_tokens",
            json!({"action": "delete", "uuid": "ctok-hetzner"}),
            "DELETE /api/v1/cloud-tokens/ctok-hetzner",
        ),
        (
            "storages",
            json!({"resource": "database", "action": "backup_delete", "uuid": "db-postgres", "storage_uuid": "vol-data"}),
            "DELETE /api/v1/databases/db-postgres/storages/vol-data/backups",
        ),
        (
            "system",
            json!({"action": "disable_api"}),
            "POST /api/v1/disable",
        ),
        (
            "bulk_env_update",
            json!({"app_uuids": ["app-api", "app-shop", "app-logviewer", "app-x"], "key": "K", "value": "never-shown"}),
            "PATCH /api/v1/applications/app-x/envs",
        ),
        (
            "restart_project_apps",
            json!({"project_uuid": "proj-saas"}),
            "POST /api/v1/applications/app-api/restart",
        ),
        (
            "redeploy_project",
            json!({"project_uuid": "proj-saas"}),
            "POST /api/v1/deploy?tag=app-api&force=true",
        ),
        (
            "stop_all_apps",
            json!({"confirm": true}),
            "POST /api/v1/applications/app-shop/stop",
        ),
    ]
}

#[tokio::test]
async fn item_54_require_human_refuses_every_guarded_operation_with_nothing_sent() {
    let h = Harness::start(Setup::default().require_human())
        .await
        .unwrap();
    for (tool, args, _) in guarded() {
        let text = h.call(tool, args.clone()).await;
        assert!(
            text.starts_with("Aborted: this server requires human confirmation"),
            "{tool} {args}: {text}"
        );
        assert!(h.log().is_empty(), "{tool} {args} sent {:?}", h.log());
    }
}

#[tokio::test]
async fn item_51_a_declining_human_is_asked_once_and_nothing_changes() {
    let h = Harness::start(Setup::default().human(Human::Decline))
        .await
        .unwrap();
    for (tool, args, _) in guarded() {
        let before = h.asked().len();
        let text = h.call(tool, args.clone()).await;
        assert!(
            text.starts_with("Aborted: the user declined."),
            "{tool} {args}: {text}"
        );
        assert_eq!(h.asked().len(), before + 1, "{tool} {args} asks once");
        assert!(
            h.fixture.mutations().is_empty(),
            "{tool} {args}: {:?}",
            h.fixture.mutations()
        );
    }
    // The secret value of a bulk update never reaches the dialog.
    assert!(
        h.asked()
            .iter()
            .all(|a| !a.to_string().contains("never-shown"))
    );
}

#[tokio::test]
async fn item_52_an_accepting_human_gets_the_operation() {
    let h = Harness::start(Setup::default().human(Human::Accept))
        .await
        .unwrap();
    for (tool, args, mutation) in guarded() {
        h.fixture.clear_requests();
        h.call(tool, args.clone()).await;
        let sent: Vec<String> = h
            .fixture
            .mutations()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path_and_query()))
            .collect();
        assert!(
            sent.iter().any(|m| m == mutation),
            "{tool} {args}: {sent:?}"
        );
    }
}

#[tokio::test]
async fn item_57_unguarded_neighbours_never_ask() {
    let h = Harness::start(Setup::default().human(Human::Decline))
        .await
        .unwrap();
    for (tool, args) in [
        (
            "bulk_env_update",
            json!({"app_uuids": ["app-api", "app-shop", "app-logviewer"], "key": "K", "value": "v"}),
        ),
        (
            "private_keys",
            json!({"action": "update", "uuid": "key-deploy", "name": "renamed"}),
        ),
        (
            "database",
            json!({"action": "update", "uuid": "db-postgres", "limits_memory": "1g"}),
        ),
        (
            "database",
            json!({"action": "create", "type": "redis", "server_uuid": "s", "project_uuid": "p"}),
        ),
        (
            "service",
            json!({"action": "update_application", "uuid": "svc-umami", "app_uuid": "a", "url": "https://x.test"}),
        ),
        (
            "service",
            json!({"action": "stop_application", "uuid": "svc-umami", "app_uuid": "a"}),
        ),
        (
            "storages",
            json!({"resource": "application", "action": "delete", "uuid": "app-api", "storage_uuid": "s"}),
        ),
        (
            "database_backups",
            json!({"action": "delete", "database_uuid": "db-postgres", "backup_uuid": "b"}),
        ),
        (
            "scheduled_tasks",
            json!({"resource": "application", "action": "delete", "uuid": "app-api", "task_uuid": "t"}),
        ),
        (
            "tags",
            json!({"action": "detach", "resource": "application", "uuid": "app-api", "tag_uuid": "t"}),
        ),
        ("system", json!({"action": "enable_api"})),
        (
            "control",
            json!({"resource": "application", "action": "stop", "uuid": "app-api"}),
        ),
    ] {
        let text = h.call(tool, args.clone()).await;
        assert!(!text.starts_with("Aborted"), "{tool} {args}: {text}");
    }
    assert!(h.asked().is_empty(), "{:?}", h.asked());
    assert!(!h.fixture.mutations().is_empty());
}
