//! The client features' questions through a real terminal (tmux): sampling consent in
//! the REPL against the TypeScript SDK's `toolWithSampleServer.js` (approved with the answer
//! shown first, declined, edited), a form question answered from `coyote mcp call`, a web page
//! opened through `$BROWSER` from `coyote mcp call` against server-everything, and
//! server-everything's simulated log messages in the REPL. Assertions are about what the
//! servers and the model received and what the screen shows, never about timing.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, tool_results, user_texts};
use coyote_test_support::{Capabilities, Scenario, ToolBehavior, peers};
use serde_json::json;

use super::common::{Home, everything_entry};
use super::repl::write_config;
use super::terminal::{POLL, Terminal, tmux_available};

/// Types `.mcp status` until server `name` is ready (servers start in the background);
/// returns the prompts seen so far.
pub(super) async fn wait_ready(term: &Terminal, name: &str, prompts_so_far: usize) -> usize {
    let mut prompts = prompts_so_far;
    loop {
        term.type_text(".mcp status");
        term.keys(&["Enter"]);
        prompts += 1;
        let screen = term.wait_prompts(prompts).await;
        let ready = screen.lines().any(|l| {
            l.split_whitespace().next() == Some(name)
                && l.split_whitespace().nth(2) == Some("ready")
        });
        if ready {
            return prompts;
        }
        tokio::time::sleep(POLL).await;
    }
}

#[tokio::test]
async fn sampling_consent_is_given_declined_and_edited_in_the_repl() {
    if !tmux_available() {
        return;
    }
    let Some(spec) = peers::require(peers::sdk_example_stdio_command("toolWithSampleServer.js"))
    else {
        return;
    };
    let summarize = |text: &str| Reply::call("sdk__summarize", json!({"text": text}));
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            // Turn 1: approved; the sampled answer, then the chat answer.
            summarize("first text"),
            Reply::text("SUMMARY-ONE"),
            Reply::text("turn one done"),
            // Turn 2: declined; no sampling request.
            summarize("second text"),
            Reply::text("turn two done"),
            // Turn 3: edited.
            summarize("third text"),
            Reply::text("SUMMARY-THREE"),
            Reply::text("turn three done"),
        ],
    )
    .await;
    let home = Home::new();
    let mut entry = peers::mcp_json_entry(&spec);
    entry["autoApprove"] = json!(["summarize"]);
    entry["expose"] = json!("direct");
    home.write_servers(json!({ "sdk": entry }));
    write_config(&home, &llm);
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    wait_ready(&term, "sdk", 1).await;

    term.type_text("summarize one");
    term.keys(&["Enter"]);
    term.wait_text("MCP server `sdk` asks the model fake:fake-model to answer (up to 500 tokens).")
        .await;
    let screen = term.wait_text("Let this server use the model?").await;
    assert!(
        screen.contains("user: Please summarize the following text concisely:"),
        "{screen}"
    );
    term.keys(&["Enter"]);
    let screen = term.wait_text("Send this answer?").await;
    assert!(
        screen.contains("The model (fake:fake-model) answered MCP server `sdk`"),
        "{screen}"
    );
    assert!(screen.contains("SUMMARY-ONE"), "{screen}");
    term.keys(&["Enter"]);
    term.wait_text("turn one done").await;
    let requests = llm.requests();
    assert!(user_texts(LlmWire::OpenAi, &requests[1])[0].contains("first text"));
    let results = tool_results(LlmWire::OpenAi, &requests[2]);
    assert!(
        results.last().unwrap().1.contains("SUMMARY-ONE"),
        "{results:?}"
    );

    term.type_text("summarize two");
    term.keys(&["Enter"]);
    term.wait_for("the second consent question", |s| {
        s.matches("Let this server use the model?").count() >= 2
    })
    .await;
    term.keys(&["Down", "Down", "Enter"]);
    term.wait_text("turn two done").await;
    let requests = llm.requests();
    assert_eq!(requests.len(), 5, "no sampling request after a decline");
    let results = tool_results(LlmWire::OpenAi, &requests[4]);
    assert!(
        results
            .last()
            .unwrap()
            .1
            .contains("the user declined the sampling request of MCP server `sdk`"),
        "{results:?}"
    );

    term.type_text("summarize three");
    term.keys(&["Enter"]);
    term.wait_for("the third consent question", |s| {
        s.matches("Let this server use the model?").count() >= 3
    })
    .await;
    term.keys(&["Down", "Enter"]);
    term.wait_text("The message to send instead:").await;
    term.type_text("EDITED BY THE USER");
    term.keys(&["Enter"]);
    term.wait_for("the third answer review", |s| {
        s.matches("Send this answer?").count() >= 2
    })
    .await;
    term.keys(&["Enter"]);
    term.wait_text("turn three done").await;
    let requests = llm.requests();
    assert_eq!(
        user_texts(LlmWire::OpenAi, &requests[6]),
        vec!["EDITED BY THE USER"],
        "the model received the edited text"
    );
    let results = tool_results(LlmWire::OpenAi, &requests[7]);
    assert!(
        results.last().unwrap().1.contains("SUMMARY-THREE"),
        "{results:?}"
    );
    assert_eq!(llm.violations(), Vec::<String>::new());
}

#[tokio::test]
async fn a_form_question_is_answered_from_mcp_call_on_a_terminal() {
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let server = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool(
            "ask",
            ToolBehavior::Elicit {
                message: "Who is asking?".into(),
                schema: json!({"type": "object",
                               "properties": {"name": {"type": "string", "title": "Your name"}},
                               "required": ["name"]}),
            },
        )
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": server.mcp_json_entry() }));
    let term = Terminal::run(&home, &["mcp", "call", "fake", "ask"], &[]);
    term.wait_text("MCP server `fake` asks: Who is asking?")
        .await;
    term.keys(&["Enter"]);
    term.wait_text("Your name").await;
    term.type_text("Ada");
    term.keys(&["Enter"]);
    let screen = term.wait_text("[coyote exited 0]").await;
    assert!(
        screen.contains(r#"{"action":"accept","content":{"name":"Ada"}}"#),
        "{screen}"
    );
    assert_eq!(
        server.events().elicitations(),
        vec![("accept".to_owned(), Some(json!({"name": "Ada"})))]
    );
}

#[tokio::test]
async fn a_web_page_is_opened_through_browser_after_the_user_says_so() {
    if !tmux_available() {
        return;
    }
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let opened = home.path().join("opened.txt");
    let browser = home.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        &browser,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let url = "https://pay.example.com/checkout?id=42";
    let term = Terminal::run(
        &home,
        &[
            "mcp",
            "call",
            "everything",
            "trigger-url-elicitation",
            &format!("url={url}"),
            "message=Confirm the test payment",
        ],
        &[("BROWSER", &browser.display().to_string())],
    );
    let screen = term.wait_text("Open this page?").await;
    assert!(
        screen.contains("MCP server `everything` asks you to open a web page."),
        "{screen}"
    );
    assert!(
        screen.contains("message: Confirm the test payment"),
        "{screen}"
    );
    assert!(
        screen.contains("site: https://pay.example.com\n"),
        "{screen}"
    );
    assert!(screen.contains(&format!("URL: {url}")), "{screen}");
    term.keys(&["Enter"]);
    let screen = term.wait_text("[coyote exited 0]").await;
    assert!(
        screen.contains("User completed the URL elicitation flow"),
        "{screen}"
    );
    let mut seen = String::new();
    for _ in 0..200 {
        seen = std::fs::read_to_string(&opened).unwrap_or_default();
        if !seen.is_empty() {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    assert_eq!(seen.trim(), url);
}

#[tokio::test]
async fn simulated_server_logs_show_as_lines_in_the_repl() {
    if !tmux_available() {
        return;
    }
    let Some(entry) = everything_entry() else {
        return;
    };
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call(
                "mcp_invoke_everything",
                json!({"tool": "toggle-simulated-logging"}),
            ),
            Reply::text("LOGGING-IS-ON"),
            Reply::call(
                "mcp_invoke_everything",
                json!({"tool": "toggle-simulated-logging"}),
            ),
            Reply::text("LOGGING-IS-OFF"),
        ],
    )
    .await;
    let home = Home::new();
    let mut entry = entry;
    entry["expose"] = json!("meta");
    home.write_servers(json!({ "everything": entry }));
    write_config(&home, &llm);
    let term = Terminal::run(&home, &["--mcp-log-level", "debug", "repl"], &[]);
    term.wait_prompts(1).await;
    wait_ready(&term, "everything", 1).await;
    term.type_text("turn the logs on");
    term.keys(&["Enter"]);
    term.wait_text("LOGGING-IS-ON").await;
    // One message at once, then one every 5 s; at debug every level is shown.
    let screen = term
        .wait_for("two simulated log lines", |s| {
            s.lines()
                .filter(|l| l.starts_with("[everything] ") && l.contains("-level message"))
                .count()
                >= 2
        })
        .await;
    let answer_line = screen
        .lines()
        .find(|l| l.contains("LOGGING-IS-ON"))
        .unwrap();
    assert_eq!(
        answer_line.trim(),
        "LOGGING-IS-ON",
        "nothing inside the answer"
    );
    // The prompt is still usable: the log lines were printed above it.
    term.type_text(".mcp log everything emergency");
    term.keys(&["Enter"]);
    term.wait_text("MCP server `everything` now sends log messages at emergency and above")
        .await;
    term.type_text("turn the logs off");
    term.keys(&["Enter"]);
    term.wait_text("LOGGING-IS-OFF").await;
}
