//! Adaptive exposure in whole turns: the fake server's small tool set
//! is declared directly under `auto`, and a direct call and an `mcp_invoke_` of the same tool
//! produce the same approval question, the same bounded result and the same events (apart from
//! the function name the model used and how it wrapped the arguments).

use coyote_session::{ApprovalDecision, Conversation, SessionEvent, SessionOptions, StopReason};
use coyote_test_support::fake_llm::{LlmWire, Reply, declared_tools, tool_results};
use coyote_test_support::{Capabilities, Scenario, ToolBehavior};
use serde_json::{Value, json};

use super::support::{Asked, Harness, meta_options, wires};

fn scenario() -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("echo", ToolBehavior::Echo)
        .destructive_tool(
            "wipe",
            ToolBehavior::Text {
                text: "wiped".into(),
            },
        )
        .safe_tool("big", ToolBehavior::BigText { bytes: 300 * 1024 })
        .build()
}

/// Events with the called function's name and argument wrapping taken out: what must match.
fn comparable(events: Vec<SessionEvent>) -> Vec<SessionEvent> {
    let unwrap = |name: &str, arguments: Value| match name {
        "mcp_invoke_fake" => arguments["arguments"].clone(),
        _ => arguments,
    };
    events
        .into_iter()
        .map(|e| match e {
            SessionEvent::ToolCallStarted {
                call_id,
                name,
                server,
                tool,
                arguments,
            } => SessionEvent::ToolCallStarted {
                call_id,
                arguments: unwrap(&name, arguments),
                name: "<function>".into(),
                server,
                tool,
            },
            SessionEvent::ToolCallFinished {
                call_id,
                server,
                tool,
                status,
                duration_ms,
                output,
                ..
            } => SessionEvent::ToolCallFinished {
                call_id,
                name: "<function>".into(),
                server,
                tool,
                status,
                duration_ms,
                output,
            },
            SessionEvent::TextDelta { .. } => SessionEvent::TextDelta {
                text: String::new(),
            },
            // The meta request also carries the meta-function guide in its system prompt.
            SessionEvent::Usage { output, .. } => SessionEvent::Usage { input: 0, output },
            SessionEvent::TurnFinished {
                stop,
                rounds,
                usage,
            } => SessionEvent::TurnFinished {
                stop,
                rounds,
                usage: coyote_llm::Usage {
                    input: 0,
                    output: usage.output,
                },
            },
            other => other,
        })
        .collect::<Vec<_>>()
        .chunk_by(|a, b| is_call_event(a) == is_call_event(b))
        .flat_map(|run| {
            // Concurrent calls finish in any order: compare each run of call events as a set.
            let mut run = run.to_vec();
            if run.first().is_some_and(is_call_event) {
                run.sort_by_key(|e| format!("{e:?}"));
            }
            run
        })
        .collect()
}

fn is_call_event(event: &SessionEvent) -> bool {
    matches!(
        event,
        SessionEvent::ToolCallStarted { .. } | SessionEvent::ToolCallFinished { .. }
    )
}

#[tokio::test]
async fn a_direct_call_and_a_meta_invoke_ask_the_same_and_return_the_same() {
    for wire in wires() {
        let direct_script = vec![
            Reply::calls(
                "",
                vec![
                    ("fake__wipe", json!({"target": "/data"})),
                    ("fake__big", json!({})),
                ],
            ),
            Reply::text("done"),
        ];
        let meta_script = vec![
            Reply::calls(
                "",
                vec![
                    (
                        "mcp_invoke_fake",
                        json!({"tool": "wipe", "arguments": {"target": "/data"}}),
                    ),
                    ("mcp_invoke_fake", json!({"tool": "big", "arguments": {}})),
                ],
            ),
            Reply::text("done"),
        ];
        let direct =
            Harness::with(wire, direct_script, scenario(), SessionOptions::default()).await;
        let meta = Harness::with(wire, meta_script, scenario(), meta_options()).await;
        let (direct_asked, meta_asked) = (
            Asked::new(ApprovalDecision::Approve),
            Asked::new(ApprovalDecision::Approve),
        );
        let (d_outcome, d_events) = direct
            .turn_with(&mut Conversation::new(), "wipe it", &direct_asked)
            .await;
        let (m_outcome, m_events) = meta
            .turn_with(&mut Conversation::new(), "wipe it", &meta_asked)
            .await;
        assert_eq!(d_outcome.unwrap().stop, StopReason::Answered);
        assert_eq!(m_outcome.unwrap().stop, StopReason::Answered);

        let (d_requests, m_requests) = (direct.llm.requests(), meta.llm.requests());
        assert_eq!(
            declared_tools(wire, &d_requests[0]),
            vec!["fake__echo", "fake__wipe", "fake__big"],
            "auto: three small tools are declared as themselves"
        );
        assert_eq!(
            declared_tools(wire, &m_requests[0]),
            vec!["mcp_search_fake", "mcp_describe_fake", "mcp_invoke_fake"]
        );
        // The same approval question (only wipe is destructive).
        assert_eq!(direct_asked.requests().len(), 1);
        assert_eq!(direct_asked.requests(), meta_asked.requests());
        // The same bounded results (header line, truncated text, the same handle).
        let d_results = tool_results(wire, &d_requests[1]);
        assert_eq!(d_results, tool_results(wire, &m_requests[1]));
        assert!(
            d_results[1].1.contains("coyote-result://"),
            "{}",
            d_results[1].1
        );
        assert!(d_results[1].1.len() < 300 * 1024);
        // The same events.
        assert_eq!(comparable(d_events), comparable(m_events));
        assert_eq!(direct.server.events().tool_calls("wipe"), 1);
        assert_eq!(meta.server.events().tool_calls("wipe"), 1);
        direct.assert_requests_valid();
        meta.assert_requests_valid();
        direct.shutdown().await;
        meta.shutdown().await;
    }
}

#[tokio::test]
async fn a_repeated_direct_call_is_not_run_and_text_is_asked_for() {
    let script = vec![
        Reply::call("fake__echo", json!({"text": "x"})),
        Reply::call("fake__echo", json!({"text": "x"})),
        Reply::text("x"),
    ];
    let h = Harness::with(
        LlmWire::OpenAi,
        script,
        scenario(),
        SessionOptions::default(),
    )
    .await;
    let (outcome, _) = h.turn(&mut Conversation::new(), "echo x").await;
    assert_eq!(outcome.unwrap().stop, StopReason::Answered);
    assert_eq!(h.server.events().tool_calls("echo"), 1);
    let requests = h.llm.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[2].get("tools").is_none(), "{}", requests[2]);
    let results = tool_results(LlmWire::OpenAi, &requests[2]);
    assert_eq!(
        results,
        vec![(
            results[0].0.clone(),
            "Result of tool `echo` on MCP server `fake`: answer the user from it unless you need \
             another tool.\nx"
                .to_owned()
        )]
    );
    h.assert_requests_valid();
    h.shutdown().await;
}

#[tokio::test]
async fn identical_calls_in_one_message_run_once_and_ask_once() {
    let wipe = || ("fake__wipe", json!({"target": "/data"}));
    let script = vec![
        Reply::calls(
            "",
            vec![wipe(), ("fake__echo", json!({"text": "y"})), wipe()],
        ),
        Reply::text("done"),
    ];
    let h = Harness::with(
        LlmWire::OpenAi,
        script,
        scenario(),
        SessionOptions::default(),
    )
    .await;
    let asked = Asked::new(ApprovalDecision::Approve);
    let (outcome, _) = h.turn_with(&mut Conversation::new(), "wipe", &asked).await;
    assert_eq!(outcome.unwrap().stop, StopReason::Answered);
    assert_eq!(asked.requests().len(), 1);
    assert_eq!(h.server.events().tool_calls("wipe"), 1);
    let results = tool_results(LlmWire::OpenAi, &h.llm.requests()[1]);
    assert_eq!(results.len(), 3);
    assert!(
        results[0].1.starts_with("Result of tool `wipe`"),
        "{}",
        results[0].1
    );
    assert!(
        results[2].1.starts_with("Not run again: ") && results[2].1.ends_with(&results[0].1),
        "{}",
        results[2].1
    );
    h.assert_requests_valid();
    h.shutdown().await;
}
