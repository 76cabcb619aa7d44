//! GET routes beyond the first list (`routes.rs`) (see [`crate::data_more`]): sub-resources of
//! applications, databases and services, and the team, GitHub, tag and Hetzner endpoints.
//! `None` means "not mine" and falls through to the other routes.

use serde_json::{Value, json};

use crate::data_more as more;
use crate::routes::{NotFoundMode, Reply, find};

fn ok(value: Value) -> Option<Reply> {
    Some(Reply::Json(200, value))
}

/// `/{applications|databases|services}/{uuid}/…` sub-resources.
pub(crate) fn sub_resource(segs: &[&str], mode: NotFoundMode) -> Option<Reply> {
    match segs {
        [_, u, "storages"] => ok(more::storages(u)),
        ["applications" | "services", _, "scheduled-tasks"] => ok(more::scheduled_tasks()),
        [
            "applications" | "services",
            _,
            "scheduled-tasks",
            _,
            "executions",
        ] => ok(more::task_executions()),
        [_, _, "tags"] => ok(more::tags(false)),
        ["services", u, "envs"] => ok(more::service_envs(u)),
        ["services", _, "applications"] => ok(more::service_applications()),
        ["services", _, "databases"] => ok(more::service_databases()),
        ["databases", u, "backups"] => ok(more::database_backups(u)),
        ["databases", u, "backups", b] => {
            Some(find(more::database_backups(u), "uuid", b, "Backup", mode))
        }
        ["databases", _, "backups", _, "executions"] => ok(more::backup_executions()),
        ["databases", _, "backups", _, "executions", e] => {
            let rows = json!([more::backup_execution()]);
            Some(find(rows, "uuid", e, "Execution", mode))
        }
        _ => None,
    }
}

/// Teams, GitHub apps, tags, Hetzner and `/resources`.
pub(crate) fn integrations(segs: &[&str], mode: NotFoundMode) -> Option<Reply> {
    match segs {
        ["resources"] => ok(more::resources()),
        ["teams"] => ok(more::teams()),
        ["teams", "current"] => {
            ok(json!({ "id": 0, "name": "Root Team", "description": null, "personal_team": false }))
        }
        ["teams", "current", "members"] | ["teams", _, "members"] => ok(more::team_members()),
        ["teams", id] => {
            let found = more::teams().as_array().and_then(|t| {
                t.iter()
                    .find(|t| id.parse::<i64>().ok() == t["id"].as_i64())
                    .cloned()
            });
            Some(match (found, mode) {
                (Some(t), _) => Reply::Json(200, t),
                (None, NotFoundMode::Ok200) => Reply::Json(200, json!({ "message": "Not found." })),
                (None, NotFoundMode::Real404) => {
                    Reply::Json(404, json!({ "message": "Team not found." }))
                }
            })
        }
        ["github-apps"] => ok(more::github_apps()),
        ["github-apps", _, "repositories"] => ok(more::github_repositories()),
        ["github-apps", _, "repositories", _, _, "branches"] => ok(more::github_branches()),
        ["tags"] => ok(more::tags(true)),
        ["hetzner", kind] => more::hetzner(kind).map(|v| Reply::Json(200, v)),
        _ => None,
    }
}
