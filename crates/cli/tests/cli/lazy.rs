//! Lazy start from a cached catalog, through the `coyote` binary with
//! the scripted OpenAI-compatible model. The fake server writes its event log when it starts:
//! that file is the marker that a server process ran.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools, tool_results};
use coyote_test_support::{Capabilities, Scenario, ScenarioFile, ToolBehavior};
use serde_json::{Value, json};

use super::common::{Home, chat_async, write_fake_model_config};

fn server(home: &Home, name: &str, tool: &str) -> ScenarioFile {
    Scenario::builder()
        .server_name(name)
        .capabilities(Capabilities::none().with_tools())
        .safe_tool(tool, ToolBehavior::Echo)
        .write_to(home.path())
        .unwrap()
}

/// Runs one chat turn with `script`; returns the model's requests.
async fn chat(home: &Home, script: Vec<Reply>, question: &str) -> (Vec<Value>, String) {
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    write_fake_model_config(home, &llm.api_base(), "");
    let (code, out, err) = chat_async(home, &[question]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with('\n'), "{out}");
    (llm.requests(), err)
}

fn started(server: &ScenarioFile) -> bool {
    server.event_log.exists()
}

fn forget_starts(servers: &[&ScenarioFile]) {
    for server in servers {
        std::fs::remove_file(&server.event_log).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_cache_answers_without_starting_and_a_call_starts_only_its_server() {
    let home = Home::new();
    let (one, two) = (server(&home, "one", "echo"), server(&home, "two", "ping"));
    home.write_servers(json!({ "one": one.mcp_json_entry(), "two": two.mcp_json_entry() }));

    // Cold: both start, and their catalogs are cached.
    chat(&home, vec![Reply::text("hi")], "hello").await;
    assert!(started(&one) && started(&two));
    forget_starts(&[&one, &two]);
    let (code, out, err) = home.run_async(&["mcp", "cache", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let cached: Value = serde_json::from_str(&out).unwrap();
    let mut servers: Vec<&str> = cached
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["server"].as_str().unwrap())
        .collect();
    servers.sort_unstable();
    assert_eq!(servers, ["one", "two"]);
    assert_eq!(cached[0]["tools"], 1);

    // Warm, no tool needed: no server process at all, the declarations from the cache.
    let (requests, _) = chat(&home, vec![Reply::text("no tools needed")], "2+2?").await;
    assert!(!started(&one) && !started(&two), "a server started");
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &requests[0]),
        ["one__echo", "two__ping"]
    );

    // Warm, one call: only that server starts.
    let script = vec![
        Reply::call("one__echo", json!({"text": "lazy"})),
        Reply::text("done"),
    ];
    let (requests, _) = chat(&home, script, "echo lazy").await;
    assert!(started(&one), "the called server starts");
    assert!(!started(&two), "the other one does not");
    let results = tool_results(LlmWire::OpenAi, &requests[1]);
    assert!(results[0].1.ends_with("\nlazy"), "{}", results[0].1);
    assert_eq!(one.events().tool_calls("echo"), 1);

    // `coyote mcp cache clear` empties it: the next chat starts both again.
    let (code, _, err) = home.run_async(&["mcp", "cache", "clear"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("removed 2 cached catalog(s)"), "{err}");
    forget_starts(&[&one]);
    chat(&home, vec![Reply::text("cold again")], "hello").await;
    assert!(started(&one) && started(&two));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_catalog_refreshes_the_declarations_and_a_vanished_tool_is_an_error() {
    let home = Home::new();
    let fake = server(&home, "fake", "old");
    home.write_servers(json!({ "fake": fake.mcp_json_entry() }));
    chat(&home, vec![Reply::text("hi")], "hello").await;

    // The server now offers `new` instead of `old` (same entry, so the cache still applies).
    let renamed = Scenario::builder()
        .server_name("fake")
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("new", ToolBehavior::Echo)
        .event_log(&fake.event_log)
        .build();
    std::fs::write(&fake.path, serde_json::to_string(&renamed).unwrap()).unwrap();
    let script = vec![
        Reply::call("fake__old", json!({"text": "x"})),
        Reply::call("fake__new", json!({"text": "fresh"})),
        Reply::text("done"),
    ];
    let (requests, _) = chat(&home, script, "use it").await;
    assert_eq!(declared_tools(LlmWire::OpenAi, &requests[0]), ["fake__old"]);
    let results = tool_results(LlmWire::OpenAi, &requests[1]);
    assert_eq!(
        results[0].1,
        "MCP server 'fake' changed its catalog since this request was declared: tool \"old\" \
         no longer exists. The next request declares what the server offers now; use one of \
         those."
    );
    // The next request is declared from the live server.
    assert_eq!(declared_tools(LlmWire::OpenAi, &requests[1]), ["fake__new"]);
    let results = tool_results(LlmWire::OpenAi, &requests[2]);
    assert!(results[1].1.ends_with("\nfresh"), "{}", results[1].1);
    assert_eq!(fake.events().tool_calls("old"), 0);
}

/// In a REPL whose servers are idle (cached), `.list tools` shows the cached catalog without
/// starting anything, and `.mcp log` starts the server it needs (before: `.list` showed no
/// tools and `.mcp log` refused an idle server).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_repl_server_is_listed_from_its_cache_and_started_when_a_command_needs_it() {
    use super::terminal::{Terminal, tmux_available};
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let one = server(&home, "one", "echo");
    home.write_servers(json!({ "one": one.mcp_json_entry() }));
    chat(&home, vec![Reply::text("hi")], "hello").await;
    forget_starts(&[&one]);

    let term = Terminal::start(&home, &[("FAKE_LLM_KEY", "sk-fake")]);
    term.wait_prompts(1).await;
    term.type_text(".list tools");
    term.keys(&["Enter"]);
    let screen = term.wait_text("listed from its cached catalog").await;
    assert!(screen.contains("echo"), "{screen}");
    assert!(!started(&one), "listing started the server:\n{screen}");

    term.type_text(".mcp log one debug");
    term.keys(&["Enter"]);
    let screen = term
        .wait_for("the log level answer", |s| {
            s.contains("now sends log messages") || s.contains("does not advertise logging")
        })
        .await;
    assert!(!screen.contains("not ready"), "{screen}");
    assert!(started(&one), "the command needed the server:\n{screen}");
}
