//! Cancellation: a slow MCP call is cancelled on the wire (the fake server sees
//! `notifications/cancelled`), every call still gets a result, the partial answer is kept, and
//! the next turn's request is valid.

use std::time::Duration;

use coyote_llm::{AssistantMessage, Message, ToolResult};
use coyote_session::{
    CANCELLED_TEXT, CancellationToken, Conversation, EventLog, SessionEvent, StopReason,
    ToolCallStatus, TurnContext,
};
use coyote_test_support::fake_llm::{LlmWire, Reply, tool_results};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::support::{Asked, Harness, Hooked, wires};

/// Generous bound for the fake server to observe something; never a timing assertion.
const OBSERVE: Duration = Duration::from_secs(20);

#[tokio::test]
async fn cancelling_a_hanging_call_sends_cancelled_and_answers_every_call() {
    for wire in wires() {
        let script = vec![
            Reply::calls(
                "Working on it.",
                vec![
                    ("mcp_invoke_fake", json!({"tool": "hang"})),
                    ("mcp_invoke_fake", json!({"tool": "fixed"})),
                ],
            ),
            Reply::text("You cancelled; fine."),
        ];
        let h = Harness::new(wire, script).await;
        let cancel = CancellationToken::new();
        let server = h.server.clone();
        let trigger = cancel.clone();
        let watcher = tokio::spawn(async move {
            let seen = server
                .wait_for(OBSERVE, |log| log.tool_calls("hang") == 1)
                .await;
            trigger.cancel();
            seen.is_ok()
        });
        let log = EventLog::new();
        let approver = Asked::refusing();
        let ctx = TurnContext {
            events: &log,
            approver: &approver,
            cancel,
        };
        let mut conversation = Conversation::new();
        let outcome = h
            .session
            .run_turn(&mut conversation, "run the slow one", &ctx)
            .await
            .unwrap();
        assert!(watcher.await.unwrap(), "the fake server saw the hang call");
        assert_eq!(outcome.stop, StopReason::Cancelled);
        // The host sent notifications/cancelled for the abandoned request, and the hanging
        // tool saw it (`fixed` may have finished or been cancelled too: it ran concurrently).
        h.server
            .wait_for(OBSERVE, |log| {
                log.cancelled_notifications() >= 1
                    && log.tools_cancelled().contains(&"hang".to_string())
            })
            .await
            .expect("notifications/cancelled reached the server");
        let (hang_id, fixed_id) = match wire {
            LlmWire::OpenAi => ("call_0_0", "call_0_1"),
            LlmWire::Anthropic => ("toolu_0_0", "toolu_0_1"),
        };
        // The model's own message is kept; the hanging call is answered "cancelled".
        assert_eq!(conversation.messages.len(), 4);
        match &conversation.messages[1] {
            Message::Assistant(a) => assert_eq!(a.text, "Working on it."),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            conversation.messages[2],
            Message::tool_result(ToolResult::error(hang_id, CANCELLED_TEXT))
        );
        let finished: Vec<(String, ToolCallStatus)> = log
            .events()
            .iter()
            .filter_map(|e| match e {
                SessionEvent::ToolCallFinished {
                    call_id, status, ..
                } => Some((call_id.clone(), *status)),
                _ => None,
            })
            .collect();
        assert!(
            finished.contains(&(hang_id.to_string(), ToolCallStatus::Cancelled)),
            "{finished:?}"
        );
        assert_eq!(finished.len(), 2, "{finished:?}");
        assert!(finished.iter().any(|(id, _)| id == fixed_id));

        // The next turn is a valid request carrying the cancelled result.
        let (next, _) = h.turn(&mut conversation, "never mind").await;
        assert_eq!(next.unwrap().stop, StopReason::Answered);
        let results = tool_results(wire, &h.llm.requests()[1]);
        assert_eq!(
            results[0],
            (hang_id.to_string(), CANCELLED_TEXT.to_string())
        );
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn a_turn_cancelled_before_it_starts_sends_nothing() {
    let h = Harness::new(LlmWire::OpenAi, vec![Reply::text("unused")]).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let log = EventLog::new();
    let approver = Asked::refusing();
    let ctx = TurnContext {
        events: &log,
        approver: &approver,
        cancel,
    };
    let mut conversation = Conversation::new();
    let outcome = h
        .session
        .run_turn(&mut conversation, "hi", &ctx)
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Cancelled);
    assert_eq!(conversation.messages, vec![Message::user("hi")]);
    assert_eq!(h.llm.requests().len(), 0);
    h.shutdown().await;
}

/// What the server does after the first piece of text.
#[derive(Clone, Copy, PartialEq)]
enum Then {
    /// Keep the connection open and send nothing more.
    Stall,
    /// End the body (a stream cut mid-answer).
    Close,
}

/// Accepts one connection and answers with the start of an OpenAI SSE stream carrying `text`.
async fn stalling_openai_server(
    text: &'static str,
    then: Then,
) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 65536];
        let mut seen = Vec::new();
        while !String::from_utf8_lossy(&seen).contains("\"messages\"") {
            let n = socket.read(&mut buf).await.unwrap();
            if n == 0 {
                return;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        let chunk = json!({"choices": [{"index": 0, "delta": {"content": text}}]});
        let event = format!("data: {chunk}\n\n");
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        socket.write_all(head.as_bytes()).await.unwrap();
        socket
            .write_all(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes())
            .await
            .unwrap();
        socket.flush().await.unwrap();
        if then == Then::Close {
            socket.write_all(b"0\r\n\r\n").await.unwrap();
            socket.shutdown().await.ok();
        }
        // Hold the stream open until the client goes away.
        let _ = socket.read(&mut buf).await;
    });
    (base, task)
}

/// A session on model `m` of the OpenAI-compatible client `client` at `base`, with an empty
/// MCP runtime; keep the returned directory (the spill store) alive for the test.
fn session_without_servers(
    client: &str,
    base: String,
) -> (
    coyote_session::Session,
    coyote_mcp::McpRuntime,
    tempfile::TempDir,
) {
    let provider = coyote_llm::build_provider(
        coyote_llm::ProviderConfig::new(coyote_llm::ProviderKind::OpenAiCompatible, client, base)
            .with_api_key(coyote_llm::ApiKey::new("sk-test")),
    )
    .unwrap();
    let runtime = coyote_mcp::McpRuntime::new(coyote_mcp::RuntimeOptions::default());
    let spill = tempfile::tempdir().unwrap();
    let session = coyote_session::Session::builder(
        provider,
        coyote_session::ModelSettings::named("m"),
        runtime.clone(),
        coyote_mcp::SpillStore::new(spill.path()),
    )
    .build();
    (session, runtime, spill)
}

#[tokio::test]
async fn cancelling_mid_stream_keeps_the_partial_text() {
    let (base, server) = stalling_openai_server("The first half of an ans", Then::Stall).await;
    let (session, runtime, _spill) = session_without_servers("stall", base);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let sink = Hooked {
        log: EventLog::new(),
        hook: move |e: &SessionEvent| {
            if matches!(e, SessionEvent::TextDelta { .. }) {
                trigger.cancel();
            }
        },
    };
    let approver = Asked::refusing();
    let ctx = TurnContext {
        events: &sink,
        approver: &approver,
        cancel,
    };
    let mut conversation = Conversation::new();
    let outcome = session
        .run_turn(&mut conversation, "tell me", &ctx)
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Cancelled);
    assert_eq!(
        conversation.messages,
        vec![
            Message::user("tell me"),
            Message::assistant(AssistantMessage::text("The first half of an ans"))
        ]
    );
    let events = sink.log.events();
    assert_eq!(
        events.last(),
        Some(&SessionEvent::TurnFinished {
            stop: StopReason::Cancelled,
            rounds: 1,
            usage: coyote_llm::Usage::default()
        })
    );
    // The client dropped the connection: the server task ends.
    tokio::time::timeout(OBSERVE, server)
        .await
        .unwrap()
        .unwrap();
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_stream_cut_mid_answer_keeps_the_text_and_fails_the_turn() {
    let (base, server) = stalling_openai_server("Half an answ", Then::Close).await;
    let (session, runtime, _spill) = session_without_servers("cut", base);
    let log = EventLog::new();
    let approver = Asked::refusing();
    let ctx = TurnContext {
        events: &log,
        approver: &approver,
        cancel: CancellationToken::new(),
    };
    let mut conversation = Conversation::new();
    let error = session
        .run_turn(&mut conversation, "tell me", &ctx)
        .await
        .unwrap_err();
    let coyote_session::SessionError::Llm(inner) = &error;
    assert!(
        matches!(inner, coyote_llm::LlmError::Protocol { .. }),
        "{inner:?}"
    );
    assert_eq!(
        conversation.messages,
        vec![
            Message::user("tell me"),
            Message::assistant(AssistantMessage::text("Half an answ"))
        ]
    );
    tokio::time::timeout(OBSERVE, server)
        .await
        .unwrap()
        .unwrap();
    runtime.shutdown().await;
}
