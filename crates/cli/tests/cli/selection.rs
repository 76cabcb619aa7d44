//! The declaration set through the `coyote` binary: a one-shot turn with the scripted
//! OpenAI-compatible model whose calls leave the request's declarations — a server outside
//! `enabled_mcp_servers`, an undeclared meta-function of a direct-exposed server, a direct tool
//! of the unselected server — gets tool errors naming the callable functions, and the running
//! server, which answered an allowed call earlier in the turn, records no further request.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools, tool_results};
use coyote_test_support::{Capabilities, Event, Scenario, ToolBehavior};
use serde_json::json;

use super::common::{Home, chat_async, write_fake_model_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_calls_outside_the_declarations_reach_no_server() {
    let home = Home::new();
    let server = |name: &str| {
        Scenario::builder()
            .server_name(name)
            .capabilities(Capabilities::none().with_tools())
            .safe_tool("echo", ToolBehavior::Echo)
            .write_to(home.path())
            .unwrap()
    };
    let (shown, hidden) = (server("shown"), server("hidden"));
    home.write_servers(json!({
        "shown": shown.mcp_json_entry(),
        "hidden": hidden.mcp_json_entry(),
    }));
    let script = vec![
        Reply::call("shown__echo", json!({"text": "allowed"})),
        Reply::calls(
            "",
            vec![
                (
                    "mcp_invoke_hidden",
                    json!({"tool": "echo", "arguments": {"text": "x"}}),
                ),
                (
                    "mcp_invoke_shown",
                    json!({"tool": "echo", "arguments": {"text": "y"}}),
                ),
                ("hidden__echo", json!({"text": "z"})),
            ],
        ),
        Reply::text("done"),
    ];
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    write_fake_model_config(&home, &llm.api_base(), "enabled_mcp_servers: [shown]\n");
    let (code, out, err) = chat_async(&home, &["use the tools"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "done\n");
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &requests[1]),
        ["shown__echo"]
    );
    let results = tool_results(LlmWire::OpenAi, &requests[2]);
    assert_eq!(results.len(), 4, "{results:?}");
    assert!(results[0].1.ends_with("\nallowed"), "{}", results[0].1);
    for (name, (_, text)) in ["mcp_invoke_hidden", "mcp_invoke_shown", "hidden__echo"]
        .iter()
        .zip(&results[1..])
    {
        assert_eq!(
            text,
            &format!(
                "{name:?} is not a function you can call now; the callable functions are: \
                 shown__echo"
            )
        );
    }
    // The selected server answered the allowed call and then saw nothing but the shutdown.
    let events = shown.events().events;
    let call = events
        .iter()
        .position(|e| matches!(e, Event::CallTool { .. }))
        .expect("the allowed call reached the server");
    assert_eq!(events[call + 1..], [Event::Disconnect], "{events:?}");
    // The unselected server was never even started.
    assert_eq!(hidden.events().events, []);
}

/// One entry with an unset `${VAR}` and one good server — a one-shot
/// chat and `coyote mcp tools good` work, each with a warning naming the entry and the
/// variable; the bad server is simply not there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unset_variable_disables_only_its_server() {
    let home = Home::new();
    let good = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("echo", ToolBehavior::Echo)
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({
        "bad": {"command": "x", "env": {"TOKEN": "${COYOTE_TEST_NOT_SET_ANYWHERE}"}},
        "good": good.mcp_json_entry(),
    }));
    let script = vec![
        Reply::call("good__echo", json!({"text": "works"})),
        Reply::text("fine"),
    ];
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    write_fake_model_config(&home, &llm.api_base(), "");
    let (code, out, err) = chat_async(&home, &["hello"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "fine\n");
    let warning = "coyote: warning: MCP server 'bad' is disabled";
    assert!(err.contains(warning), "{err}");
    assert!(err.contains("COYOTE_TEST_NOT_SET_ANYWHERE"), "{err}");
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &llm.requests()[0]),
        ["good__echo"]
    );
    let (code, out, err) = home.run_async(&["mcp", "tools", "good"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("echo"), "{out}");
    assert!(
        err.contains(warning) && err.contains("COYOTE_TEST_NOT_SET_ANYWHERE"),
        "{err}"
    );
}
