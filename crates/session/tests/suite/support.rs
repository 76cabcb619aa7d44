//! Shared set-up: a session over a fake model and an in-process fake MCP server, an event
//! recorder that normalises durations, and an approver that records what it was asked.

use std::sync::{Arc, Mutex};

use coyote_llm::{ApiKey, ProviderConfig, ProviderKind, StreamMode, build_provider};
use coyote_mcp::meta::ExposurePolicies;
use coyote_mcp::{McpRuntime, RuntimeOptions, SpillStore};
use coyote_protocol::{Exposure, Timeouts};
use coyote_session::{
    ApprovalDecision, ApprovalRequest, Approver, CancellationToken, Conversation, EventLog,
    EventSink, ModelSettings, Session, SessionEvent, SessionOptions, ToolCallStatus, TurnContext,
    TurnOutcome,
};
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply};
use coyote_test_support::{Capabilities, FakeHandle, Scenario, ToolBehavior, in_process};
use futures::future::BoxFuture;
use tempfile::TempDir;

pub const SERVER: &str = "fake";

/// The default fake server (tools only): echo, a fixed-text tool, a failing tool, a destructive
/// tool and a tool that never answers.
pub fn scenario() -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("echo", ToolBehavior::Echo)
        .safe_tool(
            "fixed",
            ToolBehavior::Text {
                text: "fixed output".into(),
            },
        )
        .safe_tool(
            "fails",
            ToolBehavior::Error {
                text: "it failed".into(),
            },
        )
        .destructive_tool(
            "wipe",
            ToolBehavior::Text {
                text: "wiped".into(),
            },
        )
        .safe_tool("hang", ToolBehavior::Hang)
        .build()
}

pub struct Harness {
    pub llm: FakeLlm,
    pub session: Session,
    pub server: FakeHandle,
    pub runtime: McpRuntime,
    _spill: TempDir,
}

pub fn wires() -> [LlmWire; 2] {
    [LlmWire::OpenAi, LlmWire::Anthropic]
}

impl Harness {
    /// The fake server through the meta-functions (most of this suite is about them).
    pub async fn new(wire: LlmWire, script: Vec<Reply>) -> Harness {
        Self::with(wire, script, scenario(), meta_options()).await
    }

    pub async fn with(
        wire: LlmWire,
        script: Vec<Reply>,
        scenario: Scenario,
        options: SessionOptions,
    ) -> Harness {
        Self::with_runtime(wire, script, scenario, options, RuntimeOptions::default()).await
    }

    /// [`Harness::with`] over a runtime built with `runtime_options` (client features).
    pub async fn with_runtime(
        wire: LlmWire,
        script: Vec<Reply>,
        scenario: Scenario,
        options: SessionOptions,
        runtime_options: RuntimeOptions,
    ) -> Harness {
        let llm = FakeLlm::start(wire, script).await;
        let runtime = McpRuntime::new(runtime_options);
        let ((read, write), server) = in_process(scenario);
        runtime
            .attach_stream(SERVER, Timeouts::default(), read, write)
            .await
            .expect("fake server connects");
        let spill = tempfile::tempdir().unwrap();
        let session = Session::builder(
            provider(&llm),
            ModelSettings::named("fake-model"),
            runtime.clone(),
            SpillStore::new(spill.path().join("mcp-resources")),
        )
        .options(options)
        .build();
        Harness {
            llm,
            session,
            server,
            runtime,
            _spill: spill,
        }
    }

    /// Runs one turn with `approver`, recording events.
    pub async fn turn_with(
        &self,
        conversation: &mut Conversation,
        input: &str,
        approver: &dyn Approver,
    ) -> (anyhow::Result<TurnOutcome>, Vec<SessionEvent>) {
        let log = EventLog::new();
        let ctx = TurnContext {
            events: &log,
            approver,
            cancel: CancellationToken::new(),
        };
        let outcome = self
            .session
            .run_turn(conversation, input, &ctx)
            .await
            .map_err(anyhow::Error::from);
        (outcome, normalise(log.events()))
    }

    pub async fn turn(
        &self,
        conversation: &mut Conversation,
        input: &str,
    ) -> (anyhow::Result<TurnOutcome>, Vec<SessionEvent>) {
        self.turn_with(conversation, input, &Asked::refusing())
            .await
    }

    pub fn assert_requests_valid(&self) {
        assert_eq!(self.llm.violations(), Vec::<String>::new());
    }

    pub async fn shutdown(self) {
        self.runtime.shutdown().await;
    }
}

pub fn provider(llm: &FakeLlm) -> Arc<dyn coyote_llm::Provider> {
    let kind = match llm.wire() {
        LlmWire::OpenAi => ProviderKind::OpenAiCompatible,
        LlmWire::Anthropic => ProviderKind::Anthropic,
    };
    build_provider(
        ProviderConfig::new(kind, "fakellm", llm.api_base()).with_api_key(ApiKey::new("sk-test")),
    )
    .expect("provider builds")
}

pub fn whole_options() -> SessionOptions {
    SessionOptions {
        stream: StreamMode::Whole,
        ..meta_options()
    }
}

/// The fake server declared through the five meta-functions (`expose: meta`). Under the
/// default `auto` its five small tools would be declared directly (see `exposure.rs`).
pub fn meta_options() -> SessionOptions {
    SessionOptions {
        exposure: ExposurePolicies::default().with(SERVER, Exposure::Meta),
        ..SessionOptions::default()
    }
}

/// Durations are wall-clock: zero them so whole event lists compare.
pub fn normalise(events: Vec<SessionEvent>) -> Vec<SessionEvent> {
    events
        .into_iter()
        .map(|e| match e {
            SessionEvent::ToolCallFinished {
                call_id,
                name,
                server,
                tool,
                status,
                output,
                ..
            } => SessionEvent::ToolCallFinished {
                call_id,
                name,
                server,
                tool,
                status,
                duration_ms: 0,
                output,
            },
            other => other,
        })
        .collect()
}

/// The statuses of the finished tool calls, in event order.
pub fn statuses(events: &[SessionEvent]) -> Vec<ToolCallStatus> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::ToolCallFinished { status, .. } => Some(*status),
            _ => None,
        })
        .collect()
}

/// The warnings, in event order.
pub fn warnings(events: &[SessionEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Warning { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// The messages of the attempts the turn discarded (unparsed model output).
pub fn discarded(events: &[SessionEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::AttemptDiscarded { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// The concatenated text deltas.
pub fn streamed_text(events: &[SessionEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Events without text deltas (their splitting is the fake's business).
pub fn without_deltas(events: &[SessionEvent]) -> Vec<SessionEvent> {
    events
        .iter()
        .filter(|e| !matches!(e, SessionEvent::TextDelta { .. }))
        .cloned()
        .collect()
}

/// Answers with a fixed decision and records every request.
pub struct Asked {
    decision: ApprovalDecision,
    pub requests: Mutex<Vec<ApprovalRequest>>,
}

impl Asked {
    pub fn new(decision: ApprovalDecision) -> Self {
        Asked {
            decision,
            requests: Mutex::new(Vec::new()),
        }
    }

    pub fn refusing() -> Self {
        Self::new(ApprovalDecision::Refuse { note: None })
    }

    pub fn requests(&self) -> Vec<ApprovalRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Approver for Asked {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'_, ApprovalDecision> {
        self.requests.lock().unwrap().push(request);
        let decision = self.decision.clone();
        Box::pin(async move { decision })
    }
}

/// An event sink that also runs a hook (e.g. cancels the turn on a given event).
pub struct Hooked<F: Fn(&SessionEvent) + Send + Sync> {
    pub log: EventLog,
    pub hook: F,
}

impl<F: Fn(&SessionEvent) + Send + Sync> EventSink for Hooked<F> {
    fn emit(&self, event: SessionEvent) {
        (self.hook)(&event);
        self.log.emit(event);
    }
}
