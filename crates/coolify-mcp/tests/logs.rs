//! Diagnostics on stderr: at `COOLIFY_MCP_LOG=debug` and `trace` rmcp logs whole requests and
//! results; revealed secrets and secret arguments come out masked, like tool outputs.

use std::process::Stdio;
use std::time::Duration;

use coolify_fixture::{FIXTURE_TOKEN, Fixture, PLANTED_SECRETS};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::common::as_map;
use crate::process::command;

const TIMEOUT: Duration = Duration::from_secs(30);
/// A secret that only ever travels as a tool argument.
const ARG_SECRET: &str = "LOG-ARG-SECRET-71c2e9";

async fn stderr_of_a_session(level: &str) -> (String, Vec<String>) {
    let fixture = Fixture::start().await.unwrap();
    let mut cmd = command(&fixture);
    cmd.env("COOLIFY_MCP_LOG", level);
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = stderr.unwrap();
    let reader = tokio::spawn(async move {
        let mut out = String::new();
        let _ = stderr.read_to_string(&mut out).await;
        out
    });
    let client = tokio::time::timeout(TIMEOUT, ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    let calls: [(&str, Value); 4] = [
        (
            "get_database",
            json!({"uuid": "db-postgres", "reveal": true}),
        ),
        (
            "env_vars",
            json!({"resource": "application", "action": "list", "uuid": "app-api", "key": "API_SECRET", "reveal": true}),
        ),
        (
            "env_vars",
            json!({"resource": "application", "action": "create", "uuid": "app-api", "key": "NEW_SECRET", "value": ARG_SECRET}),
        ),
        ("get_service", json!({"uuid": "svc-umami", "reveal": true})),
    ];
    let mut texts = Vec::new();
    for (name, args) in calls {
        let mut p = CallToolRequestParams::new(name);
        p.arguments = Some(as_map(args));
        let r = tokio::time::timeout(TIMEOUT, client.peer().call_tool(p))
            .await
            .unwrap()
            .unwrap();
        texts.push(serde_json::to_value(&r).unwrap()["content"][0]["text"].to_string());
    }
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;
    let log = tokio::time::timeout(TIMEOUT, reader)
        .await
        .unwrap()
        .unwrap();
    (log, texts)
}

#[tokio::test]
async fn debug_and_trace_logs_mask_secrets_like_tool_outputs() {
    for level in ["debug", "trace"] {
        let (log, texts) = stderr_of_a_session(level).await;
        // The calls did reveal secrets to the client, and the log did record the traffic.
        let revealed = texts.join("\n");
        assert!(
            revealed.contains(coolify_fixture::data::CANARY_DB_PASSWORD),
            "{revealed}"
        );
        assert!(
            revealed.contains(coolify_fixture::data::CANARY_API_SECRET),
            "{revealed}"
        );
        assert!(log.contains("received request"), "{level}: {log}");
        assert!(log.contains("get_database"), "{level}: {log}");
        for secret in PLANTED_SECRETS.iter().chain([&ARG_SECRET]) {
            assert!(
                !log.contains(secret),
                "{level}: {secret} leaked into the log:\n{log}"
            );
        }
        assert!(
            !log.contains(FIXTURE_TOKEN),
            "{level}: the Coolify token leaked"
        );
    }
}
