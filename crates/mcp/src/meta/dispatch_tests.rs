//! The dispatcher against the in-process fake MCP server (real protocol over duplex pipes).

use std::time::Duration;

use coyote_protocol::Timeouts;
use coyote_test_support::{
    Capabilities, CompletionTarget, FakeHandle, PNG_BYTES, PromptArgSpec, PromptContent,
    PromptMessageSpec, PromptRole, PromptSpec, ResourceBody, Scenario, ScenarioBuilder,
    ToolBehavior, big_text, in_process,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::*;
use crate::meta::actions::SearchRequest;
use crate::meta::{MetaKind, declarations};
use crate::runtime::{McpRuntime, RuntimeOptions};

struct Fixture {
    runtime: McpRuntime,
    dispatcher: MetaDispatcher,
    _fake: FakeHandle,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new(scenario: Scenario) -> Fixture {
        let runtime = McpRuntime::new(RuntimeOptions::default());
        let ((r, w), fake) = in_process(scenario);
        let timeouts = Timeouts {
            startup: Duration::from_secs(20),
            call: Duration::from_secs(20),
        };
        runtime
            .attach_stream("srv", timeouts, r, w)
            .await
            .expect("fake server ready");
        let dir = tempfile::tempdir().unwrap();
        let spill = SpillStore::new(dir.path().join("mcp-resources"));
        // Meta exposure: this suite is about the meta-functions (exposure_tests covers direct).
        let dispatcher = MetaDispatcher::new(runtime.clone(), spill).with_exposure(
            crate::meta::ExposurePolicies::default().with("srv", coyote_protocol::Exposure::Meta),
        );
        Fixture {
            runtime,
            dispatcher,
            _fake: fake,
            _dir: dir,
        }
    }

    /// Declares the request's functions (as the session does before each request), then
    /// dispatches `name`.
    async fn call(&self, name: &str, args: Value) -> Result<DispatchOutcome, DispatchError> {
        self.dispatcher
            .declarations(&self.runtime.server_names())
            .await;
        self.dispatcher.dispatch(name, args).await
    }

    async fn json(&self, name: &str, args: Value) -> Value {
        match self
            .call(name, args)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .body
        {
            DispatchBody::Json(v) => v,
            DispatchBody::Text(t) => panic!("{name}: expected JSON, got text {t}"),
        }
    }

    async fn close(self) {
        self.runtime.shutdown().await;
    }
}

fn prompt_spec() -> PromptSpec {
    PromptSpec {
        name: "review".into(),
        title: None,
        description: Some("Review a change".into()),
        arguments: vec![
            PromptArgSpec {
                name: "change".into(),
                description: Some("what changed".into()),
                required: true,
            },
            PromptArgSpec {
                name: "tone".into(),
                description: None,
                required: false,
            },
        ],
        messages: vec![
            PromptMessageSpec {
                role: PromptRole::User,
                content: PromptContent::Text {
                    text: "!rm -rf / {change}".into(),
                },
            },
            PromptMessageSpec {
                role: PromptRole::Assistant,
                content: PromptContent::Text {
                    text: ".session x".into(),
                },
            },
        ],
    }
}

fn full() -> ScenarioBuilder {
    Scenario::builder()
        .capabilities(Capabilities::all())
        .tool("echo", ToolBehavior::Echo)
        .tool("big", ToolBehavior::BigText { bytes: 300 * 1024 })
        .tool("picture", ToolBehavior::Image)
        .tool("mixed", ToolBehavior::off_spec_mixed())
        .tool(
            "fails",
            ToolBehavior::Error {
                text: "no such repo".into(),
            },
        )
        .resource(
            "fake://log",
            "app log",
            ResourceBody::Text {
                text: "ok\nERROR one\nok\n".into(),
            },
        )
        .resource("fake://png", "logo", ResourceBody::Png)
        .resource(
            "fake://b64",
            "b64 text",
            ResourceBody::Base64Text {
                text: "plain words".into(),
            },
        )
        .resource(
            "fake://raw",
            "raw",
            ResourceBody::RawContents {
                contents: json!([
                    {"uri": "fake://raw", "text": "a", "blob": "YQ=="},
                    {"uri": "fake://raw#2", "text": "fine"},
                    {"uri": "fake://raw#3"}
                ]),
            },
        )
        .template("fake://item/{id}", "item", "item {id}")
        .completion(
            CompletionTarget::ResourceTemplate {
                uri: "fake://item/{id}".into(),
            },
            "id",
            &["a1", "a2"],
        )
        .prompt(prompt_spec())
}

#[tokio::test]
async fn names_the_request_does_not_declare_are_errors_never_invokes() {
    let f = Fixture::new(full().build()).await;
    for name in [
        "mcp_bogus_srv",
        "echo",
        "mcp_srv",
        "mcp_invoke_",
        "mcp_search_nope",
        "srv__echo",
    ] {
        let err = f.call(name, json!({"tool": "echo"})).await.unwrap_err();
        match &err {
            DispatchError::NotDeclared { callable, .. } => {
                assert!(callable.contains(&"mcp_invoke_srv".to_owned()), "{err}")
            }
            other => panic!("{name}: expected NotDeclared, got {other}"),
        }
        assert!(err.to_string().contains("mcp_search_srv"), "{err}");
        assert!(err.is_usage());
    }
    assert_eq!(f._fake.events().tool_calls("echo"), 0);
    f.close().await;
}

#[tokio::test]
async fn a_function_of_a_server_outside_the_declaration_set_is_refused() {
    let f = Fixture::new(full().build()).await;
    // A request that selects no server declares nothing: even the server's own names fail.
    f.dispatcher.declarations(&[]).await;
    let err = f
        .dispatcher
        .dispatch("mcp_invoke_srv", json!({"tool": "echo"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, DispatchError::NotDeclared { callable, .. } if callable.is_empty()),
        "{err}"
    );
    assert_eq!(f._fake.events().tool_calls("echo"), 0);
    f.close().await;
}

/// The snapshot API later features build on (batch, sampling, mentions): a `Callable` taken
/// for one request keeps answering for that request after another one is declared.
#[tokio::test]
async fn a_callable_snapshot_keeps_the_declaration_set_it_was_taken_from() {
    let f = Fixture::new(full().build()).await;
    f.dispatcher.declarations(&f.runtime.server_names()).await;
    let snapshot = f.dispatcher.callable();
    f.dispatcher.declarations(&[]).await;
    assert_eq!(f.dispatcher.resolve("mcp_invoke_srv"), None);
    let target = snapshot
        .resolve("mcp_invoke_srv")
        .cloned()
        .expect("declared in the snapshot's request");
    let outcome = f
        .dispatcher
        .dispatch_target(
            "mcp_invoke_srv",
            target,
            json!({"tool": "echo", "arguments": {"text": "kept"}}),
        )
        .await
        .unwrap();
    assert!(!outcome.is_error);
    assert_eq!(f._fake.events().tool_calls("echo"), 1);
    assert!(snapshot.names().contains(&"mcp_search_srv".to_owned()));
    f.close().await;
}

#[tokio::test]
async fn gating_follows_the_live_handshake() {
    for (caps, expected) in [
        (
            Capabilities::none().with_tools(),
            vec![MetaKind::Search, MetaKind::Describe, MetaKind::Invoke],
        ),
        (
            Capabilities::none().with_resources(),
            vec![MetaKind::Search, MetaKind::Describe, MetaKind::Read],
        ),
        (
            Capabilities::none().with_prompts(),
            vec![MetaKind::Search, MetaKind::Describe, MetaKind::Prompt],
        ),
        (Capabilities::all(), MetaKind::ALL.to_vec()),
    ] {
        let f = Fixture::new(Scenario::builder().capabilities(caps).build()).await;
        let features = f.runtime.server_features();
        let names: Vec<String> = features
            .iter()
            .flat_map(declarations)
            .map(|d| d.name)
            .collect();
        let want: Vec<String> = expected.iter().map(|k| k.function_name("srv")).collect();
        assert_eq!(names, want);
        f.close().await;
    }
}

#[tokio::test]
async fn search_spans_kinds() {
    let f = Fixture::new(full().build()).await;
    let out = f
        .json("mcp_search_srv", json!({"query": "item", "top_k": 3}))
        .await;
    assert_eq!(out["results"][0]["kind"], "resource_template");
    assert_eq!(out["results"][0]["id"], "fake://item/{id}");
    let out = f.json("mcp_search_srv", json!({"query": "logo"})).await;
    assert_eq!(out["results"][0]["kind"], "resource");
    assert_eq!(out["results"][0]["id"], "fake://png");
    let out = f.json("mcp_search_srv", json!({"query": "zebra"})).await;
    assert_eq!(out["results"], json!([]));
    assert!(out["hint"].as_str().unwrap().contains("empty query"));
    f.close().await;
}

#[tokio::test]
async fn a_search_for_a_kind_the_server_lacks_says_so() {
    let tools_only = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .build();
    let f = Fixture::new(tools_only).await;
    let out = f
        .json(
            "mcp_search_srv",
            json!({"query": "order", "kind": "prompt"}),
        )
        .await;
    assert_eq!(out["results"], json!([]));
    let hint = out["hint"].as_str().unwrap();
    assert!(
        hint.starts_with("MCP server 'srv' has no prompts"),
        "{hint}"
    );
    assert!(hint.contains("search without `kind`"), "{hint}");
    f.close().await;
}

#[tokio::test]
async fn describe_every_kind() {
    let f = Fixture::new(full().build()).await;
    let tool = f.json("mcp_describe_srv", json!({"tool": "echo"})).await;
    assert_eq!(tool["kind"], "tool");
    assert_eq!(tool["name"], "echo");
    assert!(tool["inputSchema"].is_object());
    assert_eq!(tool["description"], "fake tool echo");

    let resource = f
        .json(
            "mcp_describe_srv",
            json!({"tool": "fake://png", "kind": "resource"}),
        )
        .await;
    assert_eq!(
        (
            resource["kind"].clone(),
            resource["name"].clone(),
            resource["mime_type"].clone()
        ),
        (json!("resource"), json!("logo"), json!("image/png"))
    );

    let template = f
        .json(
            "mcp_describe_srv",
            json!({"tool": "fake://item/{id}", "kind": "resource_template"}),
        )
        .await;
    assert_eq!(template["variables"], json!(["id"]));
    assert_eq!(template["completions"], json!({"id": ["a1", "a2"]}));

    let prompt = f
        .json(
            "mcp_describe_srv",
            json!({"tool": "review", "kind": "prompt"}),
        )
        .await;
    assert_eq!(
        prompt["arguments"],
        json!([
            {"name": "change", "title": null, "description": "what changed", "required": true, "type": "string"},
            {"name": "tone", "title": null, "description": null, "required": false, "type": "string"}
        ])
    );

    let err = f
        .call("mcp_describe_srv", json!({"tool": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "mcp_describe_srv: tool \"nope\" does not exist on server \"srv\"; call mcp_search_srv to find \
         the exact id (and its kind)"
    );
    let err = f
        .call("mcp_describe_srv", json!({"tool": "x", "kind": "widget"}))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("use one of tool, resource, resource_template, prompt"),
        "{err}"
    );
    f.close().await;
}

#[tokio::test]
async fn invoke_passes_small_results_and_preserves_is_error() {
    let f = Fixture::new(full().build()).await;
    let out = f
        .call(
            "mcp_invoke_srv",
            json!({"tool": "echo", "arguments": {"text": "hi"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        out.body,
        DispatchBody::Json(json!({"content": [{"type": "text", "text": "hi"}], "is_error": false}))
    );
    assert!(!out.is_error);
    let out = f
        .call("mcp_invoke_srv", json!({"tool": "fails"}))
        .await
        .unwrap();
    assert!(out.is_error);
    let DispatchBody::Json(v) = out.body else {
        panic!()
    };
    assert_eq!(v["is_error"], true);
    assert_eq!(v["content"][0]["text"], "no such repo");
    f.close().await;
}

#[tokio::test]
async fn a_300_kib_tool_result_is_truncated_then_recovered_page_by_page() {
    let f = Fixture::new(full().build()).await;
    let expected = big_text(300 * 1024);
    let out = f.json("mcp_invoke_srv", json!({"tool": "big"})).await;
    let item = &out["content"][0];
    assert_eq!(item["truncated"], true);
    let handle = item["handle"].as_str().unwrap().to_string();
    let mut text = item["text"].as_str().unwrap().to_string();
    let mut offset = item["next_offset"].clone();
    let mut pages = 0;
    while let Some(o) = offset.as_u64() {
        let page = f
            .json(
                "mcp_read_srv",
                json!({"uri": handle, "offset": o, "max_bytes": 65536}),
            )
            .await;
        text.push_str(page["text"].as_str().unwrap());
        offset = page["next_offset"].clone();
        pages += 1;
    }
    assert_eq!(pages, 2);
    assert_eq!(text, expected);
    f.close().await;
}

#[tokio::test]
async fn images_are_spilled_and_off_spec_blocks_do_not_hide_neighbours() {
    let f = Fixture::new(full().build()).await;
    let out = f.json("mcp_invoke_srv", json!({"tool": "picture"})).await;
    let image = out["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "image")
        .unwrap()
        .clone();
    assert_eq!(image["spilled"], true);
    assert_eq!(image["sha256"], hex::encode(Sha256::digest(PNG_BYTES)));
    assert_eq!(
        std::fs::read(image["path"].as_str().unwrap()).unwrap(),
        PNG_BYTES
    );
    assert!(
        !out.to_string().contains("iVBORw0KGgo"),
        "no base64 in the output: {out}"
    );

    let out = f.json("mcp_invoke_srv", json!({"tool": "mixed"})).await;
    let texts: Vec<Value> = out["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["text"].clone())
        .collect();
    assert_eq!(texts[0], "before off-spec");
    assert_eq!(texts[2], "after off-spec");
    assert_eq!(out["content"][1]["type"], "invalid");
    f.close().await;
}

#[tokio::test]
async fn read_text_pattern_sniff_spill_template_and_invalid_items() {
    let f = Fixture::new(full().build()).await;
    let log = f
        .json(
            "mcp_read_srv",
            json!({"uri": "fake://log", "pattern": "ERROR"}),
        )
        .await;
    assert_eq!(
        log,
        json!({"uri": "fake://log", "mime_type": "text/plain", "text": "1-ok\n2:ERROR one\n3-ok\n",
               "truncated": false, "total_bytes": 22, "next_offset": null, "pattern": "ERROR"})
    );
    let b64 = f.json("mcp_read_srv", json!({"uri": "fake://b64"})).await;
    assert_eq!(
        (b64["text"].clone(), b64["sniffed"].clone()),
        (json!("plain words"), json!(true))
    );

    let png = f.json("mcp_read_srv", json!({"uri": "fake://png"})).await;
    let path = png["path"].as_str().unwrap();
    assert_eq!(std::fs::read(path).unwrap(), PNG_BYTES);
    assert!(
        path.ends_with(".png") && path.contains("/mcp-resources/srv/"),
        "{path}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    let item = f
        .json(
            "mcp_read_srv",
            json!({"uri": "fake://item/{id}", "arguments": {"id": "a 1"}}),
        )
        .await;
    assert_eq!(
        (item["uri"].clone(), item["text"].clone()),
        (json!("fake://item/a%201"), json!("item a%201"))
    );

    let raw = f.json("mcp_read_srv", json!({"uri": "fake://raw"})).await;
    let raw = raw.as_array().unwrap();
    assert_eq!(raw.len(), 3);
    assert!(
        raw[0]["error"].is_string() && raw[2]["error"].is_string(),
        "{raw:?}"
    );
    assert_eq!(raw[1]["text"], "fine");
    f.close().await;
}

#[tokio::test]
async fn read_argument_errors_teach_before_any_request() {
    let f = Fixture::new(full().build()).await;
    let err = f
        .call("mcp_read_srv", json!({"uri": "fake://log", "pattern": "("}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            DispatchError::Render(crate::render::RenderError::InvalidPattern { .. })
        ),
        "{err}"
    );
    let err = f
        .call("mcp_read_srv", json!({"uri": "fake://item/{id}"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "template \"fake://item/{id}\" needs `id`; pass them in `arguments` (given: none)"
    );
    let err = f
        .call(
            "mcp_read_srv",
            json!({"uri": "fake://x/{+path}", "arguments": {"path": "a"}}),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, DispatchError::Template(_)), "{err}");
    let err = f
        .call("mcp_read_srv", json!({"offset": 3}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "mcp_read_srv: `uri` is required: a resource URI or template"
    );
    let err = f
        .call(
            "mcp_read_srv",
            json!({"uri": "fake://log", "max_bytes": -1}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "mcp_read_srv: `max_bytes` must be a non-negative integer, got -1"
    );
    let err = f
        .call("mcp_read_srv", json!({"uri": "fake://log", "paging": 1}))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("unknown parameter(s) `paging`"),
        "{err}"
    );
    let err = f
        .call("mcp_read_srv", json!(["fake://log"]))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("arguments must be a JSON object, got an array"),
        "{err}"
    );
    f.close().await;
}

#[tokio::test]
async fn prompt_is_flattened_verbatim_and_required_arguments_are_checked() {
    let f = Fixture::new(full().build()).await;
    let out = f
        .call(
            "mcp_prompt_srv",
            json!({"prompt": "review", "arguments": {"change": "v2"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        out.body,
        DispatchBody::Text("[user]\n!rm -rf / v2\n\n[assistant]\n.session x\n".into())
    );
    assert_eq!(
        out.to_model_text(),
        "[user]\n!rm -rf / v2\n\n[assistant]\n.session x\n"
    );
    let err = f
        .call(
            "mcp_prompt_srv",
            json!({"prompt": "review", "arguments": {"tone": "dry"}}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "prompt \"review\" needs `change` (what changed); pass them in `arguments` (string values)"
    );
    let err = f
        .call(
            "mcp_prompt_srv",
            json!({"prompt": "review", "arguments": {"change": ["x"]}}),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("`arguments.change` must be a string"),
        "{err}"
    );
    f.close().await;
}

#[tokio::test]
async fn audience_annotations_surface_in_search_and_read() {
    let scenario = Scenario::builder()
        .capabilities(Capabilities::all())
        .resource_spec(coyote_test_support::ResourceSpec {
            uri: "fake://notes".into(),
            name: "private notes".into(),
            title: None,
            description: Some("notes for the user".into()),
            mime_type: Some("text/plain".into()),
            annotations: Some(json!({"audience": ["user"]})),
            body: ResourceBody::Text { text: "n".into() },
        })
        .build();
    let f = Fixture::new(scenario).await;
    // Unknown until the model has seen it: nothing invented.
    let before = f.json("mcp_read_srv", json!({"uri": "fake://notes"})).await;
    assert!(before.get("annotations").is_none(), "{before}");
    let hits = f.json("mcp_search_srv", json!({"query": "notes"})).await;
    assert_eq!(
        hits["results"][0]["annotations"],
        json!({"audience": ["user"]})
    );
    let read = f.json("mcp_read_srv", json!({"uri": "fake://notes"})).await;
    assert_eq!(read["annotations"], json!({"audience": ["user"]}));
    assert_eq!(read["text"], "n");
    f.close().await;
}

#[tokio::test]
async fn a_server_that_is_not_ready_answers_with_its_state() {
    let f = Fixture::new(full().build()).await;
    f._fake.kill().await;
    // Bounded wait for the runtime to notice the closed connection (no timing asserted).
    for _ in 0..500 {
        if f.runtime.state("srv") != Some(crate::server::ServerState::Ready) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The failed server is declared by its health line; calling it answers with that line.
    let declared = f.dispatcher.declarations(&f.runtime.server_names()).await;
    assert_eq!(declared.len(), 1, "{declared:?}");
    assert!(declared[0].description.contains("failed"), "{declared:?}");
    let err = f
        .dispatcher
        .dispatch("mcp_search_srv", json!({"any": "thing"}))
        .await
        .unwrap_err();
    match &err {
        DispatchError::Unavailable { server, state } => {
            assert_eq!(server, "srv");
            assert!(
                matches!(state, crate::server::ServerState::Failed(_)),
                "{state:?}"
            );
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    assert!(
        err.to_string().contains("is unavailable: it failed ("),
        "{err}"
    );
    assert!(!err.to_string().contains("coyote mcp"), "{err}");
    f.close().await;
}

fn parsed(name: &str, args: Value) -> Result<Call, DispatchError> {
    let function = MetaFunction::parse(name).unwrap();
    parse_call(&function, Args::new(&function, args)?)
}

#[test]
fn arguments_are_parsed_leniently_where_models_slip_and_strictly_elsewhere() {
    match parsed(
        "mcp_invoke_s",
        json!({"tool": "t", "arguments": "{\"a\": 1}"}),
    )
    .unwrap()
    {
        Call::Invoke { tool, arguments } => {
            assert_eq!(
                (tool.as_str(), Value::Object(arguments)),
                ("t", json!({"a": 1}))
            )
        }
        other => panic!("{other:?}"),
    }
    match parsed("mcp_search_s", json!({"query": "q", "top_k": 100})).unwrap() {
        Call::Search(req) => assert_eq!(
            req,
            SearchRequest {
                query: "q".into(),
                top_k: 20,
                kind: None,
                offset: 0,
            }
        ),
        other => panic!("{other:?}"),
    }
    match parsed(
        "mcp_search_s",
        json!({"query": "", "kind": "resource", "offset": "40"}),
    )
    .unwrap()
    {
        Call::Search(req) => assert_eq!(
            req,
            SearchRequest {
                query: String::new(),
                top_k: 5,
                kind: Some(crate::catalog::CatalogKind::Resource),
                offset: 40,
            }
        ),
        other => panic!("{other:?}"),
    }
    let err = parsed("mcp_search_s", json!({"query": "", "kind": "tools!"})).unwrap_err();
    assert!(err.to_string().contains("`kind` is \"tools!\""), "{err}");
    match parsed(
        "mcp_read_s",
        json!({"uri": "u", "offset": "10", "max_bytes": 5.0, "arguments": {"n": 3, "b": true}}),
    )
    .unwrap()
    {
        Call::Read(req) => {
            assert_eq!((req.options.offset(), req.options.max_bytes()), (10, 5));
            assert_eq!(req.arguments.get("n").map(String::as_str), Some("3"));
            assert_eq!(req.arguments.get("b").map(String::as_str), Some("true"));
        }
        other => panic!("{other:?}"),
    }
    match parsed(
        "mcp_describe_s",
        json!({"tool": "x/{id}", "kind": "template"}),
    )
    .unwrap()
    {
        Call::Describe(req) => {
            assert_eq!(req.kind, crate::catalog::CatalogKind::ResourceTemplate)
        }
        other => panic!("{other:?}"),
    }
    let err = parsed("mcp_invoke_s", json!({"tool": "t", "arguments": [1]})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "mcp_invoke_s: `arguments` must be an object, got an array"
    );
    let err = parsed("mcp_invoke_s", json!({"tool": ""})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "mcp_invoke_s: `tool` is required: the tool name"
    );
    let err = parsed("mcp_search_s", json!({"query": 3})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "mcp_search_s: `query` must be a string, got a number"
    );
}

#[test]
fn a_server_waiting_for_sign_in_tells_the_model_what_to_ask_the_user() {
    let err = DispatchError::from(McpError::NeedsAuth {
        server: "linear".into(),
    });
    assert_eq!(
        err.to_string(),
        "MCP server 'linear' needs sign-in: ask the user to run `coyote mcp login linear` (in \
         the REPL: `.mcp login linear`), then call it again."
    );
    assert!(!err.is_usage());
    let err = DispatchError::from(McpError::NeedsScope {
        server: "gh".into(),
        scope: "repo".into(),
    });
    assert!(
        err.to_string().contains(
            "needs more permissions (scope repo): ask the user to run `coyote mcp login gh`"
        ),
        "{err}"
    );
}
