//! The loop guards: a call identical to one already answered in the turn gets the earlier
//! result back without running, a third identical call in a row is not run, and
//! `max_tool_rounds` stops the turn without another request or a synthesized answer.

use coyote_llm::Message;
use coyote_session::{Conversation, SessionEvent, SessionOptions, StopReason, ToolCallStatus};
use coyote_test_support::fake_llm::{LlmWire, Reply, tool_results};
use serde_json::json;

use super::support::{Harness, scenario, wires};

#[tokio::test]
async fn an_answered_call_is_reused_and_the_third_in_a_row_is_not_run() {
    for wire in wires() {
        let echo = || {
            Reply::call(
                "mcp_invoke_fake",
                json!({"tool": "echo", "arguments": {"text": "x"}}),
            )
        };
        // Key order differs in the second call: still identical.
        let reordered = Reply::call(
            "mcp_invoke_fake",
            json!({"arguments": {"text": "x"}, "tool": "echo"}),
        );
        let script = vec![echo(), reordered, echo(), Reply::text("ok, stopping")];
        let h = Harness::new(wire, script).await;
        let mut conversation = Conversation::new();
        let (outcome, events) = h.turn(&mut conversation, "loop").await;
        assert_eq!(outcome.unwrap().stop, StopReason::Answered);
        let statuses: Vec<ToolCallStatus> = events
            .iter()
            .filter_map(|e| match e {
                SessionEvent::ToolCallFinished { status, .. } => Some(*status),
                _ => None,
            })
            .collect();
        assert_eq!(
            statuses,
            vec![
                ToolCallStatus::Ok,
                ToolCallStatus::Repeated,
                ToolCallStatus::Repeated
            ]
        );
        // The second call got the first one's result back: one tools/call in all.
        assert_eq!(h.server.events().tool_calls("echo"), 1);
        let results = tool_results(wire, &h.llm.requests()[3]);
        assert_eq!(
            results[1].1,
            format!(
                "Not run again: this exact call was already answered in this turn; its result \
                 is repeated below. Answer the user from it instead of calling it again.\n{}",
                results[0].1
            )
        );
        assert!(
            results[0]
                .1
                .starts_with("Result of tool `echo` on MCP server `fake`: answer the user"),
            "{}",
            results[0].1
        );
        assert_eq!(
            results[2].1,
            "Not run: `mcp_invoke_fake` was called 3 times in a row with the same arguments, \
             and its result will not change. Use the results you already have to answer the \
             user, or call something different."
        );
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn max_tool_rounds_stops_without_another_request() {
    for wire in wires() {
        let script = vec![
            Reply::call(
                "mcp_invoke_fake",
                json!({"tool": "echo", "arguments": {"text": "1"}}),
            ),
            Reply::call(
                "mcp_invoke_fake",
                json!({"tool": "echo", "arguments": {"text": "2"}}),
            ),
            Reply::text("never requested"),
        ];
        let options = SessionOptions {
            max_tool_rounds: 2,
            ..SessionOptions::default()
        };
        let h = Harness::with(wire, script, scenario(), options).await;
        let mut conversation = Conversation::new();
        let (outcome, events) = h.turn(&mut conversation, "go").await;
        let outcome = outcome.unwrap();
        assert_eq!(outcome.stop, StopReason::MaxToolRounds { limit: 2 });
        assert_eq!(outcome.rounds, 2);
        assert_eq!(h.llm.requests().len(), 2);
        assert_eq!(h.llm.remaining(), 1);
        let warning = events.iter().find_map(|e| match e {
            SessionEvent::Warning { message } => Some(message.clone()),
            _ => None,
        });
        assert_eq!(
            warning.as_deref(),
            Some(
                "stopped after 2 rounds of tool calls (max_tool_rounds); the model has not \
                 answered yet — send a message to let it continue, or raise max_tool_rounds in \
                 config.yaml"
            )
        );
        // The conversation ends with the last result, not an invented answer.
        assert!(matches!(
            conversation.messages.last(),
            Some(Message::Tool(_))
        ));
        assert_eq!(
            conversation
                .messages
                .iter()
                .filter(|m| matches!(m, Message::Assistant(_)))
                .count(),
            2
        );
        // Continuing is a valid request.
        let (next, _) = h.turn(&mut conversation, "continue").await;
        assert_eq!(next.unwrap().stop, StopReason::Answered);
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn the_guard_resets_between_turns() {
    let echo = || Reply::call("mcp_invoke_fake", json!({"tool": "echo"}));
    let script = vec![echo(), echo(), Reply::text("a"), echo(), Reply::text("b")];
    let h = Harness::new(LlmWire::OpenAi, script).await;
    let mut conversation = Conversation::new();
    h.turn(&mut conversation, "1").await.0.unwrap();
    // Turn 1: run once, then reused; turn 2 starts over and runs it again.
    assert_eq!(h.server.events().tool_calls("echo"), 1);
    h.turn(&mut conversation, "2").await.0.unwrap();
    assert_eq!(h.server.events().tool_calls("echo"), 2);
    h.shutdown().await;
}
