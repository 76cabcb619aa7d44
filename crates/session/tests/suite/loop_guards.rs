//! The loop guards: an answer that only repeats calls already answered in the turn is set
//! aside and text is asked for; a repeated call next to new ones gets the earlier result back
//! without running; a third identical call in a row is not run; output the server cannot parse
//! is asked again with a call required, once per request; and `max_tool_rounds` stops the turn without
//! another request or a synthesized answer.

use coyote_llm::Message;
use coyote_mcp::meta::META_GUIDE;
use coyote_session::{Conversation, SessionEvent, SessionOptions, StopReason, ToolCallStatus};
use coyote_test_support::fake_llm::{LlmWire, Reply, tool_results};
use serde_json::{Value, json};

use super::support::{Harness, discarded, scenario, statuses, warnings, wires};

#[tokio::test]
async fn an_answer_that_only_repeats_answered_calls_is_set_aside_and_text_is_asked_for() {
    for wire in wires() {
        // Key order differs in the second call: still identical.
        let script = vec![
            Reply::call(
                "mcp_invoke_fake",
                json!({"tool": "echo", "arguments": {"text": "x"}}),
            ),
            Reply::call(
                "mcp_invoke_fake",
                json!({"arguments": {"text": "x"}, "tool": "echo"}),
            ),
            Reply::text("x it is"),
        ];
        let h = Harness::new(wire, script).await;
        let mut conversation = Conversation::new();
        let (outcome, events) = h.turn(&mut conversation, "echo x").await;
        let outcome = outcome.unwrap();
        assert_eq!(outcome.stop, StopReason::Answered);
        assert_eq!(outcome.rounds, 3);
        assert_eq!(h.server.events().tool_calls("echo"), 1);
        assert_eq!(statuses(&events), vec![ToolCallStatus::Ok]);
        assert_eq!(
            warnings(&events),
            vec![
                "the model called `mcp_invoke_fake` again with the same arguments although it \
                 already has the outcome; asking it to answer from the results it has (no \
                 functions offered for the next request)"
                    .to_owned()
            ]
        );
        let requests = h.llm.requests();
        assert_eq!(requests.len(), 3);
        // The third request asks for text: OpenAI-compatible without declarations, Anthropic
        // with tool_choice none; and the set-aside answer is not in its history.
        // A last system line of that request only says what to do.
        let nudge = "Answer the user's question now, in plain text, from the tool results above.";
        assert_eq!(coyote_session::ANSWER_FROM_RESULTS, nudge);
        match wire {
            LlmWire::OpenAi => {
                assert!(requests[2].get("tools").is_none(), "{}", requests[2]);
                let mut expected = requests[1]["messages"].as_array().unwrap().clone();
                expected.push(json!({"role": "system", "content": nudge}));
                assert_eq!(requests[2]["messages"], Value::Array(expected));
            }
            LlmWire::Anthropic => {
                assert_eq!(requests[2]["tool_choice"], json!({"type": "none"}));
                assert_eq!(requests[1]["messages"], requests[2]["messages"]);
                // The meta-function guide of every request with meta-functions, then the nudge.
                assert_eq!(requests[1]["system"], json!(META_GUIDE));
                let system = requests[2]["system"].as_str().unwrap();
                assert!(
                    system.starts_with(META_GUIDE) && system.ends_with(nudge),
                    "{system}"
                );
            }
        }
        assert!(requests[1].get("tool_choice").is_none(), "{}", requests[1]);
        // The conversation keeps only what the model said and was answered.
        let kinds: Vec<&str> = conversation
            .messages
            .iter()
            .map(|m| match m {
                Message::User { .. } => "user",
                Message::Assistant(a) if a.tool_calls.is_empty() => "text",
                Message::Assistant(_) => "calls",
                Message::Tool(_) => "result",
                Message::System { .. } => "system",
            })
            .collect();
        assert_eq!(kinds, vec!["user", "calls", "result", "text"]);
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn an_answered_call_next_to_a_new_one_gets_its_earlier_result_without_running() {
    for wire in wires() {
        let echo = || {
            (
                "mcp_invoke_fake",
                json!({"tool": "echo", "arguments": {"text": "x"}}),
            )
        };
        let script = vec![
            Reply::calls("", vec![echo()]),
            // Not only repeats: runs, and the repeated one gets its earlier result.
            Reply::calls(
                "",
                vec![echo(), ("mcp_invoke_fake", json!({"tool": "fixed"}))],
            ),
            Reply::text("done"),
        ];
        let h = Harness::new(wire, script).await;
        let mut conversation = Conversation::new();
        let (outcome, events) = h.turn(&mut conversation, "echo, then fixed").await;
        assert_eq!(outcome.unwrap().stop, StopReason::Answered);
        assert_eq!(
            statuses(&events),
            vec![
                ToolCallStatus::Ok,
                ToolCallStatus::Repeated,
                ToolCallStatus::Ok
            ]
        );
        assert_eq!(warnings(&events), Vec::<String>::new());
        assert_eq!(h.server.events().tool_calls("echo"), 1);
        assert_eq!(h.server.events().tool_calls("fixed"), 1);
        let results = tool_results(wire, &h.llm.requests()[2]);
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
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn a_repeated_failing_call_is_set_aside_and_the_third_in_a_row_is_not_run() {
    for wire in wires() {
        let fails = || Reply::call("mcp_invoke_fake", json!({"tool": "fails"}));
        // A model (or server) that keeps calling although text was asked for: the set-aside
        // answers do not count, the calls made under "text please" do, and the third identical
        // call in a row is refused.
        let script = vec![
            fails(),
            fails(),
            fails(),
            fails(),
            fails(),
            Reply::text("it keeps failing"),
        ];
        let h = Harness::new(wire, script).await;
        let mut conversation = Conversation::new();
        let (outcome, events) = h.turn(&mut conversation, "loop").await;
        assert_eq!(outcome.unwrap().stop, StopReason::Answered);
        assert_eq!(
            statuses(&events),
            vec![
                ToolCallStatus::Error,
                ToolCallStatus::Error,
                ToolCallStatus::Repeated
            ]
        );
        assert_eq!(warnings(&events).len(), 2);
        assert_eq!(h.server.events().tool_calls("fails"), 2);
        let requests = h.llm.requests();
        assert_eq!(requests.len(), 6);
        let results = tool_results(wire, &requests[5]);
        assert_eq!(
            results.last().unwrap().1,
            "Not run: `mcp_invoke_fake` was called 3 times in a row with the same arguments, \
             and its result will not change. Use the results you already have to answer the \
             user, or call something different."
        );
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn unparsed_model_output_is_asked_again_with_a_call_required_once_per_request() {
    let unparsed = || {
        Reply::status(
            500,
            json!({"error": {"code": 500, "message": "The model produced output that does not match the expected peg-native format", "type": "server_error"}}),
        )
    };
    let script = vec![
        unparsed(),
        Reply::call("mcp_invoke_fake", json!({"tool": "fixed"})),
        // A later request of the same turn gets its own second chance (multi-step tasks fail
        // this way at each step)...
        unparsed(),
        // ...but a request that fails again with the call required is the turn's error.
        unparsed(),
    ];
    let h = Harness::new(LlmWire::OpenAi, script).await;
    let mut conversation = Conversation::new();
    let (outcome, events) = h.turn(&mut conversation, "fixed please").await;
    let error = outcome.unwrap_err();
    assert!(
        matches!(
            error.downcast_ref::<coyote_session::SessionError>(),
            Some(coyote_session::SessionError::Llm(
                coyote_llm::LlmError::UnparsedOutput { .. }
            ))
        ),
        "{error:?}"
    );
    assert_eq!(h.server.events().tool_calls("fixed"), 1);
    let warning = "the model server could not parse the model's answer as text or a call of a \
                   declared function (a small model misnaming a function?); asking again with a \
                   function call required. The server reported no token counts for the \
                   discarded attempt: its prompt was about ";
    // Each failed attempt is discarded as such (front ends drop what they hold of it), not
    // reported as a plain warning beside the text it streamed, and says what it cost.
    let said = discarded(&events);
    assert_eq!(said.len(), 2, "{said:?}");
    let estimates: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::AttemptDiscarded {
                estimated_input_tokens,
                ..
            } => Some(*estimated_input_tokens),
            _ => None,
        })
        .collect();
    for (message, estimate) in said.iter().zip(&estimates) {
        assert!(*estimate > 0, "{estimates:?}");
        assert_eq!(
            message,
            &format!("{warning}{estimate} tokens (estimated)"),
            "{said:?}"
        );
    }
    // The second attempt's prompt holds the first round's call and result: it is larger.
    assert!(estimates[1] > estimates[0], "{estimates:?}");
    // Kept apart from the server's counts, so `.info` and saved sessions show both.
    assert_eq!(conversation.usage.discarded_attempts, 2);
    assert_eq!(
        conversation.usage.discarded_input_estimate,
        estimates.iter().sum::<u64>()
    );
    assert!(warnings(&events).is_empty(), "{:?}", warnings(&events));
    let requests = h.llm.requests();
    assert_eq!(requests.len(), 4);
    let choices: Vec<Option<&Value>> = requests.iter().map(|r| r.get("tool_choice")).collect();
    let required = json!("required");
    assert_eq!(choices, vec![None, Some(&required), None, Some(&required)]);
    assert_eq!(requests[0]["messages"], requests[1]["messages"]);
    assert_eq!(requests[2]["messages"], requests[3]["messages"]);
    h.assert_requests_valid();
    h.shutdown().await;
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
