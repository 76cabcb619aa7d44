//! Error -32042 (`URLElicitationRequiredError`, what the TypeScript SDK's
//! `elicitationUrlExample` answers a call with): the page is asked like a URL elicitation —
//! through the elicitation hook, with its URL and message — and, when the user accepts, the
//! call is sent once more. Declined, or asked again after the retry, the call fails with
//! input-not-given and the reason (what the model is told), never a bare RPC error.

use std::sync::{Arc, Mutex};

use coyote_mcp::{
    ElicitationHook, ElicitationRequest, ElicitationResponse, McpError, McpRuntime, RuntimeOptions,
    UrlElicitationRequest,
};
use coyote_protocol::Timeouts;
use coyote_test_support::{Scenario, ToolBehavior, in_process};
use futures::future::BoxFuture;
use serde_json::Map;

/// Answers every page with `answer` and remembers the pages it was asked to open.
struct Pages {
    answer: ElicitationResponse,
    asked: Mutex<Vec<UrlElicitationRequest>>,
}

impl ElicitationHook for Pages {
    fn elicit(&self, _: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(std::future::ready(ElicitationResponse::Decline))
    }

    fn elicit_url(&self, request: UrlElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        self.asked.lock().unwrap().push(request);
        Box::pin(std::future::ready(self.answer.clone()))
    }
}

/// Calls `pay` (which needs its page opened `times` times) with a hook answering `answer`.
async fn call(
    answer: ElicitationResponse,
    times: usize,
) -> (Result<String, McpError>, Vec<UrlElicitationRequest>, usize) {
    let pages = Arc::new(Pages {
        answer,
        asked: Mutex::default(),
    });
    let runtime = McpRuntime::new(RuntimeOptions {
        elicitation: pages.clone(),
        ..RuntimeOptions::default()
    });
    let scenario = Scenario::builder()
        .tool(
            "pay",
            ToolBehavior::UrlRequired {
                url: "https://shop.example.com/confirm?cart=7".into(),
                message: "Confirm the payment in your browser".into(),
                times,
            },
        )
        .build();
    let ((read, write), server) = in_process(scenario);
    let handle = runtime
        .attach_stream("shop", Timeouts::default(), read, write)
        .await
        .unwrap();
    let outcome = handle.call_tool("pay", Map::new()).await.map(|o| {
        o.content
            .iter()
            .map(|c| format!("{c:?}"))
            .collect::<String>()
    });
    runtime.shutdown().await;
    let calls = server.events().tool_calls("pay");
    let asked = pages.asked.lock().unwrap().clone();
    (outcome, asked, calls)
}

#[tokio::test]
async fn an_accepted_page_is_opened_and_the_call_sent_once_more() {
    let (outcome, asked, calls) = call(ElicitationResponse::Accept(Map::new()), 1).await;
    let text = outcome.expect("the retry succeeds");
    assert!(text.contains("page confirmed"), "{text}");
    assert_eq!(calls, 2);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].url, "https://shop.example.com/confirm?cart=7");
    assert_eq!(asked[0].message, "Confirm the payment in your browser");
    assert_eq!(asked[0].server, "shop");
}

#[tokio::test]
async fn a_declined_page_fails_the_call_saying_so_without_a_retry() {
    let (outcome, asked, calls) = call(ElicitationResponse::Decline, 1).await;
    let error = outcome.expect_err("declined");
    assert!(matches!(error, McpError::InputNotGiven { .. }), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("open https://shop.example.com/confirm?cart=7 first")
            && text.contains("did not"),
        "{text}"
    );
    assert_eq!((asked.len(), calls), (1, 1));
}

#[tokio::test]
async fn a_page_asked_for_again_after_the_retry_is_not_asked_twice() {
    let (outcome, asked, calls) = call(ElicitationResponse::Accept(Map::new()), 5).await;
    let text = outcome.expect_err("still asks").to_string();
    assert!(text.contains("still asks"), "{text}");
    assert_eq!((asked.len(), calls), (1, 2));
}
