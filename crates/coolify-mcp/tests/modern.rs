//! The 2026-07-28 confirmation path, with rmcp's client
//! speaking 2026-07-28 in process: round one answers `input_required` and sends nothing;
//! an accepted retry with the sealed state runs the delete; a declined one, a tampered or
//! foreign state, an expired one (moved clock) and a changed summary are refused with nothing
//! sent; a client without elicitation is refused; an accepted state runs once, however often
//! (or concurrently) it is sent back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use coolify_fixture::Fixture;
use coolify_mcp::audit::Audit;
use coolify_mcp::config::HumanPolicy;
use coolify_mcp::request_state::{ConfirmationSeal, StateClock};
use rmcp::model::ProtocolVersion;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, InputRequiredResult, InputResponses,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::common::{Setup, as_map, build_server};

struct Clock(AtomicU64);

impl StateClock for Clock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

#[derive(Clone)]
struct ModernClient {
    elicitation: bool,
}

impl ClientHandler for ModernClient {
    fn get_info(&self) -> ClientConfig {
        let caps = if self.elicitation {
            json!({"elicitation": {}})
        } else {
            json!({})
        };
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": caps,
            "clientInfo": {"name": "coolify-mcp-modern-tests", "version": "1"}
        }))
        .unwrap()
    }
}

struct Modern {
    fixture: Fixture,
    client: RunningService<RoleClient, ModernClient>,
    clock: Arc<Clock>,
    audit: Arc<Mutex<Vec<String>>>,
}

impl Modern {
    async fn start(elicitation: bool) -> Self {
        let fixture = Fixture::start().await.unwrap();
        let clock = Arc::new(Clock(AtomicU64::new(1_000_000)));
        let (seal, _) = ConfirmationSeal::from_key(Some(&[42u8; 32])).unwrap();
        let audit = Arc::new(Mutex::new(Vec::new()));
        let sink = audit.clone();
        let setup = Setup {
            policy: HumanPolicy::RequireHuman,
            seal: Some(seal.with_clock(clock.clone())),
            audit: Audit::to(Arc::new(move |l: &str| {
                sink.lock().unwrap().push(l.to_string())
            })),
            ..Setup::default()
        };
        let server = build_server(fixture.url(), &setup);
        let (a, b) = tokio::io::duplex(1 << 22);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(coolify_mcp::wire::outgoing(a)).await {
                let _ = running.waiting().await;
            }
        });
        // server/discover, then self-contained per-request metadata: no initialize handshake.
        let client = ModernClient { elicitation }
            .serve_with_lifecycle(
                b,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .unwrap();
        Self {
            fixture,
            client,
            clock,
            audit,
        }
    }

    async fn call(
        &self,
        args: Value,
        responses: Option<Value>,
        state: Option<String>,
    ) -> CallToolResponse {
        let mut p = CallToolRequestParams::new("application");
        p.arguments = Some(as_map(args));
        p.input_responses = responses.map(|r| serde_json::from_value::<InputResponses>(r).unwrap());
        p.request_state = state;
        self.client.peer().call_tool_once(p).await.unwrap()
    }

    fn deletes(&self) -> usize {
        self.fixture
            .requests()
            .iter()
            .filter(|r| r.method == "DELETE")
            .count()
    }
}

const DELETE: fn() -> Value = || json!({"action": "delete", "uuid": "app-api"});

fn input_required(r: CallToolResponse) -> InputRequiredResult {
    match r {
        CallToolResponse::InputRequired(i) => i,
        other => panic!("expected input_required, got {other:?}"),
    }
}

fn text(r: CallToolResponse) -> String {
    match r {
        CallToolResponse::Complete(c) => serde_json::to_value(&c).unwrap()["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string(),
        other => panic!("expected a result, got {other:?}"),
    }
}

/// Round one: the question and the sealed state, nothing sent.
async fn round_one(m: &Modern) -> (String, String) {
    let before = m.deletes();
    let first = input_required(m.call(DELETE(), None, None).await);
    let v = serde_json::to_value(&first).unwrap();
    let message = v["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{v}"))
        .to_string();
    assert_eq!(
        v["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let state = v["requestState"].as_str().unwrap().to_string();
    assert_eq!(m.deletes(), before, "nothing is sent before the answer");
    (message, state)
}

#[tokio::test]
async fn modern_guarded_delete_completes_through_input_required() {
    let m = Modern::start(true).await;
    let (message, state) = round_one(&m).await;
    assert!(
        message.starts_with("Delete application \"api-gateway\""),
        "{message}"
    );
    let done = text(
        m.call(
            DELETE(),
            Some(json!({"confirm": {"action": "accept"}})),
            Some(state),
        )
        .await,
    );
    assert!(!done.starts_with("Aborted"), "{done}");
    assert_eq!(m.deletes(), 1);
    let lines = m.audit.lock().unwrap().clone();
    let outcomes: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| json!([v["outcome"], v["confirmation"]]))
        .collect();
    assert_eq!(
        outcomes,
        [
            json!(["awaiting_confirmation", null]),
            json!(["ok", "confirmed"])
        ]
    );
}

#[tokio::test]
async fn modern_decline_is_refused() {
    let m = Modern::start(true).await;
    let (_, state) = round_one(&m).await;
    let r = text(
        m.call(
            DELETE(),
            Some(json!({"confirm": {"action": "decline"}})),
            Some(state),
        )
        .await,
    );
    assert!(r.starts_with("Aborted: the user declined"), "{r}");
    assert_eq!(m.deletes(), 0);
}

#[tokio::test]
async fn modern_tampered_or_missing_state_is_refused() {
    let m = Modern::start(true).await;
    let (_, state) = round_one(&m).await;
    let mut bytes = state.into_bytes();
    let mid = bytes.len() / 2;
    bytes[mid] = if bytes[mid] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).unwrap();
    let accept = || Some(json!({"confirm": {"action": "accept"}}));
    for state in [Some(tampered), None, Some("not-a-state".to_string())] {
        let r = text(m.call(DELETE(), accept(), state.clone()).await);
        assert!(
            r.starts_with("Aborted: the confirmation state is missing or failed verification"),
            "{state:?}: {r}"
        );
    }
    // An answer that is not an elicitation result is no approval either.
    let (_, state) = round_one(&m).await;
    let r = text(
        m.call(
            DELETE(),
            Some(json!({"confirm": {"roots": []}})),
            Some(state),
        )
        .await,
    );
    assert!(r.starts_with("Aborted: "), "{r}");
    assert_eq!(m.deletes(), 0);
}

#[tokio::test]
async fn modern_expired_state_is_refused() {
    let m = Modern::start(true).await;
    let (_, state) = round_one(&m).await;
    m.clock.0.fetch_add(600_001, Ordering::SeqCst);
    let r = text(
        m.call(
            DELETE(),
            Some(json!({"confirm": {"action": "accept"}})),
            Some(state),
        )
        .await,
    );
    assert!(r.starts_with("Aborted: the confirmation expired"), "{r}");
    assert_eq!(m.deletes(), 0);
}

#[tokio::test]
async fn modern_changed_summary_is_refused() {
    let m = Modern::start(true).await;
    let (message, state) = round_one(&m).await;
    assert!(message.contains("DESTROYED"), "{message}");
    // Same call, but now keeping the volumes: not what the human saw.
    let changed = json!({"action": "delete", "uuid": "app-api", "delete_volumes": false});
    let r = text(
        m.call(
            changed,
            Some(json!({"confirm": {"action": "accept"}})),
            Some(state),
        )
        .await,
    );
    assert!(
        r.starts_with(
            "Aborted: what this would do changed between the confirmation and the answer"
        ),
        "{r}"
    );
    assert!(r.contains("Re-run \"Delete an application"), "{r}");
    assert_eq!(m.deletes(), 0);
}

#[tokio::test]
async fn modern_without_elicitation_is_refused_never_approved() {
    let m = Modern::start(false).await;
    let r = text(m.call(DELETE(), None, None).await);
    assert!(
        r.starts_with("Aborted: this server requires human confirmation"),
        "{r}"
    );
    let r = text(
        m.call(
            DELETE(),
            Some(json!({"confirm": {"action": "accept"}})),
            None,
        )
        .await,
    );
    assert!(r.starts_with("Aborted: "), "{r}");
    assert_eq!(m.deletes(), 0);
}

#[tokio::test]
async fn modern_confirmation_is_single_use_even_when_replayed_concurrently() {
    let m = Modern::start(true).await;
    let (_, state) = round_one(&m).await;
    let accept = || Some(json!({"confirm": {"action": "accept"}}));
    // Five retries with the same accepted answer and state, all at once: one runs.
    let calls = (0..5).map(|_| m.call(DELETE(), accept(), Some(state.clone())));
    let texts: Vec<String> = futures::future::join_all(calls)
        .await
        .into_iter()
        .map(text)
        .collect();
    assert_eq!(m.deletes(), 1, "{texts:#?}");
    let replays: Vec<&String> = texts.iter().filter(|t| t.starts_with("Aborted")).collect();
    assert_eq!(replays.len(), 4, "{texts:#?}");
    for r in replays {
        assert!(
            r.starts_with("Aborted: this confirmation was already used"),
            "{r}"
        );
        assert!(r.contains("call it without requestState"), "{r}");
    }
    // Later, sequentially: still refused.
    let r = text(m.call(DELETE(), accept(), Some(state)).await);
    assert!(
        r.starts_with("Aborted: this confirmation was already used"),
        "{r}"
    );
    assert_eq!(m.deletes(), 1);
    let reasons: Vec<Value> = m
        .audit
        .lock()
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["reason"].clone())
        .filter(|r| !r.is_null())
        .collect();
    assert_eq!(reasons, vec![json!("replayed_confirmation"); 5]);
    // A fresh round one asks again and runs again: a new approval, a new run.
    let (_, fresh) = round_one(&m).await;
    let r = text(m.call(DELETE(), accept(), Some(fresh)).await);
    assert!(!r.starts_with("Aborted"), "{r}");
    assert_eq!(m.deletes(), 2);
}
