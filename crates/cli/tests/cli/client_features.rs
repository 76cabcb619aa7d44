//! The client features through the `coyote` binary with real peers: server-everything
//! over stdio (its conditional tools appear once sampling, roots and URL elicitation are
//! advertised; sampling with `--allow-sampling` through a fake OpenAI-compatible model; no
//! model request without it; the git root as its roots; its instructions in the system
//! prompt), the TypeScript SDK's `toolWithSampleServer.js` (the token cap and the rate limit
//! refuse with the setting named), questions declined with a stderr line when nothing can ask,
//! and a tool without annotations needing `--yes`.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, tool_results, user_texts};
use coyote_test_support::{Capabilities, Scenario, ToolBehavior, peers};
use serde_json::{Value, json};

use super::common::{Home, everything_entry, output_async};

/// config.yaml with `fake:fake-model` at `llm` (no key).
fn write_config(home: &Home, llm: &FakeLlm) {
    let text = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

fn system_texts(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn everything_offers_the_tools_that_need_client_features() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let tools = home.json(&["mcp", "tools", "everything"]);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for tool in [
        "trigger-sampling-request",
        "get-roots-list",
        "trigger-url-elicitation",
        "trigger-elicitation-request",
    ] {
        assert!(names.contains(&tool), "{tool} missing from {names:?}");
    }
}

#[tokio::test]
async fn sampling_with_allow_sampling_reaches_the_model_and_without_it_nothing_does() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("a sampled answer")]).await;
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    write_config(&home, &llm);

    // Piped (no terminal) and no flag: declined, and the model is never asked.
    let (code, out, err) = home
        .run_async(&[
            "mcp",
            "call",
            "everything",
            "trigger-sampling-request",
            "prompt=piped-prompt",
        ])
        .await;
    assert_ne!(code, 0, "{out}\n{err}");
    assert!(
        err.contains("asked the model to answer (sampling); declined"),
        "{err}"
    );
    assert!(err.contains("--allow-sampling"), "{err}");
    assert_eq!(llm.requests().len(), 0, "the model received nothing");

    let (code, out, err) = home
        .run_async(&[
            "mcp",
            "call",
            "--allow-sampling",
            "everything",
            "trigger-sampling-request",
            "prompt=hello-from-the-test",
        ])
        .await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("a sampled answer"), "{out}");
    assert!(
        out.contains("fake:fake-model"),
        "the server is told the model: {out}"
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 1);
    let users = user_texts(LlmWire::OpenAi, &requests[0]);
    assert!(users[0].contains("hello-from-the-test"), "{users:?}");
    assert_eq!(
        system_texts(&requests[0]),
        vec!["You are a helpful test server."]
    );
    assert_eq!(requests[0]["max_tokens"], json!(100));
}

#[test]
fn the_roots_of_a_run_are_the_git_root_as_a_file_uri() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    std::fs::create_dir(home.work_dir().join(".git")).unwrap();
    let nested = home.work_dir().join("src").join("deep");
    std::fs::create_dir_all(&nested).unwrap();
    let out = home
        .coyote()
        .current_dir(&nested)
        .args(["mcp", "call", "everything", "get-roots-list"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let work = std::fs::canonicalize(home.work_dir()).unwrap();
    let uri = format!("URI: file://{}\n", work.display());
    assert!(stdout.contains(&uri), "{uri:?} not in {stdout}");
    assert!(stdout.contains("Current MCP Roots (1 total)"), "{stdout}");
}

#[tokio::test]
async fn a_chat_request_carries_the_servers_instructions_labelled_and_within_the_cap() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("ok")]).await;
    let home = Home::new();
    let mut entry = entry;
    entry["instructionsMaxBytes"] = json!(300);
    home.write_servers(json!({ "everything": entry }));
    write_config(&home, &llm);
    let (code, _, err) = home.run_async(&["hello"]).await;
    assert_eq!(code, 0, "{err}");
    let requests = llm.requests();
    let system = system_texts(&requests[0]);
    assert_eq!(system.len(), 1, "{system:?}");
    let block = system[0]
        .split("<server_instructions server=\"everything\" trust=\"untrusted\">\n")
        .nth(1)
        .expect("a labelled block");
    assert!(
        block.starts_with("# Everything Server – Server Instructions"),
        "{block}"
    );
    let text = block.split("\n[cut:").next().unwrap();
    assert!(text.len() <= 300, "{} bytes", text.len());
    assert!(block.contains("[cut: "), "{block}");
    assert!(system[0].contains("untrusted"), "{}", system[0]);
}

#[tokio::test]
async fn the_sdk_sample_server_is_refused_by_the_token_cap_and_the_rate_limit() {
    let Some(spec) = peers::require(peers::sdk_example_stdio_command("toolWithSampleServer.js"))
    else {
        return;
    };
    // Chat: summarize twice; the first is sampled (its answer is scripted in between), the
    // second is over the rate of one a minute.
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call(
                "mcp_invoke_sdk",
                json!({"tool": "summarize", "arguments": {"text": "one"}}),
            ),
            Reply::text("summary one"),
            Reply::call(
                "mcp_invoke_sdk",
                json!({"tool": "summarize", "arguments": {"text": "two"}}),
            ),
            Reply::text("done"),
        ],
    )
    .await;
    let home = Home::new();
    let mut entry = peers::mcp_json_entry(&spec);
    entry["samplingPerMinute"] = json!(1);
    entry["expose"] = json!("meta");
    home.write_servers(json!({ "sdk": entry }));
    write_config(&home, &llm);
    let (code, out, err) = home
        .run_async(&["--allow-sampling", "--yes", "summarize two texts"])
        .await;
    assert_eq!(code, 0, "{out}\n{err}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 4, "{requests:#?}");
    let sampled = user_texts(LlmWire::OpenAi, &requests[1]);
    assert!(
        sampled[0].contains("Please summarize the following text concisely"),
        "{sampled:?}"
    );
    let first = tool_results(LlmWire::OpenAi, &requests[2]);
    assert!(first.last().unwrap().1.contains("summary one"), "{first:?}");
    let second = tool_results(LlmWire::OpenAi, &requests[3]);
    assert!(
        second.last().unwrap().1.contains("samplingPerMinute"),
        "{second:?}"
    );

    // The server asks for 500 tokens; a cap of 100 refuses before any model is asked.
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![]).await;
    let mut entry = peers::mcp_json_entry(&spec);
    entry["samplingMaxTokens"] = json!(100);
    home.write_servers(json!({ "sdk": entry }));
    write_config(&home, &llm);
    let (code, out, err) = home
        .run_async(&[
            "mcp",
            "call",
            "--allow-sampling",
            "sdk",
            "summarize",
            "text=hi",
        ])
        .await;
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("asked for 500 tokens"), "{out}");
    assert!(out.contains("samplingMaxTokens"), "{out}");
    assert_eq!(llm.requests().len(), 0);
}

#[tokio::test]
async fn questions_are_declined_with_a_stderr_line_when_piped() {
    let home = Home::new();
    let server = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool(
            "ask",
            ToolBehavior::Elicit {
                message: "Your name?".into(),
                schema: json!({"type": "object", "properties": {"name": {"type": "string"}},
                               "required": ["name"]}),
            },
        )
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": server.mcp_json_entry() }));
    let mut cmd = home.coyote();
    cmd.args(["mcp", "call", "fake", "ask"]);
    let (code, out, err) = output_async(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"action\":\"decline\""), "{out}");
    assert!(
        err.contains(
            "MCP server `fake` asked a question (Your name?); declined: there is no terminal"
        ),
        "{err}"
    );
    assert_eq!(
        server.events().elicitations(),
        vec![("decline".to_owned(), None)]
    );
}

#[tokio::test]
async fn a_tool_without_annotations_needs_yes_in_one_shot() {
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call("mcp_invoke_fake", json!({"tool": "plain"})),
            Reply::text("refused"),
            Reply::call("mcp_invoke_fake", json!({"tool": "plain"})),
            Reply::text("ran"),
        ],
    )
    .await;
    let home = Home::new();
    let server = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .tool(
            "plain",
            ToolBehavior::Text {
                text: "did it".into(),
            },
        )
        .write_to(home.path())
        .unwrap();
    let mut entry = server.mcp_json_entry();
    entry["expose"] = json!("meta");
    home.write_servers(json!({ "fake": entry }));
    write_config(&home, &llm);
    let (code, _, err) = home.run_async(&["run plain"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.events().tool_calls("plain"), 0);
    let refused = tool_results(LlmWire::OpenAi, &llm.requests()[1]);
    assert!(refused[0].1.contains("did not approve"), "{refused:?}");
    let (code, _, err) = home.run_async(&["--yes", "run plain"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.events().tool_calls("plain"), 1);
}
