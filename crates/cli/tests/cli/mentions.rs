//! `@SERVER:URI` mentions against server-everything, with a fake
//! OpenAI-compatible model that records its requests: in one-shot mode and in the REPL
//! (through tmux, with the mention completed live), the last user message of the request holds
//! the resource text labelled with its URI, followed by the typed words; the request has no
//! added tool call or message; an e-mail address is left alone; an unreadable mention is an
//! error before anything is sent.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};
use serde_json::{Value, json};

use super::common::{Home, chat_async, everything_entry, write_fake_model_config};

const FEATURES: &str = "demo://resource/static/document/features.md";
const LABEL: &str =
    "<resource server=\"everything\" uri=\"demo://resource/static/document/features.md\">\n";

fn everything_home() -> Option<Home> {
    let entry = everything_entry()?;
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    Some(home)
}

/// The request holds exactly the user's message (besides the system prompt): no tool call,
/// no tool result, no synthesized turn.
fn assert_one_user_message(request: &Value) {
    let messages = request["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["role"].as_str())
        .filter(|r| *r != "system")
        .collect();
    assert_eq!(roles, ["user"], "{messages:#?}");
    assert!(messages.iter().all(|m| m.get("tool_calls").is_none()));
}

/// The last user text: the labelled features document, then `rest`.
fn assert_labelled_features_then(request: &Value, rest: &str) {
    let texts = user_texts(LlmWire::OpenAi, request);
    let last = texts.last().unwrap();
    assert!(last.starts_with(LABEL), "{last}");
    assert!(
        last.contains("# Everything Server - Features"),
        "the resource text is inside: {last}"
    );
    assert!(last.ends_with(&format!("</resource>{rest}")), "{last}");
}

#[tokio::test]
async fn one_shot_expands_a_mention_and_leaves_an_email_address_alone() {
    let Some(home) = everything_home() else {
        return;
    };
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("SUMMARY")]).await;
    write_fake_model_config(&home, &llm.api_base(), "");
    let message = format!("@everything:{FEATURES} summarize for alice@everything.example");
    let (code, out, err) = chat_async(&home, &[&message]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("SUMMARY"), "{out}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 1);
    assert_one_user_message(&requests[0]);
    assert_labelled_features_then(&requests[0], " summarize for alice@everything.example");
}

#[tokio::test]
async fn one_shot_stops_at_an_unreadable_mention_before_sending() {
    let Some(home) = everything_home() else {
        return;
    };
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("NEVER")]).await;
    write_fake_model_config(&home, &llm.api_base(), "");
    let missing = "@everything:demo://resource/static/document/no-such-file.md";
    let (code, out, err) = chat_async(&home, &[&format!("{missing} summarize")]).await;
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.contains(&format!("cannot read `{missing}`")) && err.contains("nothing was sent"),
        "{err}"
    );
    assert!(llm.requests().is_empty());
}

/// `@ev<TAB>` → `@everything:`, `…/feat<TAB>` → the features document; Enter sends it
/// expanded.
#[tokio::test]
async fn the_repl_completes_and_expands_a_mention() {
    use super::client_repl::wait_ready;
    use super::repl::write_config;
    use super::terminal::{Terminal, tmux_available};

    if !tmux_available() {
        return;
    }
    let Some(home) = everything_home() else {
        return;
    };
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("MENTION-DONE")]).await;
    write_config(&home, &llm);
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    wait_ready(&term, "everything", 1).await;

    term.type_text("@ev");
    term.keys(&["Tab"]);
    term.wait_text("@everything:").await;
    term.type_text("demo://resource/static/document/feat");
    term.keys(&["Tab"]);
    term.wait_text(&format!("@everything:{FEATURES} ")).await;
    term.type_text("summarize, then mail bob@example.com");
    term.keys(&["Enter"]);
    term.wait_text("MENTION-DONE").await;
    let requests = llm.requests();
    assert_eq!(requests.len(), 1);
    assert_one_user_message(&requests[0]);
    assert_labelled_features_then(&requests[0], " summarize, then mail bob@example.com");
}

/// Piped stdin beside TEXT is material: its mentions are sent as they are (never read); piped
/// stdin alone is the user's message and its mentions are read.
#[tokio::test]
async fn one_shot_reads_mentions_in_the_message_but_not_in_piped_material() {
    use super::common::output_async;

    let Some(home) = everything_home() else {
        return;
    };
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![Reply::text("ONE"), Reply::text("TWO")],
    )
    .await;
    write_fake_model_config(&home, &llm.api_base(), "");
    let material = "quoted: @everything:demo://resource/static/document/no-such-file.md";
    let mut cmd = home.coyote();
    cmd.arg(format!("summarize @everything:{FEATURES}"))
        .env("FAKE_LLM_KEY", "sk-fake")
        .write_stdin(format!("{material}\n"));
    let (code, _, err) = output_async(cmd).await;
    assert_eq!(code, 0, "{err}");
    let texts = user_texts(LlmWire::OpenAi, &llm.requests()[0]);
    let last = texts.last().unwrap();
    assert!(last.starts_with(&format!("summarize {LABEL}")), "{last}");
    assert!(
        last.ends_with(&format!("</resource>\n\n<stdin>\n{material}\n</stdin>")),
        "{last}"
    );

    let mut cmd = home.coyote();
    cmd.env("FAKE_LLM_KEY", "sk-fake")
        .write_stdin(format!("@everything:{FEATURES} summarize\n"));
    let (code, _, err) = output_async(cmd).await;
    assert_eq!(code, 0, "{err}");
    assert_labelled_features_then(&llm.requests()[1], " summarize");
}
