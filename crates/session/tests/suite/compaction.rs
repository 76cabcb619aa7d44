//! A scripted conversation that crosses the compaction threshold keeps a
//! valid request (every tool call answered — the fake model checks), the system prompt and the
//! last turns, and shrinks below the threshold. Both wire formats.

use coyote_llm::{AssistantMessage, Message, StreamMode};
use coyote_mcp::{McpRuntime, RuntimeOptions, SpillStore};
use coyote_protocol::Timeouts;
use coyote_session::{
    AutoCompact, COMPACTED_RESULT_PREFIX, CompactTrigger, ContextPolicy, Conversation, EventLog,
    ModelSettings, SUMMARY_LABEL, Session, SessionEvent, SessionOptions, TurnContext,
    estimate_tokens,
};
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};
use coyote_test_support::{Capabilities, Scenario, ToolBehavior, in_process};
use serde_json::json;

use super::support::{Asked, provider, wires};

/// A 1000-token window compacts at 800.
const WINDOW: u32 = 1000;
const THRESHOLD: u64 = 800;

fn policy() -> ContextPolicy {
    ContextPolicy {
        window: WINDOW,
        threshold_percent: 80,
        keep_last_turns: 2,
        auto: AutoCompact::Enabled,
    }
}

struct World {
    llm: FakeLlm,
    session: Session,
    runtime: McpRuntime,
    _dir: tempfile::TempDir,
}

async fn world(wire: LlmWire, script: Vec<Reply>) -> World {
    // Resources too: the spilled results are paged back with `mcp_read_fake`.
    world_with(
        wire,
        script,
        Capabilities::none().with_tools().with_resources(),
    )
    .await
}

async fn world_with(wire: LlmWire, script: Vec<Reply>, capabilities: Capabilities) -> World {
    let llm = FakeLlm::start(wire, script).await;
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let scenario = Scenario::builder()
        .capabilities(capabilities)
        .safe_tool("big", ToolBehavior::BigText { bytes: 2400 })
        .build();
    let ((read, write), _server) = in_process(scenario);
    runtime
        .attach_stream("fake", Timeouts::default(), read, write)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = Session::builder(
        provider(&llm),
        ModelSettings::named("fake-model"),
        runtime.clone(),
        SpillStore::new(dir.path().join("mcp-resources")),
    )
    .options(SessionOptions {
        stream: StreamMode::Whole,
        // The window's default budget (400 bytes) would cut the big result before
        // compaction gets to move it: the server's own limit keeps it whole.
        budgets: big_budget(),
        ..super::support::meta_options()
    })
    .context(policy())
    .build();
    World {
        llm,
        session,
        runtime,
        _dir: dir,
    }
}

async fn turn(w: &World, conversation: &mut Conversation, input: &str) -> Vec<SessionEvent> {
    let log = EventLog::new();
    let ctx = TurnContext {
        events: &log,
        approver: &Asked::refusing(),
        cancel: coyote_session::CancellationToken::new(),
    };
    w.session
        .run_turn(conversation, input, &ctx)
        .await
        .expect("turn succeeds");
    log.events()
}

fn compaction_notices(events: &[SessionEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Warning { message } if message.contains("compacted") => {
                Some(message.clone())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn crossing_the_threshold_compacts_into_a_valid_smaller_request() {
    let a1 = "A".repeat(1600);
    let a2 = "B".repeat(1600);
    for wire in wires() {
        let script = vec![
            Reply::call("mcp_invoke_fake", json!({"tool": "big", "arguments": {}})),
            Reply::text(a1.clone()),
            Reply::text(a2.clone()),
            Reply::text("SUMMARY: the user asked q1; the big tool returned data; answered."),
            Reply::text("a3"),
        ];
        let w = world(wire, script).await;
        let mut conversation = Conversation::with_system("be brief");

        // Turn 1 stays below the threshold.
        let events = turn(&w, &mut conversation, "q1").await;
        assert_eq!(compaction_notices(&events), Vec::<String>::new());

        // Turn 2 starts above it: the old tool result goes to the spill store (both turns
        // are kept, so no summary is needed).
        let events = turn(&w, &mut conversation, "q2").await;
        assert_eq!(compaction_notices(&events).len(), 1, "{wire:?}");
        let spilled = match &conversation.messages[2] {
            Message::Tool(r) => r.content.clone(),
            other => panic!("{wire:?}: expected the tool result, got {other:?}"),
        };
        assert!(spilled.starts_with(COMPACTED_RESULT_PREFIX), "{spilled}");
        assert!(
            spilled.contains("mcp_read_fake {\"uri\": \"coyote-result://"),
            "{spilled}"
        );

        // Turn 3 starts above it again: turn 1 is summarised into one labelled user message.
        let events = turn(&w, &mut conversation, "q3").await;
        assert_eq!(compaction_notices(&events).len(), 1, "{wire:?}");
        assert_eq!(w.llm.remaining(), 0);
        let requests = w.llm.requests();
        assert_eq!(
            requests.len(),
            5,
            "{wire:?}: 4 turn requests and one summary request"
        );
        // The summary request quotes turn 1 and declares no tools.
        let summary_request = &requests[3];
        assert!(
            summary_request["tools"]
                .as_array()
                .is_none_or(Vec::is_empty)
        );
        assert!(user_texts(wire, summary_request)[0].contains("[user] q1"));

        // The request after compaction: system prompt, the summary, the last two turns.
        let last = &requests[4];
        assert_eq!(
            user_texts(wire, last),
            vec![
                format!(
                    "{SUMMARY_LABEL}\n\nSUMMARY: the user asked q1; the big tool returned data; \
                     answered."
                ),
                "q2".to_owned(),
                "q3".to_owned(),
            ],
            "{wire:?}"
        );
        let system = match wire {
            LlmWire::OpenAi => last["messages"][0]["content"].clone(),
            LlmWire::Anthropic => last["system"].clone(),
        };
        assert!(
            system.to_string().contains("be brief"),
            "{wire:?}: {system}"
        );
        assert_eq!(
            conversation.messages,
            vec![
                Message::user(format!(
                    "{SUMMARY_LABEL}\n\nSUMMARY: the user asked q1; the big tool returned \
                     data; answered."
                )),
                Message::user("q2"),
                Message::assistant(AssistantMessage::text(a2.clone())),
                Message::user("q3"),
                Message::assistant(AssistantMessage::text("a3")),
            ]
        );
        // Every request was valid (every tool call answered, nothing the model did not say).
        assert_eq!(w.llm.violations(), Vec::<String>::new(), "{wire:?}");
        // And the compacted request is below the threshold.
        let sent = conversation.request_messages();
        let before_answer = &sent[..sent.len() - 1];
        assert!(
            estimate_tokens(before_answer) < THRESHOLD,
            "{wire:?}: {} tokens",
            estimate_tokens(before_answer)
        );
        w.runtime.shutdown().await;
    }
}

#[tokio::test]
async fn on_demand_compaction_of_a_short_conversation_keeps_it_valid() {
    let w = world(LlmWire::OpenAi, vec![Reply::text("hello")]).await;
    let mut conversation = Conversation::with_system("sys");
    turn(&w, &mut conversation, "hi").await;
    let before = conversation.clone();
    let log = EventLog::new();
    let ctx = TurnContext {
        events: &log,
        approver: &Asked::refusing(),
        cancel: coyote_session::CancellationToken::new(),
    };
    let report = w
        .session
        .compact(&mut conversation, CompactTrigger::OnDemand, &ctx)
        .await
        .unwrap();
    // One turn: nothing older than the kept turns, nothing large to spill.
    assert_eq!(report.turns_summarised, 0);
    assert_eq!(report.results_spilled, 0);
    assert_eq!(conversation.messages, before.messages);
    assert_eq!(conversation.system, before.system);
    assert_eq!(w.llm.requests().len(), 1, "no summary request was made");
    w.runtime.shutdown().await;
}

#[tokio::test]
async fn a_result_that_could_not_be_read_back_keeps_its_beginning_instead_of_a_handle() {
    // Tools only: no `mcp_read_fake` is offered, so a handle would be useless to the model.
    let script = vec![
        Reply::call("mcp_invoke_fake", json!({"tool": "big", "arguments": {}})),
        Reply::text("A".repeat(1600)),
        Reply::text("second"),
    ];
    let w = world_with(LlmWire::OpenAi, script, Capabilities::none().with_tools()).await;
    let mut conversation = Conversation::with_system("be brief");
    turn(&w, &mut conversation, "q1").await;
    let events = turn(&w, &mut conversation, "q2").await;
    assert_eq!(compaction_notices(&events).len(), 1);
    let note = match &conversation.messages[2] {
        Message::Tool(r) => r.content.clone(),
        other => panic!("expected the tool result, got {other:?}"),
    };
    assert!(note.starts_with(COMPACTED_RESULT_PREFIX), "{note}");
    assert!(note.contains("bytes dropped; it began: "), "{note}");
    assert!(!note.contains("coyote-result://"), "{note}");
    assert_eq!(w.llm.violations(), Vec::<String>::new());
    w.runtime.shutdown().await;
}

fn big_budget() -> coyote_mcp::render::ResultBudgets {
    let mut budgets = coyote_mcp::render::ResultBudgets::default();
    budgets.set(
        "fake",
        coyote_protocol::ResultLimits {
            max_result_bytes: Some(10_000),
            tools: Default::default(),
        },
    );
    budgets
}
