//! Rendered Markdown in the REPL, through a real terminal: tmux runs
//! `coyote repl` against a streaming fake model that sends the first paragraph, pauses 2 s,
//! then the rest — a heading, bold text, a link, a table and a fenced code block.

use std::time::Duration;

use coyote_test_support::fake_llm::paced::{PacedLlm, Piece};

use super::common::Home;
use super::terminal::{Terminal, tmux_available};

const REST: &str = "# Rendered Title\n\nSome **bold words** and a [link](https://example.com/x).\n\n\
| column a | column b |\n|----------|----------|\n| one | two |\n\n\
```rust\nfn main() { println!(\"hi\"); }\n```\n\nAll done.\n";

fn answer() -> Vec<Piece> {
    vec![
        Piece::Text("Intro paragraph ".into()),
        Piece::Text("number one.\n\n".into()),
        Piece::Pause(Duration::from_secs(2)),
        Piece::Text(REST.into()),
    ]
}

async fn setup() -> (Home, PacedLlm) {
    let llm = PacedLlm::start(vec![answer()]).await.unwrap();
    let home = Home::new();
    home.write_servers(serde_json::json!({}));
    let config = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), config).unwrap();
    (home, llm)
}

/// The answer as shown: the first paragraph during the pause, then every block rendered.
async fn ask(term: &Terminal) -> String {
    term.wait_prompts(1).await;
    term.type_text("show me markdown");
    term.keys(&["Enter"]);
    let early = term.wait_text("Intro paragraph number one.").await;
    // The model is pausing now: the first paragraph is on screen, nothing after it yet.
    assert!(!early.contains("Rendered Title"), "{early}");
    term.wait_text("All done.").await;
    term.wait_prompts(2).await
}

fn assert_rendered(screen: &str) {
    for syntax in ["# Rendered", "**", "```", "|----", "[link]", "| one"] {
        assert!(
            !screen.contains(syntax),
            "{syntax:?} is on screen:\n{screen}"
        );
    }
    assert!(screen.contains("Rendered Title"), "{screen}");
    assert!(
        screen.contains("Some bold words and a link (https://example.com/x)."),
        "{screen}"
    );
    let row = screen
        .lines()
        .find(|l| l.contains("one") && l.contains("two"))
        .unwrap_or_else(|| panic!("no table row:\n{screen}"));
    assert!(row.starts_with('│') && row.contains('┆'), "{row}");
    assert!(
        screen.contains("fn main() { println!(\"hi\"); }"),
        "{screen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repl_renders_markdown_as_blocks_complete() {
    if !tmux_available() {
        return;
    }
    let (home, llm) = setup().await;
    let term = Terminal::start(&home, &[]);
    let screen = ask(&term).await;
    assert_rendered(&screen);
    let styled = term.screen_with_escapes();
    assert!(
        styled.contains("\u{1b}[1m"),
        "no bold on screen:\n{styled:?}"
    );
    assert_eq!(llm.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_color_renders_the_same_answer_without_any_escape_sequence() {
    if !tmux_available() {
        return;
    }
    let (home, _llm) = setup().await;
    let term = Terminal::start(&home, &[("NO_COLOR", "1")]);
    let screen = ask(&term).await;
    assert_rendered(&screen);
    let captured = term.screen_with_escapes();
    assert!(
        !captured.contains('\u{1b}'),
        "an escape sequence under NO_COLOR:\n{captured:?}"
    );
}
