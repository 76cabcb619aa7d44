//! The `retrieve` exposure in whole turns: over the committed
//! 250-tool fixture, the tools declared per request follow the conversation — a tool the
//! user's message names is declared, a tool called earlier in the turn stays declared, `k`
//! and the token budget hold — and a call of a tool the request did not declare is refused
//! before it reaches the server.

use std::path::Path;

use coyote_mcp::meta::{ExposurePolicies, Retrieved, Why};
use coyote_protocol::{Exposure, RetrieveSettings};
use coyote_session::{Conversation, SessionEvent, SessionOptions, StopReason, ToolCallStatus};
use coyote_test_support::Scenario;
use coyote_test_support::fake_llm::{LlmWire, Reply, declared_tools, tool_results};
use serde_json::json;

use super::support::{Harness, SERVER, wires};

fn large() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-support/data/large-server.json");
    Scenario::load(&path).expect("the 250-tool fixture loads")
}

fn options(settings: RetrieveSettings) -> SessionOptions {
    SessionOptions {
        exposure: ExposurePolicies::default()
            .with(SERVER, Exposure::Retrieve)
            .with_retrieve(SERVER, settings),
        ..SessionOptions::default()
    }
}

fn direct(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .filter(|n| n.starts_with("fake__"))
        .map(String::as_str)
        .collect()
}

fn retrieved(events: &[SessionEvent]) -> Vec<Vec<Retrieved>> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::RequestStarted { retrieved, .. } => Some(retrieved.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_named_tool_is_declared_and_k_holds() {
    for wire in wires() {
        let settings = RetrieveSettings {
            top_k: 3,
            max_tokens: 1_500,
        };
        let h = Harness::with(wire, vec![Reply::text("ok")], large(), options(settings)).await;
        let (outcome, events) = h
            .turn(
                &mut Conversation::new(),
                "Please call get_user_by_username for alice, and list her open issues",
            )
            .await;
        assert_eq!(outcome.unwrap().stop, StopReason::Answered);
        let declared = declared_tools(wire, &h.llm.requests()[0]);
        let tools = direct(&declared);
        // The mention first, then at most k ranked tools.
        assert_eq!(tools[0], "fake__get_user_by_username", "{declared:?}");
        assert_eq!(tools.len(), 1 + 3, "{declared:?}");
        assert!(tools.contains(&"fake__list_issues"), "{declared:?}");
        // Beside them, the pair for everything else.
        assert!(declared.contains(&"mcp_search_fake".to_owned()));
        assert!(declared.contains(&"mcp_invoke_fake".to_owned()));
        let why = retrieved(&events);
        assert_eq!(why[0][0].why, Why::Mention);
        assert_eq!(why[0][0].function, "fake__get_user_by_username");
        assert!(
            why[0][1..]
                .iter()
                .all(|r| matches!(r.why, Why::Rank { .. }))
        );
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn the_token_budget_holds() {
    let settings = RetrieveSettings {
        top_k: 8,
        max_tokens: 200,
    };
    let h = Harness::with(
        LlmWire::OpenAi,
        vec![Reply::text("ok")],
        large(),
        options(settings),
    )
    .await;
    let (_, events) = h
        .turn(
            &mut Conversation::new(),
            "list the open issues and pull requests",
        )
        .await;
    let why = &retrieved(&events)[0];
    assert!(!why.is_empty());
    assert!(why.len() < 8, "{why:?}");
    assert!(
        why.iter().map(|r| r.tokens).sum::<usize>() <= 200,
        "{why:?}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_tool_used_earlier_stays_declared_for_the_rest_of_the_turn() {
    let settings = RetrieveSettings {
        top_k: 2,
        max_tokens: 1_500,
    };
    // Round 1 runs a tool the user's words do not rank, through the invoke pair; round 2
    // calls it directly — it is declared because it was used.
    let script = vec![
        Reply::call(
            "mcp_invoke_fake",
            json!({"tool": "get_certificate", "arguments": {"certificate_id": "c1"}}),
        ),
        Reply::call("fake__get_certificate", json!({"certificate_id": "c2"})),
        Reply::text("done"),
    ];
    let h = Harness::with(LlmWire::OpenAi, script, large(), options(settings)).await;
    let (outcome, events) = h
        .turn(&mut Conversation::new(), "how many words are in 'a b c'?")
        .await;
    assert_eq!(outcome.unwrap().stop, StopReason::Answered);
    let requests = h.llm.requests();
    assert!(
        !declared_tools(LlmWire::OpenAi, &requests[0]).contains(&"fake__get_certificate".into())
    );
    for request in &requests[1..] {
        let declared = declared_tools(LlmWire::OpenAi, request);
        assert!(
            declared.contains(&"fake__get_certificate".to_owned()),
            "{declared:?}"
        );
    }
    let why = retrieved(&events);
    assert_eq!(why[1][0].tool, "get_certificate");
    assert_eq!(why[1][0].why, Why::UsedEarlier);
    assert_eq!(h.server.events().tool_calls("get_certificate"), 2);
    h.assert_requests_valid();
    h.shutdown().await;
}

#[tokio::test]
async fn a_tool_the_request_did_not_declare_is_refused() {
    let settings = RetrieveSettings {
        top_k: 2,
        max_tokens: 1_500,
    };
    let script = vec![
        Reply::call("fake__delete_repository", json!({"repo": "x"})),
        Reply::text("done"),
    ];
    let h = Harness::with(LlmWire::OpenAi, script, large(), options(settings)).await;
    let (outcome, events) = h
        .turn(&mut Conversation::new(), "count the words of 'a b c'")
        .await;
    assert_eq!(outcome.unwrap().stop, StopReason::Answered);
    let requests = h.llm.requests();
    assert!(
        !declared_tools(LlmWire::OpenAi, &requests[0]).contains(&"fake__delete_repository".into())
    );
    let finished = events
        .iter()
        .find_map(|e| match e {
            SessionEvent::ToolCallFinished { status, output, .. } => Some((*status, output)),
            _ => None,
        })
        .unwrap();
    assert_eq!(finished.0, ToolCallStatus::Error, "{finished:?}");
    assert!(
        finished.1.contains("is not a function you can call now"),
        "{}",
        finished.1
    );
    assert_eq!(h.server.events().tool_calls("delete_repository"), 0);
    let results = tool_results(LlmWire::OpenAi, &requests[1]);
    assert_eq!(results.len(), 1);
    h.shutdown().await;
}
