//! Tab right after fast input (Tab latency): keys sent in one burst and a bracketed
//! paste, each followed at once by Tab, still complete; a bracketed paste is inserted whole —
//! a two-line paste is one message, sent only by the Enter that follows it (unbracketed, the
//! first line was sent alone). The latency itself is measured by `scripts/bench tab`, not here
//! (no timed assertions).

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};

use super::common::Home;
use super::repl::write_config;
use super::terminal::{Terminal, tmux_available};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tab_right_after_a_burst_or_a_paste_completes_and_a_paste_is_one_message() {
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("PASTE-DONE")]).await;
    write_config(&home, &llm);
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;

    // A burst of keys (one send-keys: every key in one read) and Tab at once.
    term.type_text(".mcp rest");
    term.keys(&["Tab"]);
    term.wait_for("burst then Tab", |s| {
        s.lines().any(|l| l.trim_end() == "coyote> .mcp restart")
    })
    .await;
    term.keys(&["C-c"]);
    term.wait_prompts(2).await;

    // A bracketed paste (the REPL asks the terminal for it) and Tab at once.
    term.tmux(&["set-buffer", "-b", "p", ".session lo"]);
    term.tmux(&["paste-buffer", "-p", "-b", "p", "-t", "t"]);
    term.keys(&["Tab"]);
    term.wait_for("paste then Tab", |s| {
        s.lines().any(|l| l.trim_end() == "coyote> .session load")
    })
    .await;
    term.keys(&["C-c"]);
    term.wait_prompts(3).await;

    // Two pasted lines stay in the editor until Enter, then go as one message.
    term.tmux(&[
        "set-buffer",
        "-b",
        "p",
        "first pasted line\nsecond pasted line",
    ]);
    term.tmux(&["paste-buffer", "-p", "-b", "p", "-t", "t"]);
    term.wait_text("second pasted line").await;
    assert!(
        llm.requests().is_empty(),
        "a pasted line was sent before Enter"
    );
    term.keys(&["Enter"]);
    term.wait_text("PASTE-DONE").await;
    let requests = llm.requests();
    assert_eq!(requests.len(), 1);
    let texts = user_texts(LlmWire::OpenAi, &requests[0]);
    assert!(
        texts
            .iter()
            .any(|t| t.contains("first pasted line\nsecond pasted line")),
        "{texts:?}"
    );
}
