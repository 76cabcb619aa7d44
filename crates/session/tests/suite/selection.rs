//! Dispatch is bound to the request's declaration set. A disabled
//! server's function, an undeclared meta-function of a direct-exposed server and a direct tool
//! of a server outside the selection each get a tool error naming the callable functions —
//! and the servers, running and having answered an allowed call earlier in the session,
//! record no further request.

use coyote_mcp::meta::ExposurePolicies;
use coyote_mcp::{McpRuntime, RuntimeOptions, SpillStore};
use coyote_protocol::{Exposure, Timeouts};
use coyote_session::{
    Conversation, ModelSettings, ServerSelection, Session, SessionOptions, ToolCallStatus,
};
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools, tool_results};
use coyote_test_support::{Capabilities, FakeHandle, Scenario, ToolBehavior, in_process};
use serde_json::json;

use super::support::{Asked, normalise, provider, statuses};

fn scenario() -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("echo", ToolBehavior::Echo)
        .build()
}

async fn attach(runtime: &McpRuntime, name: &str) -> FakeHandle {
    let ((read, write), fake) = in_process(scenario());
    runtime
        .attach_stream(name, Timeouts::default(), read, write)
        .await
        .expect("fake server connects");
    fake
}

#[tokio::test]
async fn calls_outside_the_request_declarations_never_reach_a_server() {
    for wire in [LlmWire::OpenAi, LlmWire::Anthropic] {
        let script = vec![
            // Turn 1, every server selected: allowed calls on both servers.
            Reply::calls(
                "",
                vec![
                    ("shown__echo", json!({"text": "one"})),
                    ("hidden__echo", json!({"text": "two"})),
                ],
            ),
            Reply::text("both answered"),
            // Turn 2, after `.mcp disable hidden`: three calls outside the declarations.
            Reply::calls(
                "",
                vec![
                    (
                        "mcp_invoke_hidden",
                        json!({"tool": "echo", "arguments": {"text": "x"}}),
                    ),
                    (
                        "mcp_invoke_shown",
                        json!({"tool": "echo", "arguments": {"text": "y"}}),
                    ),
                    ("hidden__echo", json!({"text": "z"})),
                ],
            ),
            Reply::text("refused"),
        ];
        let llm = FakeLlm::start(wire, script).await;
        let runtime = McpRuntime::new(RuntimeOptions::default());
        let shown = attach(&runtime, "shown").await;
        let hidden = attach(&runtime, "hidden").await;
        let spill = tempfile::tempdir().unwrap();
        let options = SessionOptions {
            exposure: ExposurePolicies::default()
                .with("shown", Exposure::Direct)
                .with("hidden", Exposure::Direct),
            ..SessionOptions::default()
        };
        let mut session = Session::builder(
            provider(&llm),
            ModelSettings::named("fake-model"),
            runtime.clone(),
            SpillStore::new(spill.path()),
        )
        .options(options)
        .build();
        let approver = Asked::refusing();
        let mut conversation = Conversation::new();
        run(&session, &mut conversation, "first", &approver).await;
        assert_eq!(shown.events().tool_calls("echo"), 1);
        assert_eq!(hidden.events().tool_calls("echo"), 1);
        let shown_before = shown.events().events.len();
        let hidden_before = hidden.events().events.len();

        session.set_servers(ServerSelection::Only(vec!["shown".into()]));
        let events = run(&session, &mut conversation, "second", &approver).await;
        assert_eq!(
            statuses(&events),
            vec![ToolCallStatus::Error; 3],
            "{wire:?}: {events:?}"
        );
        let requests = llm.requests();
        assert_eq!(declared_tools(wire, &requests[2]), ["shown__echo"]);
        // The request carries the whole history: turn 1's two results, then these three.
        let results = tool_results(wire, &requests[3]);
        assert_eq!(results.len(), 5);
        let results = &results[2..];
        for (name, (_, text)) in ["mcp_invoke_hidden", "mcp_invoke_shown", "hidden__echo"]
            .iter()
            .zip(results)
        {
            assert_eq!(
                text,
                &format!(
                    "{name:?} is not a function you can call now; the callable functions are: \
                     shown__echo"
                ),
                "{wire:?}"
            );
        }
        // Neither server saw anything after the first turn.
        assert_eq!(shown.events().events.len(), shown_before, "{wire:?}");
        assert_eq!(hidden.events().events.len(), hidden_before, "{wire:?}");
        runtime.shutdown().await;
    }
}

async fn run(
    session: &Session,
    conversation: &mut Conversation,
    input: &str,
    approver: &Asked,
) -> Vec<coyote_session::SessionEvent> {
    let log = coyote_session::EventLog::new();
    let ctx = coyote_session::TurnContext {
        events: &log,
        approver,
        cancel: coyote_session::CancellationToken::new(),
    };
    session
        .run_turn(conversation, input, &ctx)
        .await
        .expect("turn runs");
    normalise(log.events())
}
