//! The audit line: one JSON line per `tools/call` with the
//! reference's keys in order, for a read, a guarded call confirmed, declined and refused
//! (require-human), a schema failure; never an argument value or a response.

use std::sync::{Arc, Mutex};

use coolify_mcp::audit::Audit;
use coolify_mcp::config::HumanPolicy;
use serde_json::{Value, json};

use crate::common::{Harness, Human, Setup};

/// A harness whose audit lines land in the returned buffer.
async fn audited(human: Human, policy: HumanPolicy) -> (Harness, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let setup = Setup {
        human,
        policy,
        audit: Audit::to(Arc::new(move |line: &str| {
            sink.lock().unwrap().push(line.to_string());
        })),
        ..Setup::default()
    };
    (Harness::start(setup).await.unwrap(), lines)
}

fn only_line(lines: &Mutex<Vec<String>>) -> (String, Value) {
    let lines = lines.lock().unwrap();
    assert_eq!(lines.len(), 1, "exactly one audit line per call: {lines:?}");
    let v: Value = serde_json::from_str(&lines[0]).unwrap();
    (lines[0].clone(), v)
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[tokio::test]
async fn audit_line_for_a_read() {
    let (h, lines) = audited(Human::Accept, HumanPolicy::AskWhenPossible).await;
    let text = h.call("get_application", json!({"uuid": "app-api"})).await;
    let (raw, v) = only_line(&lines);
    assert_eq!(
        keys(&v),
        ["audit", "at", "tool", "outcome", "duration_ms", "uuids"]
    );
    assert_eq!(v["audit"], "tools/call");
    assert_eq!(v["tool"], "get_application");
    assert_eq!(v["outcome"], "ok");
    assert_eq!(v["uuids"], json!(["app-api"]));
    assert!(v["duration_ms"].is_u64());
    // Nothing of the response reaches the line.
    assert!(text.contains("api-gateway"), "{text}");
    assert!(!raw.contains("api-gateway"), "{raw}");
}

#[tokio::test]
async fn audit_line_for_a_guarded_call_confirmed() {
    let (h, lines) = audited(Human::Accept, HumanPolicy::AskWhenPossible).await;
    h.call(
        "application",
        json!({"action": "delete", "uuid": "app-api"}),
    )
    .await;
    assert!(
        h.log()
            .contains(&"DELETE /api/v1/applications/app-api".to_string())
    );
    let (_, v) = only_line(&lines);
    assert_eq!(v["outcome"], "ok");
    assert_eq!(v["confirmation"], "confirmed");
    assert_eq!(v["action"], "delete");
    assert!(v.get("reason").is_none());
}

#[tokio::test]
async fn audit_line_for_a_guarded_call_declined() {
    let (h, lines) = audited(Human::Decline, HumanPolicy::AskWhenPossible).await;
    let text = h
        .call(
            "application",
            json!({"action": "delete", "uuid": "app-api"}),
        )
        .await;
    assert!(text.starts_with("Aborted: the user declined"), "{text}");
    let (_, v) = only_line(&lines);
    assert_eq!(v["outcome"], "refused");
    assert_eq!(v["reason"], "declined");
    assert!(v.get("confirmation").is_none());
}

#[tokio::test]
async fn audit_line_for_a_guarded_call_refused_by_require_human() {
    let (h, lines) = audited(Human::Absent, HumanPolicy::RequireHuman).await;
    let text = h
        .call(
            "application",
            json!({"action": "delete", "uuid": "app-api"}),
        )
        .await;
    assert!(
        text.starts_with("Aborted: this server requires human confirmation"),
        "{text}"
    );
    assert!(!h.log().iter().any(|l| l.starts_with("DELETE")));
    let (_, v) = only_line(&lines);
    assert_eq!(v["outcome"], "refused");
    assert_eq!(v["reason"], "no_elicitation");
}

#[tokio::test]
async fn audit_line_for_an_unconfirmed_run_and_a_schema_failure_never_logs_values() {
    let (h, lines) = audited(Human::Absent, HumanPolicy::AskWhenPossible).await;
    h.call(
        "application",
        json!({"action": "delete", "uuid": "app-api"}),
    )
    .await;
    let (_, v) = only_line(&lines);
    assert_eq!(
        (v["outcome"].clone(), v["confirmation"].clone()),
        (json!("ok"), json!("unconfirmed"))
    );
    lines.lock().unwrap().clear();
    let (text, is_error) = h
        .call_raw("env_vars", json!({"action": "create", "uuid": "app-api", "key": "K", "value": "s3cr3t-value", "bogus": 1, "is_preview": "no"}))
        .await
        .unwrap();
    assert!(is_error, "a schema failure is an isError result: {text}");
    let (raw, v) = only_line(&lines);
    assert_eq!(v["outcome"], "error");
    assert_eq!(v["reason"], "validation");
    assert!(!raw.contains("s3cr3t-value"), "{raw}");
}

#[test]
fn audit_defaults_off_on_stdio_and_on_over_http_and_the_variable_wins() {
    use coolify_mcp::config::{Command, parse};
    let audit = |extra: &[(&str, &str)], args: &[&str]| {
        let mut env: std::collections::BTreeMap<String, String> = [
            ("COOLIFY_BASE_URL", "http://127.0.0.1:9"),
            ("COOLIFY_ACCESS_TOKEN", "t"),
            ("COOLIFY_MCP_HTTP_TOKEN", "0123456789abcdef0123456789abcdef"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match parse(&env, &args) {
            Ok(Command::Run(c)) => c.audit,
            other => panic!("{other:?}"),
        }
    };
    assert!(!audit(&[], &[]));
    assert!(audit(&[], &["--transport", "http"]));
    assert!(audit(&[("COOLIFY_MCP_AUDIT", " On ")], &[]));
    assert!(!audit(
        &[("COOLIFY_MCP_AUDIT", "0")],
        &["--transport", "http"]
    ));
    assert!(audit(
        &[("COOLIFY_MCP_AUDIT", "maybe")],
        &["--transport", "http"]
    ));
}
