//! Server states in the request: a starting server is declared and answers with its state
//! without blocking the turn; a failed one answers "failed: …" instead of vanishing; gating by
//! live features; selection by name.

use std::collections::BTreeMap;
use std::time::Duration;

use coyote_mcp::{McpRuntime, RuntimeOptions, ServerState, SpillStore};
use coyote_protocol::{ApprovalPolicy, Exposure, McpServerSpec, McpTransport, StdioSpec, Timeouts};
use coyote_session::{
    Conversation, ModelSettings, ServerSelection, Session, SessionEvent, SessionOptions,
    StopReason, ToolCallStatus,
};
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools, tool_results};
use coyote_test_support::{Capabilities, ResourceBody, Scenario};
use serde_json::json;

use super::support::{Asked, Harness, provider};

fn stdio(name: &str, command: &str, args: &[&str]) -> McpServerSpec {
    McpServerSpec {
        name: name.into(),
        transport: McpTransport::Stdio(StdioSpec {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        }),
        timeouts: Timeouts {
            startup: Duration::from_secs(600),
            call: Duration::from_secs(30),
        },
        approve: ApprovalPolicy::Destructive,
        expose: Exposure::Auto,
        retrieve: Default::default(),
        auto_approve: vec![],
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        source: "test".into(),
    }
}

async fn wait_for_state(runtime: &McpRuntime, name: &str, want: impl Fn(&ServerState) -> bool) {
    for _ in 0..2000 {
        if runtime.state(name).as_ref().is_some_and(&want) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "{name} never reached the state; now {:?}",
        runtime.state(name)
    );
}

#[tokio::test]
async fn starting_and_failed_servers_answer_with_their_state() {
    let script = vec![
        Reply::calls(
            "",
            vec![
                ("mcp_search_slowstart", json!({})),
                ("mcp_search_broken", json!({"query": "x"})),
            ],
        ),
        Reply::text("they are not available"),
    ];
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    let runtime = McpRuntime::new(RuntimeOptions::default());
    // `sleep` never answers initialize: Starting for the whole test.
    runtime.spawn_start(vec![
        stdio("slowstart", "sleep", &["600"]),
        stdio("broken", "/nonexistent/coyote-test-no-such-server", &[]),
    ]);
    wait_for_state(&runtime, "broken", |s| matches!(s, ServerState::Failed(_))).await;
    assert_eq!(runtime.state("slowstart"), Some(ServerState::Starting));
    let spill = tempfile::tempdir().unwrap();
    let session = Session::builder(
        provider(&llm),
        ModelSettings::named("m"),
        runtime.clone(),
        SpillStore::new(spill.path()),
    )
    .build();
    let log = coyote_session::EventLog::new();
    let approver = Asked::refusing();
    let ctx = coyote_session::TurnContext {
        events: &log,
        approver: &approver,
        cancel: coyote_session::CancellationToken::new(),
    };
    let mut conversation = Conversation::new();
    let outcome = session
        .run_turn(&mut conversation, "use them", &ctx)
        .await
        .unwrap();
    assert_eq!(outcome.stop, StopReason::Answered);
    let requests = llm.requests();
    // One short health line each instead of their functions.
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &requests[0]),
        vec!["mcp_search_slowstart", "mcp_search_broken"]
    );
    let results = tool_results(LlmWire::OpenAi, &requests[1]);
    assert_eq!(
        results[0].1,
        "MCP server 'slowstart' is still starting; its functions appear once it is ready. Tell \
         the user if they need it now."
    );
    assert!(
        results[1]
            .1
            .starts_with("MCP server 'broken' is unavailable: it failed ("),
        "{}",
        results[1].1
    );
    assert!(
        results[1]
            .1
            .ends_with("tell the user and ask them to fix or restart the server."),
        "{}",
        results[1].1
    );
    let events = log.events();
    let warnings: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Warning { message } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(
        warnings[0],
        "MCP server 'slowstart' is still starting; until it is ready the model sees only its \
         state"
    );
    assert!(
        warnings[1].starts_with("MCP server 'broken' is not available (failed: "),
        "{}",
        warnings[1]
    );
    let statuses: Vec<ToolCallStatus> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::ToolCallFinished { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(statuses, vec![ToolCallStatus::Error, ToolCallStatus::Error]);
    assert_eq!(llm.violations(), Vec::<String>::new());
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_resources_only_server_keeps_read_and_selection_works_by_name() {
    let scenario = Scenario::builder()
        .capabilities(Capabilities::none().with_resources())
        .resource(
            "fake://notes",
            "notes",
            ResourceBody::Text {
                text: "remember the milk".into(),
            },
        )
        .build();
    let script = vec![
        Reply::call("mcp_read_fake", json!({"uri": "fake://notes"})),
        Reply::text("milk"),
        Reply::text("no tools now"),
    ];
    let mut h = Harness::with(
        LlmWire::Anthropic,
        script,
        scenario,
        SessionOptions::default(),
    )
    .await;
    let mut conversation = Conversation::new();
    h.turn(&mut conversation, "what do I need?")
        .await
        .0
        .unwrap();
    let requests = h.llm.requests();
    assert_eq!(
        declared_tools(LlmWire::Anthropic, &requests[0]),
        vec!["mcp_search_fake", "mcp_describe_fake", "mcp_read_fake"]
    );
    let results = tool_results(LlmWire::Anthropic, &requests[1]);
    assert!(results[0].1.contains("remember the milk"), "{results:?}");

    h.session.set_servers(ServerSelection::Only(vec![]));
    h.turn(&mut conversation, "and now?").await.0.unwrap();
    let last = h.llm.requests().pop().unwrap();
    assert_eq!(
        declared_tools(LlmWire::Anthropic, &last),
        Vec::<String>::new()
    );
    assert!(last.get("tools").is_none(), "{last}");
    h.assert_requests_valid();
    h.shutdown().await;
}
