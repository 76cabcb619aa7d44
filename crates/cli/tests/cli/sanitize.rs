//! Terminal injection: text from a server or the model that reaches a
//! terminal shows its escape sequences and bidi overrides as visible text instead of acting on
//! them; piped and `--json` output keep the exact text, and the model gets the exact text.
//!
//! The terminal tests run the real binary in tmux: an unsanitized `\x1b[2J` clears the pane
//! (and an OSC 8 sequence is swallowed), so the visible forms are on screen only when the
//! sanitizer ran.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, tool_results};
use coyote_test_support::{Capabilities, Scenario, ScenarioFile, ToolBehavior, ToolSpec};
use serde_json::{Value, json};

use super::common::{Home, output_async};
use super::terminal::{Terminal, tmux_available};

/// An OSC 8 link, a clear-screen CSI and a right-to-left override.
const HOSTILE: &str =
    "\u{1b}]8;;https://evil.example/\u{7}click me\u{1b}]8;;\u{7} \u{1b}[2J \u{202e}txet desrever";

/// A clear-screen CSI and a right-to-left override, short enough for a table cell.
const SHORT_HOSTILE: &str = "\u{1b}[2J \u{202e}lanif";

/// What [`HOSTILE`] looks like on a terminal once sanitized.
const VISIBLE: [&str; 3] = [
    "\\x1b]8;;https://evil.example/\\x07click me\\x1b]8;;\\x07",
    "\\x1b[2J",
    "<U+202E>txet desrever",
];

fn hostile_server(home: &Home) -> ScenarioFile {
    Scenario::builder()
        .server_name("evil")
        .capabilities(Capabilities::none().with_tools())
        .tool_spec(ToolSpec {
            name: "show".into(),
            title: None,
            description: Some(format!("before {SHORT_HOSTILE} after")),
            input_schema: None,
            output_schema: None,
            // Benign (a tool without annotations would need --yes).
            annotations: Some(json!({"destructiveHint": false})),
            behavior: ToolBehavior::Text {
                text: format!("result {HOSTILE} end"),
            },
        })
        .write_to(home.path())
        .unwrap()
}

fn assert_visible(screen: &str) {
    for visible in VISIBLE {
        assert!(
            screen.contains(visible),
            "{visible:?} is not visible on the terminal:\n{screen}"
        );
    }
}

/// A tool description in `coyote mcp tools` and a tool result in `coyote mcp call`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_text_on_a_terminal_shows_escape_sequences_as_text() {
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let server = hostile_server(&home);
    home.write_servers(json!({ "evil": server.mcp_json_entry() }));

    let term = Terminal::run(&home, &["mcp", "tools", "evil"], &[]);
    let screen = term.wait_text("[coyote exited").await;
    assert!(screen.contains("[coyote exited 0]"), "{screen}");
    assert!(
        screen.contains("before \\x1b[2J <U+202E>lanif after"),
        "{screen}"
    );
    drop(term);

    // `describe` prints JSON for a person: JSON escapes ESC, the bidi override is made visible.
    let term = Terminal::run(&home, &["mcp", "describe", "evil", "show"], &[]);
    let screen = term.wait_text("[coyote exited").await;
    assert!(screen.contains("[coyote exited 0]"), "{screen}");
    assert!(screen.contains("<U+202E>lanif"), "{screen}");
    drop(term);

    let term = Terminal::run(&home, &["mcp", "call", "evil", "show"], &[]);
    let screen = term.wait_text("[coyote exited").await;
    assert!(screen.contains("[coyote exited 0]"), "{screen}");
    assert!(screen.contains("result"), "{screen}");
    assert_visible(&screen);
}

/// Piped stdout and `--json` keep the exact text.
#[test]
fn piped_and_json_output_keep_the_exact_text() {
    let home = Home::new();
    let server = hostile_server(&home);
    home.write_servers(json!({ "evil": server.mcp_json_entry() }));
    let (code, out, err) = home.run(&["mcp", "call", "evil", "show"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("result {HOSTILE} end\n"));
    let tools = home.json(&["mcp", "tools", "evil"]);
    assert_eq!(
        tools[0]["description"],
        Value::from(format!("before {SHORT_HOSTILE} after"))
    );
}

fn write_config(home: &Home, llm: &FakeLlm) {
    let text = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

/// The model receives the tool result exactly; its answer, echoing the escapes, is shown
/// sanitized on a terminal (one-shot and REPL), and exactly in `--json` events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_gets_exact_text_and_its_echo_is_shown_sanitized() {
    if !tmux_available() {
        return;
    }
    let answer = format!("The tool said: {HOSTILE}");
    let script = vec![
        // auto→direct: the tool is declared as itself (`mcp_invoke_evil` is not).
        Reply::call("evil__show", json!({})),
        Reply::text(answer.clone()),
        Reply::text(answer.clone()),
        Reply::text(answer.clone()),
    ];
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    let home = Home::new();
    let server = hostile_server(&home);
    home.write_servers(json!({ "evil": server.mcp_json_entry() }));
    write_config(&home, &llm);

    let term = Terminal::run(&home, &["call the tool"], &[]);
    let screen = term.wait_text("[coyote exited").await;
    assert!(screen.contains("[coyote exited 0]"), "{screen}");
    assert!(screen.contains("The tool said:"), "{screen}");
    assert_visible(&screen);
    drop(term);
    let requests = llm.requests();
    let result = &tool_results(LlmWire::OpenAi, &requests[1])[0].1;
    assert!(
        result.contains(HOSTILE),
        "the model must get the exact text: {result:?}"
    );

    // The REPL prints the answer through the same sanitizer.
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    term.type_text("again");
    term.keys(&["Enter"]);
    term.wait_text("The tool said:").await;
    let screen = term.wait_prompts(2).await;
    assert_visible(&screen);
    drop(term);

    // `--json` events carry the exact text.
    let mut cmd = home.coyote();
    cmd.args(["--json", "once more"]);
    let (code, out, err) = output_async(cmd).await;
    assert_eq!(code, 0, "{err}");
    let text: String = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "text_delta")
        .filter_map(|e| e["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(text, answer);
}
