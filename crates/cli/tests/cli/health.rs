//! Server health through the `coyote` binary: a server that crashes at start is
//! declared to the model by one short health line — at most `HEALTH_MAX_TOKENS` by the same
//! estimator `coyote mcp servers` reports with — and the model's call of it is answered with
//! what to ask the user, never a command for the model to run.

use coyote_mcp::meta::{HEALTH_MAX_TOKENS, estimate_tokens};
use coyote_protocol::FunctionDeclaration;
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools, tool_results};
use coyote_test_support::fake_oauth::{FakeOAuthServer, Misbehaviour};
use coyote_test_support::{Capabilities, Scenario, StartupMode, ToolBehavior};
use serde_json::json;

use super::common::{Home, chat_async, write_fake_model_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_server_is_one_short_line_that_says_what_to_ask_the_user() {
    let home = Home::new();
    std::fs::create_dir_all(home.path().join("crashy")).unwrap();
    std::fs::create_dir_all(home.path().join("fine")).unwrap();
    let crashy = Scenario::builder()
        .capabilities(Capabilities::none().with_tools().with_resources())
        .startup_mode(StartupMode::CrashAtStart {
            stderr: "fatal: missing API token".into(),
            exit_code: 3,
        })
        .write_to(&home.path().join("crashy"))
        .unwrap();
    let fine = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("echo", ToolBehavior::Echo)
        .write_to(&home.path().join("fine"))
        .unwrap();
    home.write_servers(json!({
        "crashy": crashy.mcp_json_entry(),
        "fine": fine.mcp_json_entry(),
    }));

    // `coyote mcp servers`: the failed server's declaration is the health line.
    let servers = home.json(&["mcp", "servers"]);
    let row = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "crashy")
        .unwrap();
    assert_eq!(row["state"], "failed");
    let shown_tokens = row["exposure"]["declared_tokens"].as_u64().unwrap();
    assert!(shown_tokens <= HEALTH_MAX_TOKENS as u64, "{row:#}");

    let script = vec![
        Reply::call("mcp_search_crashy", json!({"query": "anything"})),
        Reply::text("it is down"),
    ];
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    write_fake_model_config(&home, &llm.api_base(), "");
    let (code, out, err) = chat_async(&home, &["search crashy"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "it is down\n");
    let requests = llm.requests();
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &requests[0]),
        ["mcp_search_crashy", "fine__echo"]
    );
    // The same estimate as the servers listing, over the declaration the model really got.
    let declared = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "mcp_search_crashy")
        .unwrap();
    let declaration = FunctionDeclaration {
        name: declared["function"]["name"].as_str().unwrap().to_owned(),
        description: declared["function"]["description"]
            .as_str()
            .unwrap()
            .to_owned(),
        parameters: declared["function"]["parameters"].clone(),
    };
    let tokens = estimate_tokens(std::slice::from_ref(&declaration));
    assert!(
        tokens <= HEALTH_MAX_TOKENS,
        "{tokens} tokens: {declaration:?}"
    );
    assert_eq!(
        tokens as u64, shown_tokens,
        "the listing's estimate differs: {row:#}\n{declaration:?}"
    );
    assert!(
        declaration
            .description
            .starts_with("UNAVAILABLE. MCP server 'crashy' is unavailable: it failed ("),
        "{}",
        declaration.description
    );
    assert!(
        declaration.description.contains("fatal: missing API token"),
        "{}",
        declaration.description
    );
    // The call answers with the same line: what to tell and ask the user.
    let results = tool_results(LlmWire::OpenAi, &requests[1]);
    let answer = &results[0].1;
    assert_eq!(
        declaration.description,
        format!("UNAVAILABLE. {answer}"),
        "the call answers with the declared line"
    );
    assert!(
        answer.ends_with(
            "Do not call it again; tell the user and ask them to fix or restart the server."
        ),
        "{answer}"
    );
    assert!(!answer.contains("coyote mcp"), "{answer}");
    // The one-shot run warned the user on stderr too.
    assert!(err.contains("MCP server 'crashy'"), "{err}");
}

/// A remote server waiting for sign-in is declared by one
/// short line, and calling it answers what to ask the user — never a command for the model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_waiting_for_sign_in_says_what_to_ask_the_user() {
    let oauth = FakeOAuthServer::start(Misbehaviour::Loops401)
        .await
        .unwrap();
    let home = Home::new();
    home.write_servers(json!({ "remote": { "url": oauth.url() } }));
    let script = vec![
        Reply::call("mcp_search_remote", json!({"query": "issues"})),
        Reply::text("you need to sign in"),
    ];
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    write_fake_model_config(&home, &llm.api_base(), "");
    let (code, out, err) = chat_async(&home, &["find my issues"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "you need to sign in\n");
    let requests = llm.requests();
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &requests[0]),
        ["mcp_search_remote"]
    );
    let line = "MCP server 'remote' needs sign-in: ask the user to run `coyote mcp login remote` \
                (in the REPL: `.mcp login remote`), then call it again.";
    let declared = &requests[0]["tools"][0]["function"];
    assert_eq!(declared["description"], format!("UNAVAILABLE. {line}"));
    let declaration = FunctionDeclaration {
        name: "mcp_search_remote".into(),
        description: format!("UNAVAILABLE. {line}"),
        parameters: declared["parameters"].clone(),
    };
    assert!(estimate_tokens(&[declaration]) <= HEALTH_MAX_TOKENS);
    let results = tool_results(LlmWire::OpenAi, &requests[1]);
    assert_eq!(results[0].1, line);
}
