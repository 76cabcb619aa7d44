//! `coolify-mcp doctor` as a process against the loopback fixture: each check's status and the
//! exit code for a healthy instance, a wrong token, an unreachable URL and an unsupported
//! version; usage errors; and the output never contains the token or a header value.

use std::process::Output;

use coolify_fixture::{FIXTURE_TOKEN, Fixture, Reply};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_coolify-mcp");

async fn doctor(env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.env_clear().arg("doctor").args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
        .await
        .expect("doctor finishes")
        .expect("doctor runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `(check, status)` pairs of the single instance of a `--json` report.
fn statuses(out: &Output) -> Vec<(String, String)> {
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("--json output is JSON ({e}): {}", text(out)));
    v["instances"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["check"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[tokio::test]
async fn doctor_healthy_instance_passes_every_check_and_never_prints_the_token() {
    let fixture = Fixture::start().await.unwrap();
    let env = [
        ("COOLIFY_BASE_URL", fixture.url()),
        ("COOLIFY_ACCESS_TOKEN", FIXTURE_TOKEN),
    ];
    let out = doctor(
        &env,
        &["--json", "--header", "X-Doctor-Canary: hdr-canary-7f3"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        statuses(&out),
        pairs(&[
            ("config", "pass"),
            ("reachability", "pass"),
            ("token", "pass"),
            ("version", "pass"),
            ("abilities", "pass"),
            ("api-shape", "pass"),
        ])
    );
    let all = text(&out);
    assert!(!all.contains(FIXTURE_TOKEN), "the token leaked: {all}");
    assert!(
        !all.contains("hdr-canary-7f3"),
        "a header value leaked: {all}"
    );
    assert!(all.contains("Coolify 4.1.2 (inside the tested range 4.0.x – 4.3.x)"));
    // Every probe was a GET, and the --header reached Coolify.
    let log = fixture.requests();
    assert!(!log.is_empty());
    assert!(log.iter().all(|r| r.method == "GET"), "{log:?}");
    assert!(
        log.iter()
            .all(|r| r.header("x-doctor-canary") == Some("hdr-canary-7f3"))
    );

    // The text form says the same, with the summary line.
    let out = doctor(&env, &[]).await;
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(stdout.starts_with("coolify-mcp doctor — instance: default\n  ✓ config: COOLIFY_BASE_URL set, COOLIFY_ACCESS_TOKEN set"), "{stdout}");
    assert!(stdout.ends_with("All checks passed.\n"), "{stdout}");
    assert!(!text(&out).contains(FIXTURE_TOKEN));
}

#[tokio::test]
async fn doctor_wrong_token_fails_the_token_check_and_exits_1() {
    let fixture = Fixture::start().await.unwrap();
    let wrong = "wrong-token-canary-91a0c";
    let env = [
        ("COOLIFY_BASE_URL", fixture.url()),
        ("COOLIFY_ACCESS_TOKEN", wrong),
    ];
    let out = doctor(&env, &["--json"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        statuses(&out),
        pairs(&[
            ("config", "pass"),
            ("reachability", "pass"),
            ("token", "fail"),
            ("version", "skipped"),
            ("abilities", "skipped"),
            ("api-shape", "skipped"),
        ])
    );
    let all = text(&out);
    assert!(!all.contains(wrong), "the token leaked: {all}");
    assert!(
        all.contains("Coolify rejected the token (HTTP 401)"),
        "{all}"
    );
    let out = doctor(&env, &[]).await;
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.ends_with("1 failure(s), 0 warning(s), 0 inconclusive — details above.\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  ✗ token: Coolify rejected the token (HTTP 401)\n      fix: "));
}

#[tokio::test]
async fn doctor_unreachable_instance_fails_reachability_and_exits_1() {
    // A port nothing listens on: bind, note it, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let env = [
        ("COOLIFY_BASE_URL", url.as_str()),
        ("COOLIFY_ACCESS_TOKEN", FIXTURE_TOKEN),
    ];
    let out = doctor(&env, &["--json"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        statuses(&out),
        pairs(&[
            ("config", "pass"),
            ("reachability", "fail"),
            ("token", "skipped"),
            ("version", "skipped"),
            ("abilities", "skipped"),
            ("api-shape", "skipped"),
        ])
    );
    let all = text(&out);
    assert!(
        all.contains("cannot reach COOLIFY_BASE_URL: cannot connect to"),
        "{all}"
    );
    assert!(!all.contains(FIXTURE_TOKEN));
}

#[tokio::test]
async fn doctor_unsupported_version_warns_but_exits_0() {
    let fixture = Fixture::builder()
        .route("GET", "/version", Reply::Text(200, "4.9.1".into()))
        .start()
        .await
        .unwrap();
    let env = [
        ("COOLIFY_BASE_URL", fixture.url()),
        ("COOLIFY_ACCESS_TOKEN", FIXTURE_TOKEN),
    ];
    let out = doctor(&env, &["--json"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        statuses(&out),
        pairs(&[
            ("config", "pass"),
            ("reachability", "pass"),
            ("token", "pass"),
            ("version", "warn"),
            ("abilities", "pass"),
            ("api-shape", "pass"),
        ])
    );
    let out = doctor(&env, &[]).await;
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("  ! version: Coolify 4.9.1 is outside the range this release was tested against (4.0.x – 4.3.x)\n"), "{stdout}");
    assert!(stdout.ends_with("Passed with 1 warning(s).\n"), "{stdout}");
}

#[tokio::test]
async fn doctor_config_problems_fail_without_echoing_values() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("token");
    std::fs::write(&empty, "\n").unwrap();
    let out = doctor(
        &[
            ("COOLIFY_BASE_URL", "http://127.0.0.1:1"),
            ("COOLIFY_ACCESS_TOKEN_FILE", empty.to_str().unwrap()),
        ],
        &["--json"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let checks = statuses(&out);
    assert_eq!(checks[0], ("config".to_string(), "fail".to_string()));
    assert!(text(&out).contains("COOLIFY_ACCESS_TOKEN_FILE points at an empty file"));
    // An unexpanded placeholder is named, never repeated.
    let out = doctor(
        &[
            ("COOLIFY_BASE_URL", "http://127.0.0.1:1"),
            ("COOLIFY_ACCESS_TOKEN", "${SECRET_CANARY_VAR}"),
        ],
        &[],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let all = text(&out);
    assert!(all.contains("unexpanded ${VAR} placeholder"), "{all}");
    assert!(!all.contains("SECRET_CANARY_VAR"), "{all}");
}

#[tokio::test]
async fn doctor_bad_arguments_print_usage_and_exit_2_help_exits_0() {
    let out = doctor(&[], &["--verbose"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("usage: coolify-mcp doctor [--json] [--header \"Key: Value\"]")
    );
    let out = doctor(&[], &["--help"]).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("usage: coolify-mcp doctor"));
}

#[tokio::test]
async fn doctor_checks_the_default_url_when_coolify_base_url_is_unset_and_only_warns() {
    // The server starts with http://localhost:3000 then; doctor checks the same URL.
    let out = doctor(&[("COOLIFY_ACCESS_TOKEN", "t")], &["--json"]).await;
    let checks = statuses(&out);
    assert_eq!(
        checks[0],
        ("config".to_string(), "warn".to_string()),
        "{}",
        text(&out)
    );
    assert!(
        text(&out)
            .contains("COOLIFY_BASE_URL is unset, so the default http://localhost:3000 is used"),
        "{}",
        text(&out)
    );
    assert_ne!(
        checks[1].1, "skipped",
        "the default URL is probed: {checks:?}"
    );
}

#[tokio::test]
async fn help_goes_to_stdout_and_names_doctor() {
    for flag in ["--help", "-h"] {
        let out = tokio::process::Command::new(BIN)
            .env_clear()
            .arg(flag)
            .output()
            .await
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.starts_with("coolify-mcp — MCP server for Coolify"),
            "{stdout}"
        );
        assert!(stdout.contains("coolify-mcp doctor"), "{stdout}");
    }
}
