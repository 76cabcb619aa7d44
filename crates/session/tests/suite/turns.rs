//! Whole turns: plain answers, meta-function rounds against the fake server, parallel calls,
//! errors the model gets as results, and model errors the caller gets.

use coyote_llm::{AssistantMessage, LlmError, Message, ToolCall, ToolResult, Usage};
use coyote_session::{Conversation, SessionEvent, StopReason, ToolCallStatus, TurnOutcome};
use coyote_test_support::fake_llm::{
    FAKE_OUTPUT_TOKENS, LlmWire, Reply, declared_tools, tool_results, user_texts,
};
use serde_json::json;

use super::support::{Harness, SERVER, streamed_text, whole_options, wires, without_deltas};

fn call_id(wire: LlmWire, reply: usize, i: usize) -> String {
    match wire {
        LlmWire::OpenAi => format!("call_{reply}_{i}"),
        LlmWire::Anthropic => format!("toolu_{reply}_{i}"),
    }
}

#[tokio::test]
async fn a_plain_answer_streams_and_is_kept() {
    for wire in wires() {
        let h = Harness::new(wire, vec![Reply::text("Hello there, friend.")]).await;
        let mut conversation = Conversation::with_system("be kind");
        let (outcome, events) = h.turn(&mut conversation, "hi").await;
        let outcome = outcome.unwrap();
        assert_eq!(streamed_text(&events), "Hello there, friend.");
        assert!(
            events
                .iter()
                .filter(|e| matches!(e, SessionEvent::TextDelta { .. }))
                .count()
                > 1,
            "{wire:?}: text arrives in pieces"
        );
        let usage = outcome.usage;
        assert_eq!(usage.output, FAKE_OUTPUT_TOKENS);
        assert_eq!(
            without_deltas(&events),
            vec![
                SessionEvent::RequestStarted {
                    round: 1,
                    tools: 3,
                    retrieved: vec![]
                },
                SessionEvent::Usage {
                    input: usage.input,
                    output: usage.output
                },
                SessionEvent::TurnFinished {
                    stop: StopReason::Answered,
                    rounds: 1,
                    usage
                },
            ]
        );
        assert_eq!(
            conversation.messages,
            vec![
                Message::user("hi"),
                Message::assistant(AssistantMessage::text("Hello there, friend."))
            ]
        );
        assert_eq!(conversation.usage.output, FAKE_OUTPUT_TOKENS);
        let requests = h.llm.requests();
        assert_eq!(requests.len(), 1);
        // The fake server has tools only: search, describe, invoke (gated by the server's live features).
        assert_eq!(
            declared_tools(wire, &requests[0]),
            vec!["mcp_search_fake", "mcp_describe_fake", "mcp_invoke_fake"]
        );
        assert_eq!(user_texts(wire, &requests[0]), vec!["hi"]);
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
#[allow(
    clippy::too_many_lines,
    reason = "the whole event stream of a three-round turn is compared as one value"
)]
async fn search_then_invoke_carries_real_tool_output_into_the_next_request() {
    for wire in wires() {
        for whole in [false, true] {
            let script = vec![
                Reply::call("mcp_search_fake", json!({"query": "echo"})),
                Reply::calls(
                    "Let me run it.",
                    vec![(
                        "mcp_invoke_fake",
                        json!({"tool": "echo", "arguments": {"text": "hello from the model"}}),
                    )],
                ),
                Reply::text("The echo tool said: hello from the model."),
            ];
            let options = if whole {
                whole_options()
            } else {
                super::support::meta_options()
            };
            let h = Harness::with(wire, script, super::support::scenario(), options).await;
            let mut conversation = Conversation::new();
            let (outcome, events) = h.turn(&mut conversation, "what tools do you have?").await;
            let outcome = outcome.unwrap();
            assert_eq!(outcome.stop, StopReason::Answered);
            assert_eq!(outcome.rounds, 3);

            let finished: Vec<(String, ToolCallStatus, String)> = events
                .iter()
                .filter_map(|e| match e {
                    SessionEvent::ToolCallFinished {
                        call_id,
                        status,
                        output,
                        ..
                    } => Some((call_id.clone(), *status, output.clone())),
                    _ => None,
                })
                .collect();
            assert_eq!(finished.len(), 2, "{events:?}");
            let search_output = finished[0].2.clone();
            let invoke_output = finished[1].2.clone();
            assert!(search_output.contains("\"echo\""), "{search_output}");
            assert!(
                invoke_output.contains("hello from the model"),
                "{invoke_output}"
            );

            let requests = h.llm.requests();
            assert_eq!(requests.len(), 3);
            let first = call_id(wire, 0, 0);
            let second = call_id(wire, 1, 0);
            assert_eq!(
                tool_results(wire, &requests[1]),
                vec![(first.clone(), search_output.clone())]
            );
            assert_eq!(
                tool_results(wire, &requests[2]),
                vec![
                    (first.clone(), search_output.clone()),
                    (second.clone(), invoke_output.clone())
                ]
            );

            let usage = |i: usize| {
                events
                    .iter()
                    .filter(|e| matches!(e, SessionEvent::Usage { .. }))
                    .nth(i)
                    .cloned()
                    .unwrap()
            };
            assert_eq!(
                without_deltas(&events),
                vec![
                    SessionEvent::RequestStarted {
                        round: 1,
                        tools: 3,
                        retrieved: vec![]
                    },
                    usage(0),
                    SessionEvent::ToolCallStarted {
                        call_id: first.clone(),
                        name: "mcp_search_fake".into(),
                        server: Some(SERVER.into()),
                        tool: None,
                        arguments: json!({"query": "echo"}),
                    },
                    SessionEvent::ToolCallFinished {
                        call_id: first.clone(),
                        name: "mcp_search_fake".into(),
                        server: Some(SERVER.into()),
                        tool: None,
                        status: ToolCallStatus::Ok,
                        duration_ms: 0,
                        output: search_output.clone(),
                    },
                    SessionEvent::RoundFinished {
                        round: 1,
                        tool_calls: 1
                    },
                    SessionEvent::RequestStarted {
                        round: 2,
                        tools: 3,
                        retrieved: vec![]
                    },
                    usage(1),
                    SessionEvent::ToolCallStarted {
                        call_id: second.clone(),
                        name: "mcp_invoke_fake".into(),
                        server: Some(SERVER.into()),
                        tool: Some("echo".into()),
                        arguments: json!({"tool": "echo", "arguments": {"text": "hello from the model"}}),
                    },
                    SessionEvent::ToolCallFinished {
                        call_id: second.clone(),
                        name: "mcp_invoke_fake".into(),
                        server: Some(SERVER.into()),
                        tool: Some("echo".into()),
                        status: ToolCallStatus::Ok,
                        duration_ms: 0,
                        output: invoke_output.clone(),
                    },
                    SessionEvent::RoundFinished {
                        round: 2,
                        tool_calls: 1
                    },
                    SessionEvent::RequestStarted {
                        round: 3,
                        tools: 3,
                        retrieved: vec![]
                    },
                    usage(2),
                    SessionEvent::TurnFinished {
                        stop: StopReason::Answered,
                        rounds: 3,
                        usage: outcome.usage
                    },
                ],
                "{wire:?} whole={whole}"
            );
            assert_eq!(
                streamed_text(&events),
                "Let me run it.The echo tool said: hello from the model."
            );
            assert_eq!(h.server.events().tool_calls("echo"), 1);
            assert_eq!(conversation.messages.len(), 6);
            h.assert_requests_valid();
            h.shutdown().await;
        }
    }
}

#[tokio::test]
async fn parallel_calls_are_answered_in_call_order_with_errors_as_results() {
    for wire in wires() {
        let script = vec![
            Reply::calls(
                "",
                vec![
                    ("mcp_invoke_fake", json!({"tool": "fixed", "arguments": {}})),
                    ("mcp_invoke_fake", json!({"tool": "fails", "arguments": {}})),
                    ("mcp_read_fake", json!({"uri": "fake://none"})),
                    ("get_weather", json!({"city": "Paris"})),
                ],
            ),
            Reply::text("done"),
        ];
        let h = Harness::new(wire, script).await;
        let mut conversation = Conversation::new();
        let (outcome, events) = h.turn(&mut conversation, "go").await;
        assert_eq!(outcome.unwrap().stop, StopReason::Answered);
        let statuses: Vec<(String, ToolCallStatus)> = events
            .iter()
            .filter_map(|e| match e {
                SessionEvent::ToolCallFinished {
                    call_id, status, ..
                } => Some((call_id.clone(), *status)),
                _ => None,
            })
            .collect();
        // Finish order may vary; every call finishes exactly once.
        let mut sorted = statuses.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            vec![
                (call_id(wire, 0, 0), ToolCallStatus::Ok),
                (call_id(wire, 0, 1), ToolCallStatus::Error),
                (call_id(wire, 0, 2), ToolCallStatus::Error),
                (call_id(wire, 0, 3), ToolCallStatus::Error),
            ]
        );
        let results = tool_results(wire, &h.llm.requests()[1]);
        let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
        let expected_ids: Vec<String> = (0..4).map(|i| call_id(wire, 0, i)).collect();
        assert_eq!(ids, expected_ids);
        assert!(results[0].1.contains("fixed output"), "{}", results[0].1);
        assert!(results[1].1.contains("it failed"), "{}", results[1].1);
        // A read against a server without resources: the dispatcher's error, not a crash.
        assert!(!results[2].1.is_empty());
        assert!(
            results[3].1.contains("is not a function you can call now"),
            "{}",
            results[3].1
        );
        // Conversation: the model's own message, then one result per call in order.
        assert_eq!(conversation.messages.len(), 7);
        match &conversation.messages[2] {
            Message::Tool(ToolResult { call_id: id, .. }) => assert_eq!(id, &call_id(wire, 0, 0)),
            other => panic!("expected a tool result, got {other:?}"),
        }
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn a_model_error_fails_the_turn_and_keeps_the_user_message() {
    for wire in wires() {
        let h = Harness::new(
            wire,
            vec![Reply::status(
                401,
                json!({"error": {"message": "bad key", "type": "authentication_error"}}),
            )],
        )
        .await;
        let mut conversation = Conversation::new();
        let (outcome, events) = h.turn(&mut conversation, "hi").await;
        let error = outcome.unwrap_err();
        let llm = error
            .downcast_ref::<coyote_session::SessionError>()
            .expect("a session error");
        let coyote_session::SessionError::Llm(inner) = llm;
        assert!(matches!(inner, LlmError::Auth { .. }), "{inner:?}");
        assert!(!error.to_string().contains("sk-test"), "{error}");
        assert_eq!(conversation.messages, vec![Message::user("hi")]);
        assert_eq!(
            events,
            vec![SessionEvent::RequestStarted {
                round: 1,
                tools: 3,
                retrieved: vec![]
            }]
        );
        h.shutdown().await;
    }
}

#[tokio::test]
async fn a_second_turn_sends_the_whole_history() {
    let wire = LlmWire::OpenAi;
    let h = Harness::new(
        wire,
        vec![
            Reply::call("mcp_invoke_fake", json!({"tool": "fixed"})),
            Reply::text("first answer"),
            Reply::text("second answer"),
        ],
    )
    .await;
    let mut conversation = Conversation::new();
    let (first, _) = h.turn(&mut conversation, "one").await;
    let (second, _) = h.turn(&mut conversation, "two").await;
    assert_eq!(first.unwrap().stop, StopReason::Answered);
    let second: TurnOutcome = second.unwrap();
    assert_eq!(second.rounds, 1);
    assert_eq!(
        second.usage,
        Usage {
            input: second.usage.input,
            output: FAKE_OUTPUT_TOKENS
        }
    );
    let last = &h.llm.requests()[2];
    assert_eq!(user_texts(wire, last), vec!["one", "two"]);
    // The meta-function guide, then user, assistant call, tool result, answer, user.
    assert_eq!(last["messages"].as_array().unwrap().len(), 6);
    assert_eq!(last["messages"][0]["role"], "system");
    assert_eq!(
        conversation.messages[1],
        Message::assistant(AssistantMessage {
            replay: Vec::new(),
            text: String::new(),
            tool_calls: vec![ToolCall::new(
                "call_0_0",
                "mcp_invoke_fake",
                r#"{"tool":"fixed"}"#
            )]
        })
    );
    h.assert_requests_valid();
    h.shutdown().await;
}
