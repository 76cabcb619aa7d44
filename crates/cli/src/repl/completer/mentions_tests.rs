use std::sync::Arc;
use std::time::Duration;

use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::Timeouts;
use coyote_test_support::{Capabilities, ResourceBody, Scenario, in_process};

use super::super::{Stage, position};
use super::*;

fn scenario(resources: bool) -> Scenario {
    let caps = if resources {
        Capabilities::none().with_resources()
    } else {
        Capabilities::none().with_tools()
    };
    Scenario::builder()
        .capabilities(caps)
        .resource(
            "fake://doc",
            "doc",
            ResourceBody::Text {
                text: "text".into(),
            },
        )
        .resource(
            "fake://notes",
            "notes",
            ResourceBody::Text {
                text: "text".into(),
            },
        )
        .template("fake://items/{id}", "item", "item {id}")
        .build()
}

async fn runtime() -> (McpRuntime, Vec<coyote_test_support::FakeHandle>) {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let mut fakes = Vec::new();
    for (name, resources) in [("docs", true), ("hidden", true), ("tools", false)] {
        let ((r, w), fake) = in_process(scenario(resources));
        runtime
            .attach_stream(name, Timeouts::default(), r, w)
            .await
            .unwrap();
        fakes.push(fake);
    }
    (runtime, fakes)
}

fn values(candidates: &[Candidate]) -> Vec<&str> {
    candidates.iter().map(|c| c.value.as_str()).collect()
}

#[test]
fn a_mention_word_is_an_at_word_of_a_chat_line() {
    assert_eq!(mention_start("@"), Some(0));
    assert_eq!(mention_start("summarize @ev"), Some(10));
    assert_eq!(mention_start("a\u{a0}@ev"), Some(3));
    for before in ["mail bob@ex", ".prompt @x", "!echo @x", "summarize @ev "] {
        assert_eq!(mention_start(before), None, "{before}");
    }
    let at = position("read @docs:fake://d and", "read @docs:fake://d".len());
    assert_eq!(
        (at.stage, at.start, at.partial.as_str()),
        (Stage::Mention, 5, "@docs:fake://d")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_then_their_resources_and_fillable_templates() {
    let (runtime, _fakes) = runtime().await;
    let source = CompletionSource::new(runtime.clone(), Arc::new(|name: &str| name != "hidden"))
        .with_rpc_timeout(Duration::from_secs(2));
    // Enabled servers with resources only.
    assert_eq!(values(&source.mention_candidates("@").await), ["@docs:"]);
    assert!(source.mention_candidates("@t").await.is_empty());
    let all = source.mention_candidates("@docs:").await;
    assert_eq!(
        values(&all),
        [
            "@docs:fake://doc",
            "@docs:fake://notes",
            "@docs:fake://items/{id=}"
        ]
    );
    assert!(all[0].append_whitespace && !all[2].append_whitespace);
    assert_eq!(all[0].description.as_deref(), Some("doc"));
    assert_eq!(
        values(&source.mention_candidates("@docs:fake://n").await),
        ["@docs:fake://notes"]
    );
    // A server that is not enabled is not asked.
    assert!(source.mention_candidates("@hidden:").await.is_empty());
    runtime.shutdown().await;
}
