//! Agents through the real binary: `coyote -a NAME --var K=V TEXT` runs the turn as
//! the agent (its instructions with variables, its selection), its delegate runs with its own
//! resources-only server from its own mcp.json — gated from the delegate's runtime — and
//! shadows an app server of the same name (warned; the app's one is never started). A missing
//! variable or an unknown agent is a usage error that says what to do.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools, tool_results};
use coyote_test_support::{Capabilities, Event, ResourceBody, Scenario, ToolBehavior};
use serde_json::{Value, json};

use super::common::Home;

fn write_config(home: &Home, llm: &FakeLlm) {
    let text = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

fn write_agent(home: &Home, name: &str, yaml: &str, mcp: Option<Value>) {
    let dir = home.config_dir().join("agents").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.yaml"), yaml).unwrap();
    if let Some(mcp) = mcp {
        std::fs::write(dir.join("mcp.json"), mcp.to_string()).unwrap();
    }
}

fn system_prompt(request: &Value) -> Option<&str> {
    request["messages"]
        .as_array()?
        .iter()
        .find(|m| m["role"] == "system")?["content"]
        .as_str()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// `lead` (no servers of its own, variables) delegates to `scout`, whose own `kb` offers only
/// resources and shadows the app's `kb`.
fn setup(
    home: &Home,
) -> (
    coyote_test_support::ScenarioFile,
    coyote_test_support::ScenarioFile,
) {
    let own_kb = Scenario::builder()
        .server_name("kb")
        .capabilities(Capabilities::none().with_resources())
        .resource(
            "kb://facts",
            "facts",
            ResourceBody::Text {
                text: "the answer is 42".into(),
            },
        )
        .write_to(&home.path().join("own"))
        .unwrap();
    let app_kb = Scenario::builder()
        .server_name("kb")
        .capabilities(Capabilities::none().with_tools())
        .tool("echo", ToolBehavior::Echo)
        .write_to(&home.path().join("app"))
        .unwrap();
    home.write_servers(json!({ "kb": app_kb.mcp_json_entry() }));
    write_agent(
        home,
        "lead",
        "description: leads\ninstructions: You lead {{project}}.\nvariables:\n  - name: project\n\
         enabled_mcp_servers: []\ndelegates: [scout]\n",
        None,
    );
    write_agent(
        home,
        "scout",
        "description: reads the knowledge base\ninstructions: Answer from the kb.\n\
         enabled_mcp_servers: []\n",
        Some(json!({"mcpServers": {"kb": own_kb.mcp_json_entry()}})),
    );
    (own_kb, app_kb)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_agent_delegates_to_an_agent_with_its_own_gated_server() {
    let home = Home::new();
    std::fs::create_dir_all(home.path().join("own")).unwrap();
    std::fs::create_dir_all(home.path().join("app")).unwrap();
    let (own_kb, app_kb) = setup(&home);
    let script = vec![
        Reply::call(
            "agent_delegate_scout",
            json!({"task": "what is the answer?"}),
        ),
        Reply::call("mcp_read_kb", json!({"uri": "kb://facts"})),
        Reply::text("the kb says 42"),
        Reply::text("Answer: 42"),
    ];
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    write_config(&home, &llm);

    let (code, out, err) = home
        .run_async(&["-a", "lead", "--var", "project=apollo", "find the answer"])
        .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Answer: 42\n");
    for line in [
        "agent scout: started (fake:fake-model)",
        "agent scout: mcp_read_kb: ok",
        "agent scout: answered after 2 request(s)",
        "shadows the app server of the same name inside this agent",
    ] {
        assert!(err.contains(line), "missing `{line}` in:\n{err}");
    }

    let requests = llm.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(llm.violations(), Vec::<String>::new());
    // The parent: its instructions with the variable, only its delegate.
    assert_eq!(system_prompt(&requests[0]), Some("You lead apollo."));
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &requests[0]),
        vec!["agent_delegate_scout".to_owned()]
    );
    // The delegate: its own instructions, its own resources-only server.
    for request in &requests[1..3] {
        assert_eq!(system_prompt(request), Some("Answer from the kb."));
        assert_eq!(
            sorted(declared_tools(LlmWire::OpenAi, request)),
            vec!["mcp_describe_kb", "mcp_read_kb", "mcp_search_kb"]
        );
    }
    assert_eq!(
        tool_results(LlmWire::OpenAi, &requests[3]),
        vec![("call_0_0".to_owned(), "the kb says 42".to_owned())]
    );
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &requests[3]),
        vec!["agent_delegate_scout".to_owned()]
    );

    let own = own_kb.events();
    assert!(own.disconnect_seen(), "{:?}", own.events);
    assert_eq!(
        own.events
            .iter()
            .filter(|e| matches!(e, Event::ReadResource { .. }))
            .count(),
        1
    );
    assert!(
        app_kb.events().events.is_empty(),
        "the shadowed app server is never started: {:?}",
        app_kb.events().events
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_variable_or_unknown_agent_is_a_usage_error_that_says_what_to_do() {
    let home = Home::new();
    std::fs::create_dir_all(home.path().join("own")).unwrap();
    std::fs::create_dir_all(home.path().join("app")).unwrap();
    setup(&home);
    let llm = FakeLlm::start(LlmWire::OpenAi, Vec::new()).await;
    write_config(&home, &llm);

    let (code, _, err) = home.run_async(&["-a", "lead", "hi"]).await;
    assert_eq!(code, 2, "{err}");
    let file = home.config_dir().join("agents/lead/config.yaml");
    assert!(
        err.contains(&format!(
            "agent `lead` needs a value for `project` (no default in {}); pass --var \
             project=VALUE or give each a `default:` under `variables:`",
            file.display()
        )),
        "{err}"
    );

    let (code, _, err) = home.run_async(&["-a", "ghost", "hi"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ghost"), "{err}");
    assert!(llm.requests().is_empty());
}
