//! Approval before destructive tools: a refusal never reaches the server and the model gets a
//! clear refusal; yes runs it; "always" asks once per tool per session; policies `never` and
//! `all`, and `autoApprove`.

use coyote_protocol::ApprovalPolicy;
use coyote_session::{
    ApprovalDecision, ApprovalPolicies, ApprovalReason, ApprovalRequest, Conversation,
    ServerPolicy, SessionOptions, StopReason, ToolCallStatus,
};
use coyote_test_support::fake_llm::{LlmWire, Reply, tool_results};
use serde_json::json;

use super::support::{Asked, Harness, SERVER, meta_options, scenario, statuses, wires};

fn wipe() -> Reply {
    Reply::call(
        "mcp_invoke_fake",
        json!({"tool": "wipe", "arguments": {"target": "/data"}}),
    )
}

#[tokio::test]
async fn refused_destructive_tool_is_not_invoked_and_the_model_is_told() {
    for wire in wires() {
        let h = Harness::new(wire, vec![wipe(), Reply::text("I did not wipe it.")]).await;
        let asked = Asked::new(ApprovalDecision::Refuse {
            note: Some("non-interactive run".into()),
        });
        let mut conversation = Conversation::new();
        let (outcome, events) = h.turn_with(&mut conversation, "wipe /data", &asked).await;
        assert_eq!(outcome.unwrap().stop, StopReason::Answered);
        let call_id = match wire {
            LlmWire::OpenAi => "call_0_0",
            LlmWire::Anthropic => "toolu_0_0",
        };
        assert_eq!(
            asked.requests(),
            vec![ApprovalRequest {
                call_id: call_id.into(),
                server: SERVER.into(),
                tool: "wipe".into(),
                arguments: json!({"target": "/data"}),
                reason: ApprovalReason::Destructive,
            }]
        );
        assert_eq!(statuses(&events), vec![ToolCallStatus::Refused]);
        let results = tool_results(wire, &h.llm.requests()[1]);
        assert_eq!(
            results,
            vec![(
                call_id.to_string(),
                "The user did not approve running tool `wipe` on MCP server `fake`, so it was \
                 not run. Do not call it again in this turn; tell the user what you wanted to do \
                 and why, so they can decide. (non-interactive run)"
                    .to_string()
            )]
        );
        assert_eq!(h.server.events().tool_calls("wipe"), 0);
        h.assert_requests_valid();
        h.shutdown().await;
    }
}

#[tokio::test]
async fn approved_destructive_tool_runs() {
    let h = Harness::new(LlmWire::OpenAi, vec![wipe(), Reply::text("wiped")]).await;
    let asked = Asked::new(ApprovalDecision::Approve);
    let mut conversation = Conversation::new();
    let (_, events) = h.turn_with(&mut conversation, "wipe", &asked).await;
    assert_eq!(asked.requests().len(), 1);
    assert_eq!(statuses(&events), vec![ToolCallStatus::Ok]);
    assert_eq!(h.server.events().tool_calls("wipe"), 1);
    h.shutdown().await;
}

#[tokio::test]
async fn always_asks_once_per_tool_per_session() {
    let script = vec![
        wipe(),
        Reply::call(
            "mcp_invoke_fake",
            json!({"tool": "wipe", "arguments": {"target": "/other"}}),
        ),
        Reply::text("done"),
        wipe(),
        Reply::text("done again"),
    ];
    let h = Harness::new(LlmWire::OpenAi, script).await;
    let asked = Asked::new(ApprovalDecision::ApproveAlways);
    let mut conversation = Conversation::new();
    h.turn_with(&mut conversation, "wipe twice", &asked)
        .await
        .0
        .unwrap();
    h.turn_with(&mut conversation, "and again", &asked)
        .await
        .0
        .unwrap();
    assert_eq!(asked.requests().len(), 1);
    assert_eq!(h.server.events().tool_calls("wipe"), 3);
    assert_eq!(
        h.session.always_approved(),
        vec![(SERVER.to_string(), "wipe".to_string())]
    );
    h.shutdown().await;
}

#[tokio::test]
async fn policies_never_all_and_auto_approve() {
    let script = || {
        vec![
            Reply::calls(
                "",
                vec![
                    ("mcp_invoke_fake", json!({"tool": "wipe"})),
                    ("mcp_invoke_fake", json!({"tool": "echo"})),
                ],
            ),
            Reply::text("ok"),
        ]
    };
    let with_policy = |policy: ServerPolicy| {
        let mut approvals = ApprovalPolicies::default();
        approvals.insert(SERVER, policy);
        SessionOptions {
            approvals,
            ..meta_options()
        }
    };
    // never: nothing is asked, both run.
    let h = Harness::with(
        LlmWire::OpenAi,
        script(),
        scenario(),
        with_policy(ServerPolicy {
            approve: ApprovalPolicy::Never,
            auto_approve: vec![],
        }),
    )
    .await;
    let asked = Asked::refusing();
    let (_, events) = h.turn_with(&mut Conversation::new(), "go", &asked).await;
    assert_eq!(asked.requests(), vec![]);
    let mut s = statuses(&events);
    s.sort_by_key(|s| format!("{s:?}"));
    assert_eq!(s, vec![ToolCallStatus::Ok, ToolCallStatus::Ok]);
    h.shutdown().await;

    // all: the plain tool is asked too; refusing both runs neither.
    let h = Harness::with(
        LlmWire::OpenAi,
        script(),
        scenario(),
        with_policy(ServerPolicy {
            approve: ApprovalPolicy::All,
            auto_approve: vec![],
        }),
    )
    .await;
    let asked = Asked::refusing();
    let (_, events) = h.turn_with(&mut Conversation::new(), "go", &asked).await;
    let reasons: Vec<(String, ApprovalReason)> = asked
        .requests()
        .into_iter()
        .map(|r| (r.tool, r.reason))
        .collect();
    assert_eq!(
        reasons,
        vec![
            ("wipe".to_string(), ApprovalReason::Destructive),
            ("echo".to_string(), ApprovalReason::NotReadOnly)
        ]
    );
    assert_eq!(
        statuses(&events),
        vec![ToolCallStatus::Refused, ToolCallStatus::Refused]
    );
    assert_eq!(h.server.events().tool_call_counts().len(), 0);
    h.shutdown().await;

    // autoApprove lists wipe: it runs without asking.
    let h = Harness::with(
        LlmWire::OpenAi,
        script(),
        scenario(),
        with_policy(ServerPolicy {
            approve: ApprovalPolicy::Destructive,
            auto_approve: vec!["wipe".into()],
        }),
    )
    .await;
    let asked = Asked::refusing();
    h.turn_with(&mut Conversation::new(), "go", &asked)
        .await
        .0
        .unwrap();
    assert_eq!(asked.requests(), vec![]);
    assert_eq!(h.server.events().tool_calls("wipe"), 1);
    h.shutdown().await;
}
