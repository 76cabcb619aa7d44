//! Coyote's half of deployments as tasks: this tree's `coyote` declares the tasks extension, so
//! a `deploy` on coolify-mcp (streamable HTTP on 127.0.0.1, the fixture behind it) comes back
//! as a task that coyote follows — the deployment's statuses on stderr, the blocking call's
//! result at the end — and Ctrl-C on coyote cancels the deployment in Coolify.

use std::process::Stdio;
use std::time::Duration;

use coolify_fixture::Fixture;
use coolify_mcp::config::HumanPolicy;

use crate::common::{Setup, bearer_http, build_server, quick_timing};
use crate::sdk_peers::{TOKEN, coyote_binary, coyote_env, coyote_with, home_for};

/// coolify-mcp over HTTP in front of `fixture`, polling Coolify quickly.
async fn serve_quick(fixture: &Fixture) -> coolify_mcp::http::HttpHandle {
    let setup = Setup {
        policy: HumanPolicy::RequireHuman,
        timing: quick_timing(),
        ..Setup::default()
    };
    let spec = bearer_http(TOKEN, false);
    coolify_mcp::http::start(build_server(fixture.url(), &setup), &spec)
        .await
        .unwrap()
}

const DEPLOY: [&str; 5] = ["mcp", "call", "coolify", "deploy", "tag_or_uuid=app-api"];

#[tokio::test]
async fn coyote_follows_a_deployment_task_to_the_blocking_answer() {
    let Some(bin) = coyote_binary() else {
        return;
    };
    let fixture = Fixture::builder()
        .new_deployment_statuses(["queued", "in_progress", "in_progress", "finished"])
        .start()
        .await
        .unwrap();
    let h = serve_quick(&fixture).await;
    let home = home_for(&format!("http://{}/mcp", h.addr));
    let mut args = DEPLOY.to_vec();
    args.push("--json");
    let (code, out, err) = coyote_with(&bin, home.path(), &args, &[]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    let result: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(result["task"]["status"], "completed", "a task: {result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("\"status\": \"finished\""),
        "the blocking answer: {text}"
    );

    let (code, _, err) = coyote_with(&bin, home.path(), &DEPLOY, &[]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("deploy: task working: following deployment dep-new-1")
            || err.contains("deploy: task working: deployment dep-new-1"),
        "the task's status on stderr: {err}"
    );
    h.shutdown.cancel();
}

#[tokio::test]
async fn ctrl_c_on_coyote_cancels_the_deployment_in_coolify() {
    let Some(bin) = coyote_binary() else {
        return;
    };
    // A deployment that stays in progress until it is cancelled.
    let fixture = Fixture::builder()
        .new_deployment_statuses(["queued"].into_iter().chain(["in_progress"; 10_000]))
        .start()
        .await
        .unwrap();
    let h = serve_quick(&fixture).await;
    let home = home_for(&format!("http://{}/mcp", h.addr));
    let child = tokio::process::Command::new(&bin)
        .args(DEPLOY)
        .current_dir(home.path())
        .env_clear()
        .envs(coyote_env(home.path()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let building = async {
        while !fixture
            .requests()
            .iter()
            .any(|r| r.method == "GET" && r.path.ends_with("/deployments/dep-new-1"))
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), building)
        .await
        .expect("the task follows the deployment");
    let pid = child.id().unwrap().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("coyote exits after Ctrl-C")
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cancels = fixture
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/deployments/dep-new-1/cancel"))
        .count();
    assert_eq!(cancels, 1, "Ctrl-C cancelled the deployment once");
    h.shutdown.cancel();
}
