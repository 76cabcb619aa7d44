//! Result budgets through the dispatcher: a 300 KiB tool result under
//! `maxResultBytes: 1000` reaches the model as at most 1,000 bytes of text plus a continuation
//! note of at most 300 bytes, and the pages read through its handle — each within the budget
//! — concatenate to the original byte for byte. Tool limits win over the server's; reads and
//! prompts are cut too.

use std::time::Duration;

use coyote_protocol::{Exposure, ResultLimits, Timeouts};
use coyote_test_support::{
    Capabilities, PromptMessageSpec, PromptSpec, ResourceBody, Scenario, ToolBehavior, big_text,
    in_process,
};
use serde_json::{Value, json};

use super::*;
use crate::meta::ExposurePolicies;
use crate::render::{MAX_RESULT_BYTES, ResultBudgets, default_result_bytes};
use crate::runtime::{McpRuntime, RuntimeOptions};

const BIG: u64 = 300 * 1024;

struct Fixture {
    runtime: McpRuntime,
    dispatcher: MetaDispatcher,
    _dir: tempfile::TempDir,
}

async fn fixture(limits: ResultLimits) -> Fixture {
    let scenario = Scenario::builder()
        .capabilities(Capabilities::all())
        .tool("big", ToolBehavior::BigText { bytes: BIG })
        .tool("also_big", ToolBehavior::BigText { bytes: BIG })
        .resource(
            "fake://long",
            "long",
            ResourceBody::Text {
                text: big_text(5_000),
            },
        )
        .prompt(PromptSpec {
            name: "long".into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            messages: vec![PromptMessageSpec {
                role: coyote_test_support::PromptRole::User,
                content: coyote_test_support::PromptContent::Text {
                    text: big_text(5_000),
                },
            }],
        })
        .build();
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let ((r, w), _fake) = in_process(scenario);
    let timeouts = Timeouts {
        startup: Duration::from_secs(20),
        call: Duration::from_secs(20),
    };
    runtime.attach_stream("srv", timeouts, r, w).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut budgets = ResultBudgets::default();
    budgets.set("srv", limits);
    let dispatcher = MetaDispatcher::new(runtime.clone(), SpillStore::new(dir.path()))
        .with_exposure(ExposurePolicies::default().with("srv", Exposure::Meta))
        .with_budgets(budgets);
    dispatcher.declarations(&runtime.server_names()).await;
    Fixture {
        runtime,
        dispatcher,
        _dir: dir,
    }
}

fn server_limit(bytes: u64) -> ResultLimits {
    ResultLimits {
        max_result_bytes: Some(bytes),
        tools: Default::default(),
    }
}

/// Splits what the model reads into (header, text, note).
fn parts(model_text: &str) -> (&str, &str, &str) {
    let (header, body) = model_text.split_once('\n').unwrap();
    let (text, note) = body.rsplit_once('\n').unwrap();
    (header, text, note)
}

#[tokio::test]
async fn a_300_kib_result_at_1000_bytes_is_recovered_byte_for_byte_through_its_handle() {
    let f = fixture(server_limit(1_000)).await;
    let outcome = f
        .dispatcher
        .dispatch("mcp_invoke_srv", json!({"tool": "big"}))
        .await
        .unwrap();
    let model_text = outcome.to_model_text();
    let (header, text, note) = parts(&model_text);
    assert!(header.starts_with("Result of tool `big`"), "{header}");
    assert!(text.len() <= 1_000, "{} bytes of text", text.len());
    assert!(note.len() <= 300, "{} bytes of note: {note}", note.len());
    let original = big_text(BIG);
    assert!(original.starts_with(text));
    assert!(note.contains("mcp_read_srv"), "{note}");
    let handle = note
        .split('"')
        .find(|w| w.starts_with("coyote-result://"))
        .unwrap()
        .to_owned();
    let mut recovered = text.to_owned();
    let mut offset = recovered.len();
    let mut pages = 0;
    loop {
        let page = f
            .dispatcher
            .dispatch(
                "mcp_read_srv",
                json!({"uri": handle, "offset": offset, "max_bytes": 100_000}),
            )
            .await
            .unwrap();
        let DispatchBody::Json(page) = page.body else {
            panic!("a page is JSON");
        };
        let chunk = page["text"].as_str().unwrap();
        assert!(chunk.len() <= 1_000, "a page of {} bytes", chunk.len());
        recovered.push_str(chunk);
        pages += 1;
        match page["next_offset"].as_u64() {
            Some(next) => offset = usize::try_from(next).unwrap(),
            None => break,
        }
        assert!(pages < 1_000, "paging must end");
    }
    assert_eq!(recovered, original, "byte for byte after {pages} pages");
    f.runtime.shutdown().await;
}

#[tokio::test]
async fn a_tool_limit_wins_and_reads_and_prompts_are_cut_too() {
    let f = fixture(ResultLimits {
        max_result_bytes: Some(2_000),
        tools: [("also_big".to_owned(), 500)].into(),
    })
    .await;
    let text_of = |outcome: DispatchOutcome| parts(&outcome.to_model_text()).1.len();
    let big = f
        .dispatcher
        .dispatch("mcp_invoke_srv", json!({"tool": "big"}))
        .await
        .unwrap();
    assert!((1_900..=2_000).contains(&text_of(big)));
    let also = f
        .dispatcher
        .dispatch("mcp_invoke_srv", json!({"tool": "also_big"}))
        .await
        .unwrap();
    assert!((400..=500).contains(&text_of(also)));
    let read = f
        .dispatcher
        .dispatch("mcp_read_srv", json!({"uri": "fake://long"}))
        .await
        .unwrap();
    let DispatchBody::Json(read) = read.body else {
        panic!("a page is JSON");
    };
    assert!(read["text"].as_str().unwrap().len() <= 2_000);
    assert_eq!(read["truncated"], true);
    let prompt = f
        .dispatcher
        .dispatch("mcp_prompt_srv", json!({"prompt": "long"}))
        .await
        .unwrap()
        .to_model_text();
    let (text, note) = prompt.rsplit_once('\n').unwrap();
    assert!(text.len() <= 2_000, "{}", text.len());
    assert!(note.contains("coyote-result://"), "{note}");
    f.runtime.shutdown().await;
}

#[test]
fn the_default_is_a_tenth_of_the_window_in_bytes_at_most_204800() {
    assert_eq!(default_result_bytes(128_000), 51_200);
    assert_eq!(default_result_bytes(8_192), 3_276);
    assert_eq!(default_result_bytes(1_000_000), MAX_RESULT_BYTES);
    let budgets = ResultBudgets::default().with_default(9_000);
    assert_eq!(budgets.for_call("any", Some("tool")), 9_000);
    let value: Value = serde_json::to_value(budgets.for_server("any").1).unwrap();
    assert_eq!(value, "default");
}
