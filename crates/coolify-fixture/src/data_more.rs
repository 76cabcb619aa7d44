//! Canned answers for the endpoints beyond the first fixture's list (`data.rs`): service containers and env,
//! storages, scheduled tasks and their executions, database backups, GitHub apps, teams,
//! tags, Hetzner catalogues and the full `/resources` rows (shapes per `openapi.yaml`).
//!
//! The planted secrets of [`crate::data`] appear here too (the S3 secret of the backup
//! destination, the GitHub app secrets, the service env value): a leak test grepping for
//! them has something to find in every new response kind.

use serde_json::{Value, json};

use crate::data::{
    self, CANARY_BACKUP_S3_SECRET, CANARY_GITHUB_CLIENT_SECRET, CANARY_GITHUB_WEBHOOK_SECRET,
    CANARY_SERVICE_ENV,
};

/// `GET /resources`: every application, database and service as full rows with `type`.
pub fn resources() -> Value {
    let typed = |list: Value, kind: &str| -> Vec<Value> {
        match list {
            Value::Array(rows) => rows
                .into_iter()
                .map(|mut r| {
                    r["type"] = json!(kind);
                    r
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut all = typed(data::applications(), "application");
    all.extend(typed(data::databases(), "standalone-postgresql"));
    all.extend(typed(data::services(), "service"));
    Value::Array(all)
}

/// `GET /services/{uuid}/envs` of `svc-umami`.
pub fn service_envs(uuid: &str) -> Value {
    if uuid != "svc-umami" {
        return json!([]);
    }
    json!([
        { "uuid": "svcenv-1", "key": "APP_SECRET", "value": CANARY_SERVICE_ENV, "real_value": CANARY_SERVICE_ENV, "is_preview": false, "is_buildtime": false, "is_runtime": true },
        { "uuid": "svcenv-2", "key": "DISABLE_TELEMETRY", "value": "1", "real_value": "1", "is_preview": false, "is_buildtime": false, "is_runtime": true }
    ])
}

/// `GET /services/{uuid}/applications`.
pub fn service_applications() -> Value {
    json!([
        { "uuid": "svcapp-umami", "name": "umami", "human_name": "Umami", "fqdn": "https://stats.example.test", "image": "ghcr.io/umami-software/umami:postgresql-latest", "status": "running:healthy", "exclude_from_status": false }
    ])
}

/// `GET /services/{uuid}/databases`.
pub fn service_databases() -> Value {
    json!([
        { "uuid": "svcdb-umami", "name": "postgresql", "human_name": null, "image": "postgres:15-alpine", "status": "running:healthy", "is_public": false }
    ])
}

/// `GET /{collection}/{uuid}/storages`.
pub fn storages(uuid: &str) -> Value {
    json!({
        "persistent_storages": [
            { "id": 1, "uuid": "vol-data", "name": format!("{uuid}-data"), "mount_path": "/data", "host_path": null, "is_preview_suffix_enabled": true }
        ],
        "file_storages": [
            { "id": 2, "uuid": "file-config", "fs_path": format!("/data/coolify/{uuid}/config.yml"), "mount_path": "/app/config.yml", "content": "log_level: info\n", "is_directory": false }
        ]
    })
}

/// `GET /{applications|services}/{uuid}/scheduled-tasks`.
pub fn scheduled_tasks() -> Value {
    json!([
        { "id": 1, "uuid": "task-purge", "enabled": true, "name": "purge-sessions", "command": "php artisan sessions:purge", "frequency": "0 * * * *", "container": null, "timeout": 300, "created_at": "2026-07-01T00:00:00Z", "updated_at": "2026-07-01T00:00:00Z" }
    ])
}

/// `GET /…/scheduled-tasks/{task}/executions`: the first run finished (so `run_once`
/// returns at once).
pub fn task_executions() -> Value {
    json!([
        { "uuid": "texec-1", "status": "success", "message": "Purged 42 expired sessions\n", "created_at": "2026-08-05T09:00:00Z", "finished_at": "2026-08-05T09:00:02Z" }
    ])
}

/// `GET /databases/{uuid}/backups`: the schedule carries its S3 destination, secret
/// included.
pub fn database_backups(uuid: &str) -> Value {
    if uuid != "db-postgres" {
        return json!([]);
    }
    json!([{
        "id": 1, "uuid": "bkp-nightly", "database_type": "App\\Models\\StandalonePostgresql", "database_id": 201,
        "enabled": true, "save_s3": true, "frequency": "0 2 * * *", "dump_all": false, "databases_to_backup": "app_production",
        "database_backup_retention_amount_locally": 7, "database_backup_retention_days_locally": 0,
        "database_backup_retention_amount_s3": 30, "database_backup_retention_days_s3": 0,
        "s3_storage_id": 1,
        "s3": {
            "uuid": "s3-offsite", "name": "offsite-backups", "endpoint": "https://s3.example.test",
            "bucket": "coolify-backups", "region": "eu-central-1", "key": "AKIAFIXTUREACCESSKEY",
            "secret": CANARY_BACKUP_S3_SECRET
        }
    }])
}

/// One backup execution (`message` is command output from the box).
pub fn backup_execution() -> Value {
    json!({
        "uuid": "bexec-1", "filename": "/data/coolify/backups/db-postgres/pg-dump-app_production-1754355600.dmp",
        "size": 12_986_112, "created_at": "2026-08-05T02:00:00Z", "status": "success",
        "message": "pg_dump: dumping contents of table \"public.orders\"\nBackup written (12.4 MB)"
    })
}

/// `GET /databases/{uuid}/backups/{backup}/executions`.
pub fn backup_executions() -> Value {
    json!({ "executions": [backup_execution()] })
}

/// `GET /github-apps`.
pub fn github_apps() -> Value {
    json!([
        {
            "id": 0, "uuid": "gh-public", "name": "Public GitHub", "organization": null, "api_url": "https://api.github.com",
            "html_url": "https://github.com", "custom_user": "git", "custom_port": 22, "app_id": null, "installation_id": null,
            "client_id": null, "client_secret": null, "webhook_secret": null, "is_public": true, "is_system_wide": false, "team_id": 0
        },
        {
            "id": 1, "uuid": "gh-acme", "name": "acme-deployer", "organization": "acme", "api_url": "https://api.github.com",
            "html_url": "https://github.com", "custom_user": "git", "custom_port": 22, "app_id": 123456, "installation_id": 7654321,
            "client_id": "Iv1.fixture0client", "client_secret": CANARY_GITHUB_CLIENT_SECRET,
            "webhook_secret": CANARY_GITHUB_WEBHOOK_SECRET, "private_key_id": 1, "is_public": false, "is_system_wide": false, "team_id": 0
        }
    ])
}

/// `GET /github-apps/{id}/repositories`.
pub fn github_repositories() -> Value {
    json!({ "repositories": [
        { "id": 1001, "name": "shop-frontend", "full_name": "acme/shop-frontend", "private": true, "default_branch": "main" },
        { "id": 1002, "name": "api-gateway", "full_name": "acme/api-gateway", "private": true, "default_branch": "main" }
    ]})
}

/// `GET /github-apps/{id}/repositories/{owner}/{repo}/branches`.
pub fn github_branches() -> Value {
    json!({ "branches": [
        { "name": "main", "protected": true },
        { "name": "develop", "protected": false }
    ]})
}

/// `GET /teams`.
pub fn teams() -> Value {
    json!([
        { "id": 0, "name": "Root Team", "description": null, "personal_team": false },
        { "id": 1, "name": "Acme Ops", "description": "Operations", "personal_team": false }
    ])
}

/// `GET /teams/{id}/members` (and `/teams/current/members`).
pub fn team_members() -> Value {
    json!([
        { "id": 0, "name": "Root User", "email": "root@example.test", "email_verified_at": "2026-01-01T00:00:00Z", "force_password_reset": false }
    ])
}

/// `GET /tags` and `GET /{collection}/{uuid}/tags`.
pub fn tags(all: bool) -> Value {
    if all {
        json!([{ "uuid": "tag-prod", "name": "production" }, { "uuid": "tag-web", "name": "web" }])
    } else {
        json!([{ "uuid": "tag-prod", "name": "production" }])
    }
}

/// `GET /hetzner/{kind}`.
pub fn hetzner(kind: &str) -> Option<Value> {
    Some(match kind {
        "locations" => {
            json!([{ "id": 1, "name": "fsn1", "description": "Falkenstein DC Park 1", "country": "DE", "city": "Falkenstein" }])
        }
        "server-types" => {
            json!([{ "id": 22, "name": "cpx11", "description": "CPX 11", "cores": 2, "memory": 2.0, "disk": 40 }])
        }
        "images" => {
            json!([{ "id": 161_547_269, "name": "ubuntu-24.04", "description": "Ubuntu 24.04", "type": "system" }])
        }
        "ssh-keys" => {
            json!([{ "id": 501, "name": "ops-laptop", "fingerprint": "b7:2f:30:a0:2f:6c:58:6c:21:04:58:61:ba:06:3b:2f" }])
        }
        _ => return None,
    })
}
