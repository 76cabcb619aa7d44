//! Result budgets in a whole turn: under `maxResultBytes: 1000` a 300 KiB tool result
//! reaches the model as at most 1,000 bytes of text and a continuation note of at most 300
//! bytes, and the page the model reads through the handle is within the budget too.

use coyote_mcp::meta::ExposurePolicies;
use coyote_mcp::render::{ResultBudgets, page_text};
use coyote_protocol::{Exposure, ResultLimits};
use coyote_session::{Conversation, SessionOptions, StopReason};
use coyote_test_support::fake_llm::{Reply, tool_results};
use coyote_test_support::{Capabilities, Scenario, ToolBehavior, big_text};
use serde_json::{Value, json};

use super::support::{Harness, SERVER, wires};

const BIG: u64 = 300 * 1024;

#[tokio::test]
async fn a_budget_of_1000_bytes_bounds_the_result_and_its_pages() {
    let original = big_text(BIG);
    // A handle is the SHA-256 of the text: any store names it the same.
    let scratch = tempfile::tempdir().unwrap();
    let handle = coyote_mcp::SpillStore::new(scratch.path())
        .put_result_text(SERVER, &original)
        .unwrap();
    let next = page_text(&original, 0, 1_000).next_offset.unwrap();
    for wire in wires() {
        let script = vec![
            Reply::call("mcp_invoke_fake", json!({"tool": "big"})),
            Reply::call(
                "mcp_read_fake",
                json!({"uri": handle, "offset": next, "max_bytes": 100_000}),
            ),
            Reply::text("read"),
        ];
        let mut budgets = ResultBudgets::default();
        budgets.set(
            SERVER,
            ResultLimits {
                max_result_bytes: Some(1_000),
                tools: Default::default(),
            },
        );
        let options = SessionOptions {
            exposure: ExposurePolicies::default().with(SERVER, Exposure::Meta),
            budgets,
            ..SessionOptions::default()
        };
        let scenario = Scenario::builder()
            .capabilities(Capabilities::none().with_tools().with_resources())
            .safe_tool("big", ToolBehavior::BigText { bytes: BIG })
            .build();
        let h = Harness::with(wire, script, scenario, options).await;
        let (outcome, _) = h.turn(&mut Conversation::new(), "read it all").await;
        assert_eq!(outcome.unwrap().stop, StopReason::Answered);
        let requests = h.llm.requests();
        let results = tool_results(wire, &requests[2]);
        let (header, body) = results[0].1.split_once('\n').unwrap();
        assert!(header.starts_with("Result of tool `big`"), "{header}");
        let (text, note) = body.rsplit_once('\n').unwrap();
        assert!(text.len() <= 1_000, "{wire:?}: {} bytes", text.len());
        assert!(note.len() <= 300, "{wire:?}: {note}");
        assert!(note.contains(&handle), "{note}");
        assert!(original.starts_with(text));
        let page: Value = serde_json::from_str(&results[1].1).unwrap();
        let chunk = page["text"].as_str().unwrap();
        assert!(chunk.len() <= 1_000, "{wire:?}: a page of {}", chunk.len());
        assert_eq!(&original[next..next + chunk.len()], chunk);
        h.shutdown().await;
    }
}
