//! Wire-level fidelity with the reference, checked on the real binary over stdio with a raw
//! NDJSON client (so nothing between us and the bytes can hide a difference): no `_meta` on
//! `elicitation/create`, no `isError: false`, `Method not found` texts; and the per-instance
//! timeouts: `list_instances` within the listing deadline, timeout errors naming the setting.

use std::process::Stdio;
use std::time::Duration;

use coolify_fixture::{FIXTURE_TOKEN, Fixture, Reply};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::common::{Harness, Setup};

const BIN: &str = env!("CARGO_BIN_EXE_coolify-mcp");
const WAIT: Duration = Duration::from_secs(20);

/// The binary over stdio, spoken to line by line.
struct Raw {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Raw {
    async fn start(fixture: &Fixture, capabilities: Value) -> Self {
        let mut child = Command::new(BIN)
            .env_clear()
            .env("COOLIFY_BASE_URL", fixture.url())
            .env("COOLIFY_ACCESS_TOKEN", FIXTURE_TOKEN)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut raw = Self {
            child,
            stdin,
            lines,
        };
        raw.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": capabilities, "clientInfo": {"name": "raw", "version": "1"}}})).await;
        raw.next().await;
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw
    }

    async fn send(&mut self, msg: Value) {
        let line = format!("{msg}\n");
        self.stdin.write_all(line.as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    }

    async fn stop(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(WAIT, self.child.wait()).await;
    }
}

#[tokio::test]
async fn elicitation_create_carries_no_meta_and_results_no_is_error() {
    let fixture = Fixture::start().await.unwrap();
    let mut raw = Raw::start(&fixture, json!({"elicitation": {}})).await;
    raw.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "application", "arguments": {"action": "delete", "uuid": "app-api"}}})).await;
    let ask = raw.next().await;
    assert_eq!(ask["method"], "elicitation/create");
    // Exactly the reference's params: no `_meta` (rmcp stamps a progressToken by default).
    let keys: Vec<&str> = ask["params"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["mode", "message", "requestedSchema"], "{ask}");
    assert_eq!(ask["params"]["mode"], "form");
    raw.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}}))
        .await;
    let answer = raw.next().await;
    assert_eq!(answer["id"], 1);
    assert_eq!(
        answer["result"],
        json!({"content": [{"type": "text", "text": "Aborted: the user declined. Nothing was changed. Do not retry without new instructions from the user."}]}),
        "no isError key"
    );
    assert!(fixture.mutations().is_empty());
    raw.stop().await;
}

#[tokio::test]
async fn unsupported_methods_answer_method_not_found() {
    let fixture = Fixture::start().await.unwrap();
    let mut raw = Raw::start(&fixture, json!({})).await;
    for (id, method, params) in [
        (
            1,
            "resources/subscribe",
            json!({"uri": "coolify://overview"}),
        ),
        (
            2,
            "resources/unsubscribe",
            json!({"uri": "coolify://overview"}),
        ),
        (3, "logging/setLevel", json!({"level": "debug"})),
        (
            4,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "coolify://application/{uuid}"}, "argument": {"name": "uuid", "value": "a"}}),
        ),
    ] {
        raw.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let answer = raw.next().await;
        assert_eq!(answer["id"], id);
        assert_eq!(
            answer["error"],
            json!({"code": -32601, "message": "Method not found"}),
            "{method}"
        );
    }
    raw.stop().await;
}

#[tokio::test]
async fn list_instances_waits_at_most_the_listing_deadline_per_instance() {
    let hanging = Fixture::builder()
        .behaviour(coolify_fixture::Behaviour::Hanging)
        .start()
        .await
        .unwrap();
    let setup = Setup {
        timing: crate::common::quick_timing(),
        ..Setup::default()
    }
    .instance("stuck", Some(hanging.url().to_string()));
    let h = Harness::start(setup).await.unwrap();
    let listed = tokio::time::timeout(WAIT, h.call_json("list_instances", json!({})))
        .await
        .expect("list_instances answers although one instance never does");
    assert_eq!(listed[0]["version"], "4.1.2");
    assert_eq!(
        listed[1]["error"],
        "no answer to GET /version within 0.3 s (list_instances waits at most that long per instance)"
    );
    assert!(listed[1].get("version").is_none());
}

#[tokio::test]
async fn a_request_timeout_names_the_setting_that_configures_it() {
    let fixture = Fixture::builder()
        .route("GET", "/applications", Reply::Hang)
        .start()
        .await
        .unwrap();
    let url = fixture.url().to_string();
    let setup = Setup {
        request_timeout: Some(Duration::from_millis(300)),
        ..Setup::default()
    }
    .fleet();
    let h = Harness::with_fixture(fixture, setup).await.unwrap();
    // No answer at all: a tool error (isError), like a refused connection.
    let (text, is_error) = h.call_raw("list_applications", json!({})).await.unwrap();
    assert!(is_error, "{text}");
    assert_eq!(
        text,
        format!(
            "Error: Coolify server at {url} did not answer GET /applications within 0.3 s. Check that the server is up and reachable, or raise COOLIFY_REQUEST_TIMEOUT (seconds)."
        )
    );
    let (text, _) = h
        .call_raw("list_applications", json!({"instance": "staging"}))
        .await
        .unwrap();
    assert!(
        text.ends_with("raise COOLIFY_INSTANCES[0].request_timeout (seconds)."),
        "{text}"
    );
}

#[test]
fn request_timeouts_are_configured_in_seconds_per_instance() {
    use std::collections::BTreeMap;
    let env = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let parse = |pairs: &[(&str, &str)]| coolify_mcp::config::parse(&env(pairs), &[]);
    let base = [
        ("COOLIFY_BASE_URL", "http://127.0.0.1:9"),
        ("COOLIFY_ACCESS_TOKEN", "t"),
        ("COOLIFY_REQUEST_TIMEOUT", "12.5"),
        (
            "COOLIFY_INSTANCES",
            r#"[{"name":"a","url":"http://127.0.0.1:9","token":"t"},{"name":"b","url":"http://127.0.0.1:9","token":"t","request_timeout":3}]"#,
        ),
    ];
    let Ok(coolify_mcp::Command::Run(config)) = parse(&base) else {
        panic!("valid configuration")
    };
    let got: Vec<(Duration, &str)> = config
        .instances
        .iter()
        .map(|i| (i.request_timeout, i.timeout_setting.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (Duration::from_millis(12_500), "COOLIFY_REQUEST_TIMEOUT"),
            (Duration::from_millis(12_500), "COOLIFY_REQUEST_TIMEOUT"),
            (
                Duration::from_secs(3),
                "COOLIFY_INSTANCES[1].request_timeout"
            ),
        ]
    );
    let problems = |pairs: &[(&str, &str)]| match parse(pairs) {
        Err(e) => e.problems,
        Ok(c) => panic!("expected a startup error, got {c:?}"),
    };
    assert_eq!(
        problems(&[
            ("COOLIFY_ACCESS_TOKEN", "t"),
            ("COOLIFY_REQUEST_TIMEOUT", "1e300")
        ]),
        ["COOLIFY_REQUEST_TIMEOUT must be a number of seconds from 0.1 to 3600, e.g. 30"]
    );
    assert_eq!(
        problems(&[(
            "COOLIFY_INSTANCES",
            r#"[{"name":"a","url":"http://x","token":"t","request_timeout":"soon"}]"#
        )]),
        ["COOLIFY_INSTANCES[0].request_timeout must be a number of seconds, e.g. 30"]
    );
}
