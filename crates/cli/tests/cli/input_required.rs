//! Protocol 2026-07-28's `input_required` results in the REPL, through
//! a real terminal: with `COYOTE_MCP_PROTOCOL=2026-07-28` coyote talks 2026-07-28 to a server
//! (test-support's `mrtr-server.mjs`, no SDK in between) whose tool first answers
//! `input_required` with a question and an opaque `requestState`; the REPL shows the question as
//! any other, coyote retries with the answer and the same `requestState`, and a declined
//! question is sent back declined — never as an accept.

use std::path::Path;

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply};
use coyote_test_support::peers::{require, system_node};
use serde_json::{Value, json};

use super::common::Home;
use super::terminal::{Terminal, tmux_available};

const STATE: &str = "opaque-state-{\"step\":1}-\u{2603}";

fn calls(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

async fn setup(home: &Home, replies: Vec<Reply>) -> Option<FakeLlm> {
    let node = require(system_node())?;
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-support/scripts/mrtr-server.mjs");
    let log = home.path().join("calls.jsonl");
    home.write_servers(json!({ "mrtr": {
        "command": node, "args": [script, log], "approve": "never"
    }}));
    let llm = FakeLlm::start(LlmWire::OpenAi, replies).await;
    let config = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), config).unwrap();
    Some(llm)
}

/// Waits until `.mcp status` shows the server ready; returns the prompts seen so far.
async fn wait_ready(term: &Terminal) -> usize {
    let mut prompts = 1;
    loop {
        term.type_text(".mcp status");
        term.keys(&["Enter"]);
        prompts += 1;
        let screen = term.wait_prompts(prompts).await;
        if screen
            .lines()
            .any(|l| l.contains("mrtr") && l.contains("ready"))
        {
            return prompts;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

fn deploy_replies(done: &str) -> Vec<Reply> {
    vec![
        // The one tool of a small server is declared directly (`<server>__<tool>`).
        Reply::call("mrtr__deploy", json!({})),
        Reply::text(done),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_question_is_asked_in_the_repl_and_the_retry_keeps_the_state() {
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let Some(_llm) = setup(&home, deploy_replies("deploy finished")).await else {
        return;
    };
    let term = Terminal::start(&home, &[("COYOTE_MCP_PROTOCOL", "2026-07-28")]);
    term.wait_prompts(1).await;
    let prompts = wait_ready(&term).await;
    term.type_text("deploy it");
    term.keys(&["Enter"]);
    term.wait_text("MCP server `mrtr` asks: Deploy to production?")
        .await;
    term.keys(&["Enter"]); // answer (fill in the form)
    term.wait_text("Reason").await;
    term.type_text("release 1.2");
    term.keys(&["Enter"]);
    term.wait_text("deploy finished").await;
    term.wait_prompts(prompts + 1).await;

    let calls = calls(&home.path().join("calls.jsonl"));
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert_eq!(calls[0].get("requestState"), None);
    assert_eq!(calls[1]["requestState"], json!(STATE));
    assert_eq!(
        calls[1]["inputResponses"]["confirm"],
        json!({"action": "accept", "content": {"reason": "release 1.2"}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_question_goes_back_declined() {
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let Some(_llm) = setup(&home, deploy_replies("not deployed")).await else {
        return;
    };
    let term = Terminal::start(&home, &[("COYOTE_MCP_PROTOCOL", "2026-07-28")]);
    term.wait_prompts(1).await;
    let prompts = wait_ready(&term).await;
    term.type_text("deploy it");
    term.keys(&["Enter"]);
    term.wait_text("MCP server `mrtr` asks: Deploy to production?")
        .await;
    term.keys(&["Down", "Enter"]); // decline
    term.wait_text("not deployed").await;
    term.wait_prompts(prompts + 1).await;

    let calls = calls(&home.path().join("calls.jsonl"));
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert_eq!(calls[1]["requestState"], json!(STATE));
    assert_eq!(
        calls[1]["inputResponses"]["confirm"],
        json!({"action": "decline"})
    );
}
