//! Elicitation form widgets in the REPL, through a real terminal: a
//! server asks a form with a field of every type; Enter on each optional field leaves it out of
//! the answer (every widget offers "skip"), and Esc in the middle of the form cancels it.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply};
use coyote_test_support::{Capabilities, Scenario, ToolBehavior};
use serde_json::json;

use super::common::Home;
use super::terminal::{Terminal, tmux_available};

/// A required text field and an optional field of every other type, without defaults.
fn schema() -> serde_json::Value {
    json!({"type": "object", "properties": {
        "name": {"type": "string", "title": "Name"},
        "note": {"type": "string", "title": "Note"},
        "ratio": {"type": "number", "title": "Ratio"},
        "count": {"type": "integer", "title": "Count"},
        "flag": {"type": "boolean", "title": "Flag"},
        "color": {"type": "string", "title": "Color", "enum": ["red", "green"]},
        "size": {"type": "string", "title": "Size",
                 "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "tags": {"type": "array", "title": "Tags",
                 "items": {"type": "string", "enum": ["x", "y"]}}
    }, "required": ["name"]})
}

const OPTIONAL: [&str; 7] = [
    "Note (optional)",
    "Ratio (optional)",
    "Count (optional)",
    "Flag (optional)",
    "Color (optional)",
    "Size (optional)",
    "Tags (optional)",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enter_skips_every_optional_field_and_esc_cancels_the_form() {
    if !tmux_available() {
        return;
    }
    // auto→direct: the tool is declared as itself (`mcp_invoke_forms` is not).
    let ask = json!({});
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call("forms__form", ask.clone()),
            Reply::text("first form done"),
            Reply::call("forms__form", ask),
            Reply::text("second form done"),
        ],
    )
    .await;
    let home = Home::new();
    let server = Scenario::builder()
        .server_name("forms")
        .capabilities(Capabilities::none().with_tools())
        // Benign: a tool without annotations would ask for approval first.
        .safe_tool(
            "form",
            ToolBehavior::Elicit {
                message: "Fill in every type".into(),
                schema: schema(),
            },
        )
        .event_log(&home.path().join("events.jsonl"))
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "forms": server.mcp_json_entry() }));
    let config = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), config).unwrap();
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;

    term.type_text("fill it");
    term.keys(&["Enter"]);
    term.wait_text("asks: Fill in every type").await;
    term.keys(&["Enter"]); // answer (fill in the form)
    term.wait_text("Name").await;
    term.type_text("Zed");
    term.keys(&["Enter"]);
    for label in OPTIONAL {
        let screen = term.wait_text(&format!("? {label}")).await;
        assert!(
            screen.contains("skip"),
            "{label} does not offer skip:\n{screen}"
        );
        term.keys(&["Enter"]);
    }
    term.wait_text("first form done").await;
    let screen = term.wait_prompts(2).await;
    // Each skipped field is shown as such once answered.
    for label in OPTIONAL {
        assert!(
            screen.contains(&format!("> {label} skip")),
            "{label}:\n{screen}"
        );
    }

    // Esc in the middle of the form cancels it.
    term.type_text("again");
    term.keys(&["Enter"]);
    term.wait_for("the second form", |s| {
        s.matches("asks: Fill in every type").count() >= 2
    })
    .await;
    term.keys(&["Enter"]);
    term.wait_text("? Name").await;
    term.type_text("Amy");
    term.keys(&["Enter"]);
    term.wait_text("? Note (optional)").await;
    term.keys(&["Escape"]);
    term.wait_text("second form done").await;
    term.wait_prompts(3).await;

    assert_eq!(
        server.events().elicitations(),
        vec![
            ("accept".to_owned(), Some(json!({"name": "Zed"}))),
            ("cancel".to_owned(), None),
        ]
    );
}
