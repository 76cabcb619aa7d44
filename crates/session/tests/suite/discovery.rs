//! A direct-exposed server with resources and prompts keeps discovery,
//! and a scripted model enumerates all 40 resources page by page with `kind` + `offset`.

use coyote_mcp::meta::ExposurePolicies;
use coyote_protocol::Exposure;
use coyote_session::{Conversation, SessionOptions, StopReason};
use coyote_test_support::fake_llm::{Reply, declared_tools, tool_results};
use coyote_test_support::{Capabilities, Generated, PromptSpec, Scenario, ToolBehavior};
use serde_json::{Value, json};

use super::support::{Harness, SERVER, wires};

fn scenario() -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities::all())
        .safe_tool("echo", ToolBehavior::Echo)
        .generated(Generated {
            resources: 40,
            ..Generated::default()
        })
        .prompt(PromptSpec {
            name: "summary".into(),
            title: None,
            description: Some("summarise".into()),
            arguments: Vec::new(),
            messages: Vec::new(),
        })
        .build()
}

#[tokio::test]
async fn a_model_enumerates_every_resource_of_a_direct_server_page_by_page() {
    for wire in wires() {
        let page = |offset: u64| {
            Reply::call(
                "mcp_search_fake",
                json!({"query": "", "kind": "resource", "offset": offset, "top_k": 15}),
            )
        };
        let script = vec![page(0), page(15), page(30), Reply::text("40 resources")];
        let options = SessionOptions {
            exposure: ExposurePolicies::default().with(SERVER, Exposure::Auto),
            ..SessionOptions::default()
        };
        let h = Harness::with(wire, script, scenario(), options).await;
        let mut conversation = Conversation::new();
        let (outcome, _) = h.turn(&mut conversation, "list every resource").await;
        assert_eq!(outcome.unwrap().stop, StopReason::Answered);
        let requests = h.llm.requests();
        // auto→direct: the tool as itself, plus discovery, read and prompt.
        assert_eq!(
            declared_tools(wire, &requests[0]),
            [
                "fake__echo",
                "mcp_search_fake",
                "mcp_describe_fake",
                "mcp_read_fake",
                "mcp_prompt_fake"
            ]
        );
        let pages: Vec<Value> = tool_results(wire, &requests[3])
            .into_iter()
            .map(|(_, text)| serde_json::from_str(&text).expect("search answers JSON"))
            .collect();
        assert_eq!(pages.len(), 3);
        let uris: Vec<String> = pages
            .iter()
            .flat_map(|p| p["results"].as_array().unwrap().clone())
            .map(|hit| {
                assert_eq!(hit["kind"], "resource");
                hit["id"].as_str().unwrap().to_owned()
            })
            .collect();
        let expected: Vec<String> = (0..40).map(|i| format!("fake://gen/{i:04}")).collect();
        assert_eq!(uris, expected, "{wire:?}: every URI once, in catalog order");
        assert_eq!(
            pages.iter().map(|p| p["more"].clone()).collect::<Vec<_>>(),
            [json!(true), json!(true), json!(false)]
        );
        assert_eq!(pages[0]["next_offset"], 15);
        assert_eq!(pages[1]["next_offset"], 30);
        assert!(pages[2].get("next_offset").is_none());
        assert_eq!(pages[2]["total"], 40);
        h.assert_requests_valid();
        h.shutdown().await;
    }
}
