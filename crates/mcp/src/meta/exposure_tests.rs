//! Exposure decisions and the dispatcher's declaration sets against the in-process fake MCP
//! server: auto by budget, direct/meta forced, re-listing only after `tools/list_changed`, and
//! a direct call answered exactly like `mcp_invoke_`.

use std::time::Duration;

use coyote_protocol::{Exposure, FunctionDeclaration, Timeouts};
use coyote_test_support::{
    Capabilities, FakeHandle, Generated, ListKind, PromptSpec, ResourceBody, Scenario,
    ServerNotice, ToolBehavior, in_process,
};
use serde_json::{Value, json};

use super::*;
use crate::meta::{DispatchError, FunctionTarget, MetaDispatcher};
use crate::render::SpillStore;
use crate::runtime::{McpRuntime, RuntimeOptions};

const SERVER: &str = "srv";

struct Fixture {
    runtime: McpRuntime,
    dispatcher: MetaDispatcher,
    fake: FakeHandle,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new(scenario: Scenario, exposure: Exposure) -> Fixture {
        let runtime = McpRuntime::new(RuntimeOptions::default());
        let ((r, w), fake) = in_process(scenario);
        let timeouts = Timeouts {
            startup: Duration::from_secs(20),
            call: Duration::from_secs(20),
        };
        runtime
            .attach_stream(SERVER, timeouts, r, w)
            .await
            .expect("fake server ready");
        let dir = tempfile::tempdir().unwrap();
        let dispatcher =
            MetaDispatcher::new(runtime.clone(), SpillStore::new(dir.path().join("spill")))
                .with_exposure(ExposurePolicies::default().with(SERVER, exposure));
        Fixture {
            runtime,
            dispatcher,
            fake,
            _dir: dir,
        }
    }

    async fn declared(&self) -> Vec<FunctionDeclaration> {
        self.dispatcher
            .declarations(&self.runtime.server_names())
            .await
    }

    async fn names(&self) -> Vec<String> {
        self.declared().await.into_iter().map(|d| d.name).collect()
    }
}

fn small() -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .tool("echo", ToolBehavior::Echo)
        .tool(
            "fixed",
            ToolBehavior::Text {
                text: "fixed output".into(),
            },
        )
        .tool("big", ToolBehavior::BigText { bytes: 300 * 1024 })
        .build()
}

fn generated_tools(n: usize) -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .generated(Generated {
            tools: n,
            ..Generated::default()
        })
        .build()
}

const META_TOOLS_ONLY: [&str; 3] = ["mcp_search_srv", "mcp_describe_srv", "mcp_invoke_srv"];

/// The 250-tool server of the retrieve tests and `scripts/e2e-local-llm --task-set large`.
fn large_server() -> Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test-support/data/large-server.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn a_prompt() -> PromptSpec {
    PromptSpec {
        name: "review".into(),
        title: None,
        description: Some("Review a change.".into()),
        arguments: Vec::new(),
        messages: Vec::new(),
    }
}

#[test]
fn the_budget_decides_auto_and_forced_values_win() {
    assert_eq!(decide(Exposure::Auto, 3, 300), EffectiveExposure::Direct);
    assert_eq!(
        decide(Exposure::Auto, DIRECT_MAX_TOOLS, DIRECT_MAX_TOKENS),
        EffectiveExposure::Direct
    );
    assert_eq!(
        decide(Exposure::Auto, DIRECT_MAX_TOOLS + 1, 100),
        EffectiveExposure::Retrieve
    );
    assert_eq!(
        decide(Exposure::Auto, 3, DIRECT_MAX_TOKENS + 1),
        EffectiveExposure::Retrieve
    );
    assert_eq!(
        decide(Exposure::Retrieve, 3, 10),
        EffectiveExposure::Retrieve
    );
    assert_eq!(decide(Exposure::Retrieve, 0, 0), EffectiveExposure::Meta);
    assert_eq!(decide(Exposure::Auto, 0, 0), EffectiveExposure::Meta);
    assert_eq!(
        decide(Exposure::Direct, 250, 90_000),
        EffectiveExposure::Direct
    );
    assert_eq!(decide(Exposure::Meta, 1, 10), EffectiveExposure::Meta);
}

#[test]
fn the_estimate_is_serialised_bytes_over_four_rounded_up() {
    let d = FunctionDeclaration {
        name: "a".into(),
        description: "b".into(),
        parameters: json!({}),
    };
    let bytes = serde_json::to_vec(&d).unwrap().len();
    assert_eq!(
        bytes,
        r#"{"name":"a","description":"b","parameters":{}}"#.len()
    );
    assert_eq!(
        estimate_tokens(std::slice::from_ref(&d)),
        bytes.div_ceil(BYTES_PER_TOKEN)
    );
    assert_eq!(
        estimate_tokens(&[d.clone(), d]),
        (2 * bytes).div_ceil(BYTES_PER_TOKEN)
    );
    assert_eq!(estimate_tokens(&[]), 0);
}

#[tokio::test]
async fn a_three_tool_server_in_auto_is_declared_directly_with_real_schemas() {
    let f = Fixture::new(small(), Exposure::Auto).await;
    let declared = f.declared().await;
    let tools = f
        .runtime
        .server(SERVER)
        .unwrap()
        .list_tools()
        .await
        .unwrap();
    let expected: Vec<FunctionDeclaration> = tools
        .iter()
        .map(|t| FunctionDeclaration {
            name: format!("srv__{}", t.name),
            description: t
                .description
                .clone()
                .unwrap_or_else(|| format!("The tool `{}`.", t.name)),
            parameters: t.input_schema.clone(),
        })
        .collect();
    assert_eq!(declared, expected);
    assert_eq!(
        f.dispatcher.resolve("srv__echo"),
        Some(FunctionTarget::Direct(crate::meta::DirectTool::new(
            SERVER, "echo"
        )))
    );
    let report = f.dispatcher.exposure_report(SERVER).await;
    assert_eq!(report.label(), "auto→direct");
    assert_eq!(report.tools, Some(3));
    assert_eq!(report.declared_tokens, estimate_tokens(&declared));
}

#[tokio::test]
async fn a_250_tool_server_in_auto_is_retrieved() {
    // Without a conversation nothing ranks: only the meta-functions are declared.
    let f = Fixture::new(generated_tools(250), Exposure::Auto).await;
    assert_eq!(f.names().await, META_TOOLS_ONLY);
    let report = f.dispatcher.exposure_report(SERVER).await;
    assert_eq!(report.label(), "auto→retrieve");
    assert_eq!(report.tools, Some(250));
    // Without a retrieved tool: the three meta-functions only (704 estimated tokens since
    // mcp_describe_ gained `complete`), well under half the direct budget; 8
    // retrieved tools of the fixture add 400-500 more. Shrinking the meta surface to ≤ 600
    // tokens is a target for later.
    assert!(
        report.declared_tokens <= DIRECT_MAX_TOKENS / 2,
        "{report:?}"
    );
    assert!(
        report.direct_tokens.unwrap() > DIRECT_MAX_TOKENS,
        "{report:?}"
    );
    assert_eq!(f.dispatcher.resolve("srv__gen_tool_0000"), None);
}

#[tokio::test]
async fn a_retrieve_request_never_declares_more_than_the_direct_budget() {
    // Budget and k far above what fits: the ranked tools get what the meta-functions beside
    // them leave of DIRECT_MAX_TOKENS (704 + 1,500 = 2,204 tokens before this bound).
    let f = Fixture::new(large_server(), Exposure::Retrieve).await;
    let settings = coyote_protocol::RetrieveSettings {
        top_k: 200,
        max_tokens: 50_000,
    };
    let dir = tempfile::tempdir().unwrap();
    let dispatcher =
        MetaDispatcher::new(f.runtime.clone(), SpillStore::new(dir.path().join("spill")))
            .with_exposure(
                ExposurePolicies::default()
                    .with(SERVER, Exposure::Retrieve)
                    .with_retrieve(SERVER, settings),
            );
    // Words that many tools match well (the generated tools share all their words: none of
    // them would pass the relevance floor).
    let context = crate::meta::RetrieveContext::user(
        "users teams repositories branches commits issues releases labels milestones webhooks",
    );
    let declared = dispatcher
        .declarations_for(&f.runtime.server_names(), &context)
        .await;
    let retrieved = declared
        .iter()
        .filter(|d| d.name.starts_with("srv__"))
        .count();
    assert!(retrieved > 8, "the budget, not k, stopped it: {retrieved}");
    assert_eq!(retrieved, dispatcher.retrieved().len());
    let tokens = estimate_tokens(&declared);
    assert!(tokens <= DIRECT_MAX_TOKENS, "{tokens} tokens");
    assert!(
        tokens > DIRECT_MAX_TOKENS - 100,
        "the budget is used: {tokens} tokens"
    );
}

#[tokio::test]
async fn thirteen_small_tools_exceed_the_tool_budget() {
    let f = Fixture::new(generated_tools(DIRECT_MAX_TOOLS + 1), Exposure::Auto).await;
    assert_eq!(f.names().await, META_TOOLS_ONLY);
    let f = Fixture::new(generated_tools(DIRECT_MAX_TOOLS), Exposure::Auto).await;
    assert_eq!(f.names().await.len(), DIRECT_MAX_TOOLS);
}

#[tokio::test]
async fn direct_and_meta_force_either_side() {
    let f = Fixture::new(generated_tools(250), Exposure::Direct).await;
    let names = f.names().await;
    assert_eq!(names.len(), 250);
    assert_eq!(names[0], "srv__gen_tool_0000");
    assert_eq!(f.dispatcher.exposure_report(SERVER).await.label(), "direct");
    let f = Fixture::new(small(), Exposure::Meta).await;
    assert_eq!(f.names().await, META_TOOLS_ONLY);
    assert_eq!(f.dispatcher.exposure_report(SERVER).await.label(), "meta");
}

#[tokio::test]
async fn discovery_read_and_prompt_stay_declared_beside_direct_tools() {
    let scenario = Scenario::builder()
        .capabilities(Capabilities::all())
        .tool("echo", ToolBehavior::Echo)
        .resource(
            "file:///notes.txt",
            "notes",
            ResourceBody::Text { text: "n".into() },
        )
        .prompt(a_prompt())
        .build();
    let f = Fixture::new(scenario, Exposure::Direct).await;
    let declared = f.declared().await;
    let names: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "srv__echo",
            "mcp_search_srv",
            "mcp_describe_srv",
            "mcp_read_srv",
            "mcp_prompt_srv"
        ]
    );
    // Descriptions name only declared functions: no invoke beside direct tools.
    for d in &declared {
        for word in d
            .description
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        {
            if word.starts_with("mcp_") || word.starts_with("srv__") {
                assert!(names.contains(&word), "{} names {word}", d.name);
            }
        }
    }
    assert!(
        declared[1].description.contains("own function"),
        "{}",
        declared[1].description
    );
}

#[tokio::test]
async fn a_tools_only_direct_server_gets_no_discovery_until_a_handle_is_issued() {
    let f = Fixture::new(small(), Exposure::Direct).await;
    assert_eq!(f.names().await, ["srv__echo", "srv__fixed", "srv__big"]);
    let big = f.dispatcher.dispatch("srv__big", json!({})).await.unwrap();
    assert!(big.to_model_text().contains("mcp_read_srv"));
    // The truncation note names mcp_read_srv: from the next request on, it is declared.
    let names = f.names().await;
    assert_eq!(
        names,
        ["srv__echo", "srv__fixed", "srv__big", "mcp_read_srv"]
    );
    let read = f.declared().await.pop().unwrap();
    assert!(read.description.contains("handle"), "{}", read.description);
    assert!(read.parameters["properties"].get("arguments").is_none());
}

#[tokio::test]
async fn a_server_that_advertises_resources_and_prompts_but_lists_none_gets_its_tools_alone() {
    let three = || {
        Scenario::builder()
            .capabilities(Capabilities::all())
            .tool("echo", ToolBehavior::Echo)
            .tool("add", ToolBehavior::Echo)
            .tool("multiply", ToolBehavior::Echo)
    };
    let f = Fixture::new(three().build(), Exposure::Auto).await;
    assert_eq!(f.names().await, ["srv__echo", "srv__add", "srv__multiply"]);
    let report = f.dispatcher.exposure_report(SERVER).await;
    assert_eq!(report.label(), "auto→direct");
    assert_eq!(report.declarations.len(), 3, "{report:?}");
    // A template is something to discover: search, describe and read, but no prompt function.
    let f = Fixture::new(
        three()
            .template("notes://{id}", "note", "note {id}")
            .build(),
        Exposure::Auto,
    )
    .await;
    let names = f.names().await;
    assert_eq!(
        names[3..],
        ["mcp_search_srv", "mcp_describe_srv", "mcp_read_srv"]
    );
    // A prompt alone: discovery and the prompt function, no read.
    let f = Fixture::new(three().prompt(a_prompt()).build(), Exposure::Direct).await;
    let names = f.names().await;
    assert_eq!(
        names[3..],
        ["mcp_search_srv", "mcp_describe_srv", "mcp_prompt_srv"]
    );
    // Forced meta keeps the features' gating.
    let f = Fixture::new(three().build(), Exposure::Meta).await;
    assert_eq!(f.names().await.len(), 5);
}

#[tokio::test]
async fn stable_declarations_come_first_and_retrieved_tools_after_them_by_name() {
    let f = Fixture::new(large_server(), Exposure::Retrieve).await;
    let request = |text: &str| {
        let context = crate::meta::RetrieveContext::user(text);
        let servers = f.runtime.server_names();
        let dispatcher = &f.dispatcher;
        async move { dispatcher.declarations_for(&servers, &context).await }
    };
    let names = |declared: &[FunctionDeclaration]| -> Vec<String> {
        declared.iter().map(|d| d.name.clone()).collect()
    };
    let first = names(&request("merge pull request 42 of the api repository").await);
    let second = names(&request("create an invoice for customer 77").await);
    for declared in [&first, &second] {
        assert_eq!(declared[..3], META_TOOLS_ONLY, "{declared:?}");
        let retrieved = &declared[3..];
        assert!(retrieved.len() > 2, "{declared:?}");
        let mut sorted = retrieved.to_vec();
        sorted.sort();
        assert_eq!(retrieved, sorted, "retrieved tools are sorted by name");
    }
    // The best-ranked tool is not first: the order is the name's, not the rank's.
    assert_eq!(f.dispatcher.retrieved()[0].tool, "create_invoice");
    assert_ne!(second[3], "srv__create_invoice", "{second:?}");
}

#[tokio::test]
async fn discovery_counts_toward_the_auto_budget() {
    // Twelve tools whose direct declarations fit alone, but not with search and describe.
    let mut tight = Scenario::builder().capabilities(Capabilities::none().with_tools());
    let mut with_prompts = Scenario::builder()
        .capabilities(Capabilities::none().with_tools().with_prompts())
        .prompt(a_prompt());
    let description = "d".repeat(520);
    for i in 0..12 {
        let spec = coyote_test_support::ToolSpec {
            name: format!("t{i:02}"),
            title: None,
            description: Some(description.clone()),
            input_schema: None,
            output_schema: None,
            annotations: None,
            behavior: ToolBehavior::Echo,
        };
        tight = tight.tool_spec(spec.clone());
        with_prompts = with_prompts.tool_spec(spec);
    }
    let f = Fixture::new(tight.build(), Exposure::Auto).await;
    let report = f.dispatcher.exposure_report(SERVER).await;
    assert_eq!(report.label(), "auto→direct", "{report:?}");
    let tools_only = report.direct_tokens.unwrap();
    assert!(tools_only <= DIRECT_MAX_TOKENS, "{tools_only}");
    let f = Fixture::new(with_prompts.build(), Exposure::Auto).await;
    let report = f.dispatcher.exposure_report(SERVER).await;
    assert_eq!(report.label(), "auto→retrieve", "{report:?}");
}

#[tokio::test]
async fn a_server_that_is_not_ready_is_declared_by_one_health_line() {
    let f = Fixture::new(small(), Exposure::Direct).await;
    f.fake.kill().await;
    for _ in 0..500 {
        if f.runtime.server(SERVER).is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let declared = f.declared().await;
    assert_eq!(declared.len(), 1);
    assert_eq!(declared[0].name, "mcp_search_srv");
    assert!(estimate_tokens(&declared) <= crate::meta::HEALTH_MAX_TOKENS);
    assert_eq!(
        f.dispatcher.exposure_report(SERVER).await.declared_tokens,
        estimate_tokens(&declared)
    );
}

#[tokio::test]
async fn tools_are_listed_again_only_after_tools_list_changed() {
    let scenario = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .tool(
            "notify",
            ToolBehavior::Notify {
                notifications: vec![ServerNotice::ToolsListChanged],
            },
        )
        .build();
    let f = Fixture::new(scenario, Exposure::Auto).await;
    let lists = || f.fake.events().list_requests(ListKind::Tools);
    f.names().await;
    f.names().await;
    assert_eq!(lists(), 1, "cached while the list is unchanged");
    f.dispatcher
        .dispatch("srv__notify", json!({}))
        .await
        .expect("notify runs");
    let handle = f.runtime.server(SERVER).unwrap();
    for _ in 0..500 {
        if handle.list_generations().tools > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(handle.list_generations().tools, 1);
    assert_eq!(f.names().await, vec!["srv__notify"]);
    assert_eq!(lists(), 2, "re-evaluated after tools/list_changed");
}

#[tokio::test]
async fn a_direct_call_is_answered_exactly_like_mcp_invoke() {
    let f = Fixture::new(small(), Exposure::Auto).await;
    f.names().await;
    for (tool, args) in [
        ("echo", json!({"text": "hi"})),
        ("fixed", json!({})),
        ("big", json!({})),
    ] {
        let direct = f
            .dispatcher
            .dispatch(&format!("srv__{tool}"), args.clone())
            .await
            .unwrap();
        // Not declared beside direct tools: run its target as `coyote mcp` would.
        let meta = f
            .dispatcher
            .dispatch_target(
                "mcp_invoke_srv",
                invoke_target(),
                json!({"tool": tool, "arguments": args}),
            )
            .await
            .unwrap();
        assert_eq!(direct, meta, "{tool}");
        assert!(
            direct.to_model_text().starts_with(&format!(
                "Result of tool `{tool}` on MCP server `srv`: answer the user from it unless \
                 you need another tool.\n"
            )),
            "{}",
            direct.to_model_text()
        );
    }
    // A plain text answer reaches the model as that text; a bounded one keeps its JSON.
    let fixed = f
        .dispatcher
        .dispatch("srv__fixed", json!({}))
        .await
        .unwrap();
    assert_eq!(
        fixed.to_model_text().split_once('\n').unwrap().1,
        "fixed output"
    );
    // A result cut at the budget: its text, then the note naming its handle.
    let big = f.dispatcher.dispatch("srv__big", json!({})).await.unwrap();
    let (_, note) = big
        .to_model_text()
        .rsplit_once('\n')
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .unwrap();
    assert!(note.starts_with("[coyote: truncated at "), "{note}");
    assert!(note.contains("coyote-result://"), "{note}");
    assert_eq!(f.fake.events().tool_calls("big"), 3);
}

#[tokio::test]
async fn a_resolved_target_runs_without_its_name_being_parsed_again() {
    let f = Fixture::new(small(), Exposure::Auto).await;
    f.names().await;
    let args = json!({"text": "hi"});
    let by_name = f
        .dispatcher
        .dispatch("srv__echo", args.clone())
        .await
        .unwrap();
    let target = f.dispatcher.resolve("srv__echo").unwrap();
    let resolved = f
        .dispatcher
        .dispatch_target("srv__echo", target, args.clone())
        .await
        .unwrap();
    assert_eq!(resolved, by_name);
    // The target decides, not the name: a name no declaration set has still runs its target.
    let target = FunctionTarget::Direct(crate::meta::DirectTool::new(SERVER, "echo"));
    let unnamed = f
        .dispatcher
        .dispatch_target("not_declared", target, args.clone())
        .await
        .unwrap();
    assert_eq!(unnamed, by_name);
    let meta = FunctionTarget::Meta(crate::meta::MetaFunction::new(
        crate::meta::MetaKind::Invoke,
        SERVER,
    ));
    let invoked = f
        .dispatcher
        .dispatch_target(
            "not_declared",
            meta,
            json!({"tool": "echo", "arguments": args}),
        )
        .await
        .unwrap();
    assert_eq!(invoked, by_name);
    assert_eq!(f.fake.events().tool_calls("echo"), 4);
}

#[tokio::test]
async fn direct_call_errors_name_the_function() {
    let f = Fixture::new(small(), Exposure::Auto).await;
    f.names().await;
    let err = f
        .dispatcher
        .dispatch("srv__echo", json!([1]))
        .await
        .unwrap_err();
    assert!(matches!(err, DispatchError::BadArguments { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "srv__echo: arguments must be a JSON object, got an array"
    );
    // After the server is gone a direct call answers like an invoke: with the server's state.
    f.fake.kill().await;
    for _ in 0..500 {
        if f.runtime.server(SERVER).is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let direct = f.dispatcher.dispatch("srv__echo", json!({})).await;
    let meta = f
        .dispatcher
        .dispatch_target("mcp_invoke_srv", invoke_target(), json!({"tool": "echo"}))
        .await;
    let (Err(direct), Err(meta)) = (direct, meta) else {
        panic!("both must fail");
    };
    assert_eq!(direct.to_string(), meta.to_string());
    assert!(direct.to_string().contains("is unavailable"), "{direct}");
    // The next request declares only its health line.
    assert_eq!(f.names().await, ["mcp_search_srv"]);
}

fn invoke_target() -> FunctionTarget {
    FunctionTarget::Meta(crate::meta::MetaFunction::new(
        crate::meta::MetaKind::Invoke,
        SERVER,
    ))
}

#[test]
fn policies_default_to_auto() {
    let p = ExposurePolicies::default().with("a", Exposure::Meta);
    assert_eq!(p.get("a"), Exposure::Meta);
    assert_eq!(p.get("b"), Exposure::Auto);
}

#[test]
fn odd_input_schemas_become_object_schemas() {
    let tool = |schema: Value| ToolInfo {
        name: "t".into(),
        title: Some("T".into()),
        description: None,
        input_schema: schema,
        output_schema: None,
        annotations: None,
    };
    let d = direct_declaration("s__t", &tool(json!({"properties": {}})));
    assert_eq!(
        d,
        FunctionDeclaration {
            name: "s__t".into(),
            description: "T".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }
    );
    let d = direct_declaration("s__t", &tool(json!("nonsense")));
    assert_eq!(d.parameters, json!({"type": "object"}));
}
