//! Unit tests of `questions`: nothing is approved or accepted without a terminal, and the
//! approval question's wording.

use serde_json::json;

use super::*;
use crate::repl::prompt_cmd::{ArgumentAsker, MissingArgument};

#[tokio::test]
async fn without_a_terminal_nothing_is_approved_or_accepted() {
    let questions = Questions::new(Screen::new(), Interactivity::None);
    let approval = questions
        .approve(ApprovalRequest {
            call_id: "c1".into(),
            server: "fs".into(),
            tool: "wipe".into(),
            arguments: json!({}),
            reason: ApprovalReason::Destructive,
        })
        .await;
    assert_eq!(
        approval,
        ApprovalDecision::Refuse {
            note: Some("no terminal to ask the user".into())
        }
    );
    let answer = questions
        .elicit(ElicitationRequest {
            server: "fs".into(),
            message: "name?".into(),
            requested_schema: coyote_test_support::sample_elicitation_schema(),
        })
        .await;
    assert_eq!(answer, ElicitationResponse::Decline);
    let missing = MissingArgument {
        name: "path".into(),
        description: None,
    };
    assert_eq!(
        ArgumentAsker::ask(&questions, "review", &missing, None).await,
        None
    );
}

#[test]
fn the_approval_question_names_tool_server_reason_and_arguments() {
    let long = "x".repeat(2000);
    let text = approval_question(&ApprovalRequest {
        call_id: "c1".into(),
        server: "fs".into(),
        tool: "write".into(),
        arguments: json!({"data": long}),
        reason: ApprovalReason::NotReadOnly,
    });
    assert!(text.starts_with(
        "Run tool `write` on MCP server `fs` (the server's policy asks for every tool that \
         is not read-only)? Arguments: {\"data\":\"xxx"
    ));
    assert!(text.ends_with('…'));
    assert!(text.len() < 800);
}
