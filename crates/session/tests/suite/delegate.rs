//! Delegation: a parent agent delegates to an agent whose own
//! resources-only server comes from the `McpFactory`. The delegate's request is gated from the
//! delegate's runtime (`mcp_read_kb`, no `mcp_invoke_kb`), the parent's request has neither,
//! two delegate runs share one connection, and it is closed once both agents are done (the fake
//! server sees the disconnect).

use std::sync::Arc;
use std::time::Duration;

use coyote_mcp::{AgentServers, McpFactory, McpRuntime, RuntimeOptions, SpillStore};
use coyote_protocol::{McpServerSpec, Timeouts};
use coyote_session::{
    Conversation, DelegateError, DelegateInfo, DelegateLaunch, DelegateLauncher, DelegateRun,
    Delegates, ModelSettings, Session, SessionEvent, StopReason,
};
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools, tool_results};
use coyote_test_support::{Capabilities, Event, ResourceBody, Scenario, ScenarioFile};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tempfile::TempDir;

use super::support::{Asked, Hooked, provider};

/// Deadline for things that should happen promptly (a loaded 2-core machine).
const PROMPT: Duration = Duration::from_secs(30);
const PARENT_SYSTEM: &str = "You are the parent agent.";
const DELEGATE_SYSTEM: &str = "You answer from the knowledge base.";

fn resources_only() -> Capabilities {
    Capabilities {
        tools: false,
        resources: true,
        prompts: false,
        completions: false,
        logging: false,
    }
}

fn kb_server(dir: &std::path::Path) -> (ScenarioFile, McpServerSpec) {
    let file = Scenario::builder()
        .server_name("kb")
        .capabilities(resources_only())
        .resource(
            "kb://facts",
            "facts",
            ResourceBody::Text {
                text: "the answer is 42".into(),
            },
        )
        .write_to(dir)
        .expect("write scenario");
    let mut spec = file.stdio_spec("kb");
    spec.timeouts = Timeouts {
        startup: PROMPT,
        call: PROMPT,
    };
    (file, spec)
}

/// Builds agent `kb_agent` the way the CLI does: its own servers from the factory, its own
/// session and conversation.
struct Launcher {
    factory: McpFactory,
    app: McpRuntime,
    kb: McpServerSpec,
    provider: Arc<dyn coyote_llm::Provider>,
    spill: std::path::PathBuf,
}

impl DelegateLauncher for Launcher {
    fn launch<'a>(
        &'a self,
        request: DelegateLaunch<'a>,
    ) -> BoxFuture<'a, Result<DelegateRun, DelegateError>> {
        Box::pin(async move {
            assert_eq!((request.agent, request.depth), ("kb_agent", 1));
            let runtime = self
                .factory
                .agent_runtime(AgentServers {
                    own: vec![self.kb.clone()],
                    app: &self.app,
                    app_selected: Vec::new(),
                })
                .await;
            let session = Session::builder(
                self.provider.clone(),
                ModelSettings::named("delegate-model"),
                runtime.runtime().clone(),
                SpillStore::new(self.spill.clone()),
            )
            .options(super::support::meta_options())
            .build();
            Ok(DelegateRun {
                session,
                conversation: Conversation::with_system(DELEGATE_SYSTEM),
                close: Box::pin(runtime.close()),
                warnings: Vec::new(),
            })
        })
    }
}

fn system_text(wire: LlmWire, body: &Value) -> Option<String> {
    match wire {
        LlmWire::OpenAi => body["messages"]
            .as_array()?
            .iter()
            .find(|m| m["role"] == "system")
            .and_then(|m| m["content"].as_str())
            .map(str::to_owned),
        LlmWire::Anthropic => match &body["system"] {
            Value::String(s) => Some(s.clone()),
            Value::Array(blocks) => blocks
                .first()
                .and_then(|b| b["text"].as_str())
                .map(str::to_owned),
            _ => None,
        },
    }
}

#[tokio::test]
#[allow(
    clippy::too_many_lines,
    reason = "one parent turn with two delegations, checked end to end: requests, results, connection, events"
)]
async fn delegate_gets_its_own_gated_servers_and_the_shared_connection_closes_r15() {
    let wire = LlmWire::OpenAi;
    let tmp = TempDir::new().unwrap();
    let (kb_file, kb_spec) = kb_server(tmp.path());
    let delegate_call = json!({"task": "what is the answer?"});
    let script = vec![
        // Parent: two delegations in one round (two agents with the same own server).
        Reply::calls(
            "",
            vec![
                ("agent_delegate_kb_agent", delegate_call.clone()),
                ("agent_delegate_kb_agent", json!({"task": "anything else?"})),
            ],
        ),
        // Delegates (in whatever order their requests arrive).
        Reply::call("mcp_read_kb", json!({"uri": "kb://facts"})),
        Reply::text("kb says 42"),
        Reply::text("kb says 42"),
        // Parent's answer.
        Reply::text("The answer is 42."),
    ];
    let llm = FakeLlm::start(wire, script).await;
    let app = McpRuntime::new(RuntimeOptions::default());
    let factory = McpFactory::new(RuntimeOptions::default());
    let parent_runtime = factory
        .agent_runtime(AgentServers {
            own: Vec::new(),
            app: &app,
            app_selected: Vec::new(),
        })
        .await;
    let launcher = Arc::new(Launcher {
        factory: factory.clone(),
        app: app.clone(),
        kb: kb_spec,
        provider: provider(&llm),
        spill: tmp.path().join("spill"),
    });
    let delegates = Delegates::new(
        vec![DelegateInfo {
            name: "kb_agent".into(),
            description: Some("knows the facts".into()),
        }],
        launcher,
    );
    let parent = Session::builder(
        provider(&llm),
        ModelSettings::named("parent-model"),
        parent_runtime.runtime().clone(),
        SpillStore::new(tmp.path().join("spill")),
    )
    .delegates(delegates)
    .build();

    let live_during_delegation = std::sync::Mutex::new(Vec::new());
    let sink = Hooked {
        log: coyote_session::EventLog::new(),
        hook: |e: &SessionEvent| {
            if let SessionEvent::DelegateProgress { message, .. } = e
                && message == "mcp_read_kb: ok"
            {
                live_during_delegation
                    .lock()
                    .unwrap()
                    .push(factory.live_connections());
            }
        },
    };
    let approver = Asked::refusing();
    let ctx = coyote_session::TurnContext {
        events: &sink,
        approver: &approver,
        cancel: coyote_session::CancellationToken::new(),
    };
    let mut conversation = Conversation::with_system(PARENT_SYSTEM);
    let outcome = parent
        .run_turn(&mut conversation, "ask the kb", &ctx)
        .await
        .expect("turn runs");
    assert_eq!(outcome.stop, StopReason::Answered);
    assert_eq!(
        conversation.last_assistant_text(),
        Some("The answer is 42.")
    );
    parent_runtime.close().await;

    let requests = llm.requests();
    assert_eq!(requests.len(), 5);
    assert_eq!(llm.violations(), Vec::<String>::new());
    let (parents, delegates): (Vec<&Value>, Vec<&Value>) = requests
        .iter()
        .partition(|r| system_text(wire, r).as_deref() == Some(PARENT_SYSTEM));
    assert_eq!((parents.len(), delegates.len()), (2, 3));
    for request in &parents {
        assert_eq!(
            declared_tools(wire, request),
            vec!["agent_delegate_kb_agent".to_owned()],
            "the parent sees its delegate and none of the delegate's servers"
        );
    }
    for request in &delegates {
        assert_eq!(system_text(wire, request).as_deref(), Some(DELEGATE_SYSTEM));
        assert_eq!(
            declared_tools(wire, request),
            vec![
                "mcp_search_kb".to_owned(),
                "mcp_describe_kb".to_owned(),
                "mcp_read_kb".to_owned()
            ],
            "gated from the delegate's runtime: read, no invoke"
        );
    }
    // Both delegations answered the parent with the delegate's final answer.
    let results: Vec<String> = tool_results(wire, parents[1])
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    assert_eq!(
        results,
        vec!["kb says 42".to_owned(), "kb says 42".to_owned()]
    );

    // The two delegate runs shared one connection, closed after both finished.
    assert_eq!(*live_during_delegation.lock().unwrap(), vec![1]);
    assert_eq!(factory.live_connections(), 0);
    let log = kb_file
        .wait_for(PROMPT, |l| l.disconnect_seen())
        .await
        .expect("the fake server sees the disconnect");
    let starts = log
        .events
        .iter()
        .filter(|e| matches!(e, Event::Started { .. }))
        .count();
    assert_eq!(starts, 1, "one connection for both delegate runs");
    assert_eq!(
        log.events
            .iter()
            .filter(|e| matches!(e, Event::ReadResource { .. }))
            .count(),
        1
    );

    // The parent's sink got status lines from the delegates.
    let progress: Vec<String> = sink
        .log
        .events()
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::DelegateProgress {
                agent,
                depth,
                message,
            } => Some(format!("{agent}@{depth}: {message}")),
            _ => None,
        })
        .collect();
    let mut sorted = progress.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        vec![
            "kb_agent@1: answered after 1 request(s)",
            "kb_agent@1: answered after 2 request(s)",
            "kb_agent@1: mcp_read_kb: ok",
            "kb_agent@1: started (fakellm:delegate-model)",
            "kb_agent@1: started (fakellm:delegate-model)",
        ],
        "{progress:?}"
    );
    app.shutdown().await;
}

/// Runs delegate `worker` over a runtime the test owns (the harness's fake server).
struct SameRuntime {
    runtime: McpRuntime,
    provider: Arc<dyn coyote_llm::Provider>,
    spill: std::path::PathBuf,
}

impl DelegateLauncher for SameRuntime {
    fn launch<'a>(
        &'a self,
        _request: DelegateLaunch<'a>,
    ) -> BoxFuture<'a, Result<DelegateRun, DelegateError>> {
        Box::pin(async move {
            let session = Session::builder(
                self.provider.clone(),
                ModelSettings::named("delegate-model"),
                self.runtime.clone(),
                SpillStore::new(self.spill.clone()),
            )
            .options(super::support::meta_options())
            .build();
            Ok(DelegateRun {
                session,
                conversation: Conversation::with_system(DELEGATE_SYSTEM),
                close: Box::pin(async {}),
                warnings: vec!["a warning from the start".into()],
            })
        })
    }
}

#[tokio::test]
async fn cancelling_the_parent_cancels_the_delegates_call_on_the_wire() {
    let script = vec![
        Reply::call(
            "agent_delegate_worker",
            json!({"task": "run the slow tool"}),
        ),
        Reply::call("mcp_invoke_fake", json!({"tool": "hang"})),
    ];
    let h = super::support::Harness::new(LlmWire::OpenAi, script).await;
    let tmp = TempDir::new().unwrap();
    let launcher = Arc::new(SameRuntime {
        runtime: h.runtime.clone(),
        provider: provider(&h.llm),
        spill: tmp.path().join("spill"),
    });
    let parent = Session::builder(
        provider(&h.llm),
        ModelSettings::named("parent-model"),
        McpRuntime::new(RuntimeOptions::default()),
        SpillStore::new(tmp.path().join("spill")),
    )
    .delegates(Delegates::new(
        vec![DelegateInfo {
            name: "worker".into(),
            description: None,
        }],
        launcher,
    ))
    .build();
    let cancel = coyote_session::CancellationToken::new();
    let trigger = cancel.clone();
    let server = h.server.clone();
    let watcher = tokio::spawn(async move {
        let seen = server
            .wait_for(PROMPT, |log| log.tool_calls("hang") == 1)
            .await;
        trigger.cancel();
        seen.is_ok()
    });
    let log = coyote_session::EventLog::new();
    let approver = Asked::refusing();
    let ctx = coyote_session::TurnContext {
        events: &log,
        approver: &approver,
        cancel,
    };
    let mut conversation = Conversation::with_system(PARENT_SYSTEM);
    let outcome = parent
        .run_turn(&mut conversation, "delegate the slow work", &ctx)
        .await
        .unwrap();
    assert!(
        watcher.await.unwrap(),
        "the delegate's hang call reached the server"
    );
    assert_eq!(outcome.stop, StopReason::Cancelled);
    h.server
        .wait_for(PROMPT, |log| {
            log.cancelled_notifications() >= 1
                && log.tools_cancelled().contains(&"hang".to_string())
        })
        .await
        .expect("notifications/cancelled reached the server from the delegate's call");
    // The parent's call is answered "cancelled", so the conversation stays valid.
    assert_eq!(
        conversation.messages.last(),
        Some(&coyote_llm::Message::tool_result(
            coyote_llm::ToolResult::error("call_0_0", coyote_session::CANCELLED_TEXT)
        ))
    );
    let progress: Vec<String> = log
        .events()
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::DelegateProgress { message, .. } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        vec![
            "started (fakellm:delegate-model)".to_owned(),
            "warning: a warning from the start".to_owned()
        ]
    );
    h.shutdown().await;
}
