//! Integration tests of coolify-api against coolify-fixture (loopback only).
//!
//! Covers: token file reload and the single 401 retry, extra headers,
//! path-injection refusal (deliberate deviation), error texts without the token,
//! timeouts (asserting which path fired, never the clock), the legacy GET fallback, and the
//! request shapes of the endpoints the core tools use.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns: a setup step that fails stops the test at once"
)]

use std::path::Path;
use std::time::{Duration, SystemTime};

use coolify_api::{
    ApiError, ApplicationSource, BuildError, ControlAction, CoolifyClient, DeleteOptions,
    DeployTarget, EnvTarget, Force, InvalidIdReason, LogsQuery, Paging, ResourceKind, SkipTake,
    TokenSpec,
};
use coolify_fixture::{AuthSeen, Behaviour, FIXTURE_TOKEN, Fixture, NotFoundMode, Reply};
use serde_json::{Value, json};

fn client(fixture: &Fixture) -> CoolifyClient {
    CoolifyClient::builder(fixture.url(), TokenSpec::Inline(FIXTURE_TOKEN.to_owned()))
        .build()
        .unwrap()
}

/// (method, path?query) of every recorded request.
fn log(fixture: &Fixture) -> Vec<(String, String)> {
    fixture
        .requests()
        .into_iter()
        .map(|r| (r.method.clone(), r.path_and_query()))
        .collect()
}

fn req(method: &str, path: &str) -> (String, String) {
    (method.to_owned(), path.to_owned())
}

/// Write a token file and give it an explicit mtime so rotation never depends on clock
/// granularity.
fn write_token(path: &Path, token: &str, mtime_secs: u64) {
    std::fs::write(path, token).unwrap();
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(mtime_secs))
        .unwrap();
}

#[tokio::test]
async fn item_6_token_file_is_trimmed_and_a_rotation_is_used_on_the_next_request() {
    let fixture = Fixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    write_token(&file, &format!("{FIXTURE_TOKEN}\n"), 1_000);
    let api = CoolifyClient::builder(fixture.url(), TokenSpec::File(file.clone()))
        .build()
        .unwrap();
    assert_eq!(api.version().await.unwrap(), "4.1.2");

    fixture.set_token("rotated-token");
    write_token(&file, "rotated-token\n", 2_000);
    api.list_servers(Paging::NONE).await.unwrap();

    let auth: Vec<AuthSeen> = fixture.requests().iter().map(|r| r.auth).collect();
    assert_eq!(
        auth,
        vec![AuthSeen::Accepted, AuthSeen::Accepted],
        "the new mtime made the client re-read"
    );
}

#[tokio::test]
async fn item_6_a_401_forces_a_reread_and_exactly_one_retry() {
    let fixture = Fixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    write_token(&file, FIXTURE_TOKEN, 1_000);
    let api = CoolifyClient::builder(fixture.url(), TokenSpec::File(file.clone()))
        .build()
        .unwrap();

    // Rotate on the server and in the file, but keep the old mtime: only the 401 path can
    // notice the change.
    fixture.set_token("rotated-token");
    write_token(&file, "rotated-token", 1_000);
    let servers = api.list_servers(Paging::NONE).await.unwrap();
    assert_eq!(servers.as_array().map(Vec::len), Some(2));
    let auth: Vec<AuthSeen> = fixture.requests().iter().map(|r| r.auth).collect();
    assert_eq!(auth, vec![AuthSeen::Rejected, AuthSeen::Accepted]);
}

#[tokio::test]
async fn a_401_with_an_unchanged_token_is_not_retried_and_never_echoes_the_token() {
    let fixture = Fixture::builder()
        .token("the-real-one")
        .start()
        .await
        .unwrap();
    let api = CoolifyClient::builder(
        fixture.url(),
        TokenSpec::Inline("secret-token-xyz".to_owned()),
    )
    .build()
    .unwrap();
    let err = api.application("app-api").await.unwrap_err();
    assert_eq!(err.status(), Some(401));
    assert_eq!(
        err.to_string(),
        "Unauthenticated. (Check that COOLIFY_ACCESS_TOKEN is valid and has the required scopes for this operation. \
On Coolify v4.2+, tokens belonging to a Member-role user are read-only and cannot deploy, start, stop, or modify resources.)"
    );
    assert!(
        !format!("{err:?}").contains("secret-token-xyz"),
        "Debug leaks the token: {err:?}"
    );
    assert_eq!(
        fixture.requests().len(),
        1,
        "no retry without a changed token"
    );
}

#[tokio::test]
async fn an_upstream_message_echoing_the_token_is_scrubbed() {
    let token = "tok-echo-123456";
    let fixture = Fixture::builder()
        .token(token)
        .route(
            "GET",
            "/teams",
            Reply::Json(500, json!({ "message": format!("bad token {token} here") })),
        )
        .start()
        .await
        .unwrap();
    let api = CoolifyClient::builder(fixture.url(), TokenSpec::Inline(token.to_owned()))
        .build()
        .unwrap();
    let err = api.teams().await.unwrap_err();
    assert_eq!(err.to_string(), "bad token *** here");
}

#[tokio::test]
async fn a_vanished_token_file_keeps_the_last_good_token() {
    let fixture = Fixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    write_token(&file, FIXTURE_TOKEN, 1_000);
    let api = CoolifyClient::builder(fixture.url(), TokenSpec::File(file.clone()))
        .build()
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    api.list_projects(Paging::NONE).await.unwrap();
    assert_eq!(fixture.requests()[0].auth, AuthSeen::Accepted);
}

#[test]
fn a_missing_or_empty_token_file_fails_the_build_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = CoolifyClient::builder("http://127.0.0.1:9", TokenSpec::File(missing.clone()))
        .build()
        .unwrap_err();
    assert!(
        matches!(&err, BuildError::TokenFileUnreadable { path, .. } if *path == missing),
        "{err:?}"
    );
    let empty = dir.path().join("empty");
    std::fs::write(&empty, " \n").unwrap();
    let err = CoolifyClient::builder("http://127.0.0.1:9", TokenSpec::File(empty.clone()))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("Coolify access token file is empty: {}", empty.display())
    );
    let err = CoolifyClient::builder("http://127.0.0.1:9", TokenSpec::Inline(String::new()))
        .build()
        .unwrap_err();
    assert!(matches!(err, BuildError::EmptyToken));
}

#[tokio::test]
async fn headers_carry_json_bearer_cloudflare_pair_and_overrides() {
    let fixture = Fixture::start().await.unwrap();
    let api = CoolifyClient::builder(
        format!("{}/", fixture.url()),
        TokenSpec::Inline(FIXTURE_TOKEN.to_owned()),
    )
    .cloudflare_access("cf-id", "cf-secret")
    .header("CF-Access-Client-Secret", "flag-wins")
    .header("X-Extra", "a")
    .header("x-extra", "b")
    .header("Authorization", "Bearer hijack")
    .header("Content-Type", "text/plain")
    .build()
    .unwrap();
    api.list_applications(Paging::NONE).await.unwrap();
    let seen = &fixture.requests()[0];
    assert_eq!(seen.auth, AuthSeen::Accepted);
    assert_eq!(
        seen.path, "/api/v1/applications",
        "one trailing slash of the base URL is stripped"
    );
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_eq!(seen.header("cf-access-client-id"), Some("cf-id"));
    assert_eq!(seen.header("cf-access-client-secret"), Some("flag-wins"));
    assert_eq!(seen.header("x-extra"), Some("b"));
    assert_eq!(
        seen.headers
            .iter()
            .filter(|(n, _)| n == "content-type")
            .count(),
        1
    );
    assert!(
        seen.header("authorization").is_none(),
        "the fixture never records the token"
    );
}

#[tokio::test]
async fn path_injection_is_refused_or_stays_inside_one_segment() {
    // Deliberate deviation from the reference: `../servers` never reaches
    // `/api/v1/servers`, and `?reveal=true` never becomes a query string.
    let fixture = Fixture::start().await.unwrap();
    let api = client(&fixture);
    for bad in ["../servers", "..", ".", "", "a/b", "a\\b"] {
        let err = api.application(bad).await.unwrap_err();
        assert!(
            matches!(err, ApiError::InvalidId { what: "uuid", .. }),
            "{bad:?}: {err:?}"
        );
    }
    let err = api.application("../servers").await.unwrap_err();
    assert!(matches!(
        err,
        ApiError::InvalidId {
            reason: InvalidIdReason::Separator,
            ..
        }
    ));
    assert!(
        err.to_string().contains("nothing was sent to Coolify"),
        "{err}"
    );
    assert!(fixture.requests().is_empty(), "refused ids send nothing");

    let body = api.application("app-api?reveal=true").await.unwrap();
    assert_eq!(
        body,
        json!({ "message": "Not found." }),
        "an unknown id, not app-api with a query"
    );
    api.environment("proj-saas", "prod#frag").await.unwrap();
    let seen = fixture.requests();
    assert_eq!(seen[0].path, "/api/v1/applications/app-api%3Freveal%3Dtrue");
    assert_eq!(seen[0].query, None);
    assert_eq!(seen[1].path, "/api/v1/projects/proj-saas/prod%23frag");
}

#[tokio::test]
async fn a_real_404_carries_status_message_and_hint() {
    let fixture = Fixture::builder()
        .not_found(NotFoundMode::Real404)
        .start()
        .await
        .unwrap();
    let api = client(&fixture);
    let err = api.application("app-missing").await.unwrap_err();
    assert_eq!(err.status(), Some(404));
    assert!(!err.is_routing_catch_all());
    assert_eq!(
        err.to_string(),
        "Application not found. (The uuid may belong to a different resource type than requested \
(e.g. an application uuid used on a service/database route).)"
    );
    // The routing catch-all is recognisable without looking at the text.
    let err = api
        .get(&coolify_api::ApiPath::new("no-such-route"))
        .await
        .unwrap_err();
    assert!(err.is_routing_catch_all(), "{err:?}");
}

#[tokio::test]
async fn validation_errors_are_appended() {
    let fixture = Fixture::builder()
        .route("POST", "/projects", Reply::Json(422, json!({ "message": "Validation failed.", "errors": { "name": ["The name field is required."] } })))
        .start()
        .await
        .unwrap();
    let err = client(&fixture)
        .create_project(&json!({ "description": "x" }))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Validation failed. - name: The name field is required."
    );
}

#[tokio::test]
async fn a_refused_port_is_a_connect_error_naming_the_base_url() {
    let fixture = Fixture::start().await.unwrap();
    let url = fixture.url().to_owned();
    fixture.shutdown().await;
    let api = CoolifyClient::builder(&url, TokenSpec::Inline(FIXTURE_TOKEN.to_owned()))
        .build()
        .unwrap();
    let err = api.list_servers(Paging::NONE).await.unwrap_err();
    assert!(matches!(err, ApiError::Connect { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "Failed to connect to Coolify server at {url}. Please check if the server is running and accessible."
        )
    );
    assert!(err.is_unreachable());
}

#[tokio::test]
async fn a_hanging_instance_hits_the_request_timeout() {
    let fixture = Fixture::builder()
        .behaviour(Behaviour::Hanging)
        .start()
        .await
        .unwrap();
    let api = CoolifyClient::builder(fixture.url(), TokenSpec::Inline(FIXTURE_TOKEN.to_owned()))
        .request_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let err = api.list_applications(Paging::NONE).await.unwrap_err();
    match &err {
        ApiError::Timeout {
            method,
            path,
            after,
            ..
        } => {
            assert_eq!(
                (method.as_str(), path.as_str(), *after),
                ("GET", "/applications", Duration::from_millis(200))
            );
        }
        other => panic!("expected the timeout path, got {other:?}"),
    }
    assert!(!err.to_string().contains(FIXTURE_TOKEN));
    assert!(
        err.to_string()
            .ends_with("within 0.2 s. Check that the server is up and reachable, or raise COOLIFY_REQUEST_TIMEOUT (seconds)."),
        "{err}"
    );
    // A fleet entry's client names its own setting.
    let api = CoolifyClient::builder(fixture.url(), TokenSpec::Inline(FIXTURE_TOKEN.to_owned()))
        .request_timeout(Duration::from_secs(1))
        .timeout_setting("COOLIFY_INSTANCES[1].request_timeout")
        .build()
        .unwrap();
    let err = api.list_applications(Paging::NONE).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("within 1 s. Check that the server is up and reachable, or raise COOLIFY_INSTANCES[1].request_timeout (seconds)."),
        "{err}"
    );
}

#[tokio::test]
async fn a_hanging_route_times_out_while_others_answer() {
    let fixture = Fixture::builder()
        .route("GET", "/services", Reply::Hang)
        .start()
        .await
        .unwrap();
    let api = CoolifyClient::builder(fixture.url(), TokenSpec::Inline(FIXTURE_TOKEN.to_owned()))
        .request_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    assert!(matches!(
        api.list_services(Paging::NONE).await,
        Err(ApiError::Timeout { .. })
    ));
    assert!(api.list_databases(Paging::NONE).await.is_ok());
}

#[tokio::test]
async fn version_is_trimmed_text_and_cached() {
    let fixture = Fixture::start().await.unwrap();
    let api = client(&fixture);
    assert_eq!(api.cached_version(), None);
    assert_eq!(api.version().await.unwrap(), "4.1.2");
    assert_eq!(api.version().await.unwrap(), "4.1.2");
    assert_eq!(api.cached_version().as_deref(), Some("4.1.2"));
    assert_eq!(log(&fixture), vec![req("GET", "/api/v1/version")]);
}

#[tokio::test]
async fn version_errors_are_plain_status_lines() {
    let fixture = Fixture::builder().token("other").start().await.unwrap();
    let err = client(&fixture).version().await.unwrap_err();
    assert_eq!(err.to_string(), "HTTP 401: Unauthorized");
}

#[tokio::test]
async fn validate_falls_back_to_get_on_the_catch_all_and_remembers_it() {
    let fixture = Fixture::builder()
        .route(
            "POST",
            "/servers/srv1-hetzner/validate",
            Reply::Json(
                404,
                json!({ "message": "Not found.", "docs": "https://coolify.io/docs" }),
            ),
        )
        .route(
            "GET",
            "/servers/srv1-hetzner/validate",
            Reply::Json(200, json!({ "message": "Validation started." })),
        )
        .start()
        .await
        .unwrap();
    let api = client(&fixture);
    assert_eq!(
        api.validate_server("srv1-hetzner").await.unwrap(),
        json!({ "message": "Validation started." })
    );
    api.validate_server("srv1-hetzner").await.unwrap();
    assert_eq!(
        log(&fixture),
        vec![
            req("POST", "/api/v1/servers/srv1-hetzner/validate"),
            req("GET", "/api/v1/servers/srv1-hetzner/validate"),
            req("GET", "/api/v1/servers/srv1-hetzner/validate"),
        ]
    );
}

#[tokio::test]
async fn validate_posts_on_a_current_instance_and_a_500_never_retries() {
    let fixture = Fixture::start().await.unwrap();
    let api = client(&fixture);
    api.validate_server("srv1-hetzner").await.unwrap();
    assert_eq!(
        log(&fixture),
        vec![req("POST", "/api/v1/servers/srv1-hetzner/validate")]
    );

    let fixture = Fixture::builder()
        .route(
            "POST",
            "/servers/srv1-hetzner/validate",
            Reply::Json(500, json!({})),
        )
        .start()
        .await
        .unwrap();
    let err = client(&fixture)
        .validate_server("srv1-hetzner")
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "HTTP 500: Internal Server Error");
    assert_eq!(fixture.requests().len(), 1);
}

#[tokio::test]
async fn read_endpoints_match_the_reference_mapping() {
    let fixture = Fixture::start().await.unwrap();
    let api = client(&fixture);
    api.list_applications(Paging {
        page: Some(2),
        per_page: Some(2),
    })
    .await
    .unwrap();
    let logs = api
        .logs(
            ResourceKind::Application,
            "app-api",
            None,
            LogsQuery {
                lines: 50,
                show_timestamps: None,
            },
        )
        .await
        .unwrap();
    assert!(logs.ends_with("process exited with code 1"), "{logs}");
    api.logs(
        ResourceKind::Service,
        "svc-umami",
        Some("umami"),
        LogsQuery {
            lines: 10,
            show_timestamps: Some(true),
        },
    )
    .await
    .unwrap();
    api.envs(EnvTarget {
        kind: ResourceKind::Application,
        uuid: "app-api",
    })
    .await
    .unwrap();
    api.application_deployments("app-api", None).await.unwrap();
    api.application_deployments("app-api", Some(SkipTake { skip: 10, take: 10 }))
        .await
        .unwrap();
    api.environment("proj-saas", "production").await.unwrap();
    assert_eq!(
        log(&fixture),
        vec![
            req("GET", "/api/v1/applications?page=2&per_page=2"),
            req("GET", "/api/v1/applications/app-api/logs?lines=50"),
            req(
                "GET",
                "/api/v1/services/svc-umami/logs?sub_service_name=umami&lines=10&show_timestamps=true"
            ),
            req("GET", "/api/v1/applications/app-api/envs"),
            req("GET", "/api/v1/deployments/applications/app-api"),
            req(
                "GET",
                "/api/v1/deployments/applications/app-api?skip=10&take=10"
            ),
            req("GET", "/api/v1/projects/proj-saas/production"),
        ]
    );
}

#[tokio::test]
async fn write_endpoints_match_the_reference_mapping() {
    let fixture = Fixture::start().await.unwrap();
    let api = client(&fixture);
    api.deploy(&DeployTarget::detect("app-api"), Force::No)
        .await
        .unwrap();
    api.deploy(
        &DeployTarget::detect("h8k3m2n4p5q6r7s8t9u0v1w2"),
        Force::Yes,
    )
    .await
    .unwrap();
    // The reference builds `/deploy?tag=` with encodeURIComponent: a space is %20, not +.
    api.deploy(&DeployTarget::detect("web frontend"), Force::No)
        .await
        .unwrap();
    api.control(
        ResourceKind::Application,
        "app-api",
        ControlAction::Restart { pull_latest: true },
    )
    .await
    .unwrap();
    api.control(
        ResourceKind::Service,
        "svc-umami",
        ControlAction::Restart { pull_latest: true },
    )
    .await
    .unwrap();
    api.delete_resource(
        ResourceKind::Application,
        "app-api",
        DeleteOptions::default(),
    )
    .await
    .unwrap();
    api.delete_resource(
        ResourceKind::Application,
        "app-api",
        DeleteOptions {
            delete_volumes: Some(false),
            ..DeleteOptions::default()
        },
    )
    .await
    .unwrap();
    api.move_resource(ResourceKind::Application, "app-api", "env-prod")
        .await
        .unwrap();
    api.create_application(ApplicationSource::Public, &json!({ "name": "x" }))
        .await
        .unwrap();
    api.cancel_deployment("dep-9002").await.unwrap();
    assert_eq!(
        log(&fixture),
        vec![
            req("POST", "/api/v1/deploy?tag=app-api&force=false"),
            req(
                "POST",
                "/api/v1/deploy?uuid=h8k3m2n4p5q6r7s8t9u0v1w2&force=true"
            ),
            req("POST", "/api/v1/deploy?tag=web%20frontend&force=false"),
            req("POST", "/api/v1/applications/app-api/restart"),
            req("POST", "/api/v1/services/svc-umami/restart?latest=true"),
            req("DELETE", "/api/v1/applications/app-api"),
            req(
                "DELETE",
                "/api/v1/applications/app-api?delete_volumes=false"
            ),
            req("POST", "/api/v1/applications/app-api/move"),
            req("POST", "/api/v1/applications/public"),
            req("POST", "/api/v1/deployments/dep-9002/cancel"),
        ]
    );
    let bodies: Vec<String> = fixture.requests().iter().map(|r| r.body.clone()).collect();
    assert_eq!(bodies[7], r#"{"environment_uuid":"env-prod"}"#);
    assert_eq!(bodies[8], r#"{"name":"x"}"#);
    assert_eq!(bodies[0], "", "POST /deploy has no body");
}

#[tokio::test]
async fn typed_views_decode_the_fixture_estate() {
    let fixture = Fixture::start().await.unwrap();
    let api = client(&fixture);
    let apps = api.list_applications_typed().await.unwrap();
    let names: Vec<&str> = apps.iter().filter_map(|a| a.name.as_deref()).collect();
    assert_eq!(names, ["shop-frontend", "api-gateway", "log-viewer"]);
    let servers: Vec<Option<i64>> = apps
        .iter()
        .map(|a| {
            a.destination
                .as_ref()
                .and_then(|d| d.server_id.as_ref())
                .and_then(|i| i.as_i64())
        })
        .collect();
    assert_eq!(servers, [Some(1), Some(1), Some(0)]);
    let project = api.project_typed("proj-saas").await.unwrap();
    let env_ids: Vec<Option<i64>> = project
        .environments
        .unwrap()
        .iter()
        .map(|e| e.id.as_ref().and_then(|i| i.as_i64()))
        .collect();
    assert_eq!(env_ids, [Some(1)]);
    let deployments = api
        .application_deployments_typed("app-api", None)
        .await
        .unwrap();
    assert_eq!(deployments.count, Some(1));
    assert_eq!(deployments.deployments[0]["status"], "failed");
    let triggered = api
        .deploy_typed(&DeployTarget::detect("app-api"), Force::No)
        .await
        .unwrap();
    assert_eq!(
        triggered.deployments[0].deployment_uuid.as_deref(),
        Some("dep-new-1")
    );
    // The raw body keeps the upstream key order (the MCP server prints it as-is).
    let raw = api.application("app-api").await.unwrap();
    let keys: Vec<&String> = raw.as_object().unwrap().keys().collect();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("id"));
    assert_eq!(
        keys.last().map(|k| k.as_str()),
        Some("manual_webhook_secret_github")
    );
}

#[tokio::test]
async fn a_deployment_that_finishes_walks_its_status_sequence() {
    let fixture = Fixture::builder()
        .new_deployment_statuses(["queued", "in_progress", "finished"])
        .start()
        .await
        .unwrap();
    let api = client(&fixture);
    let mut seen = Vec::new();
    for _ in 0..4 {
        let d = api.deployment_typed("dep-new-1").await.unwrap();
        seen.push(d.status.unwrap());
    }
    assert_eq!(seen, ["queued", "in_progress", "finished", "finished"]);
}

#[tokio::test]
async fn text_and_empty_bodies_follow_the_reference_parsing() {
    let fixture = Fixture::builder()
        .route("GET", "/teams/current", Reply::Text(200, String::new()))
        .route(
            "GET",
            "/teams/current/members",
            Reply::Json(200, Value::String("x".into())),
        )
        .start()
        .await
        .unwrap();
    let api = client(&fixture);
    assert_eq!(api.health().await.unwrap(), json!("OK"));
    assert_eq!(api.current_team().await.unwrap(), json!({}));
    assert_eq!(api.current_team_members().await.unwrap(), json!("x"));
}

#[tokio::test]
async fn a_rotated_token_with_a_line_break_is_refused_without_sending_or_echoing_it() {
    let fixture = Fixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    write_token(&file, FIXTURE_TOKEN, 1_000);
    let api = CoolifyClient::builder(fixture.url(), TokenSpec::File(file.clone()))
        .build()
        .unwrap();
    write_token(&file, "broken-part-one\nbroken-part-two", 2_000);
    let err = api.list_servers(Paging::NONE).await.unwrap_err();
    assert!(matches!(err, ApiError::TokenNotSendable), "{err:?}");
    assert!(!err.to_string().contains("broken-part"));
    assert!(fixture.requests().is_empty());
}
