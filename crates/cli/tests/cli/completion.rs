//! Value completion everywhere against server-everything's
//! `completable-prompt`: `coyote mcp complete`, the model's `mcp_describe_` with `complete`,
//! and `.prompt … key=<TAB>` in the REPL through tmux.

use serde_json::json;

use super::common::{Home, everything_entry};

fn everything_home() -> Option<Home> {
    let entry = everything_entry()?;
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    Some(home)
}

#[test]
fn mcp_complete_lists_values_and_sends_the_other_arguments_as_context() {
    let Some(home) = everything_home() else {
        return;
    };
    let (code, out, err) = home.run(&[
        "mcp",
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "department=Eng",
    ]);
    assert_eq!((code, out.as_str()), (0, "Engineering\n"), "{err}");
    // `name` depends on `department`: without it the server offers nothing.
    let alone = home.json(&[
        "mcp",
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "name=",
    ]);
    assert_eq!(alone["values"], json!([]), "{alone:#}");
    let dependent = home.json(&[
        "mcp",
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "name=",
        "department=Engineering",
    ]);
    assert_eq!(dependent["values"], json!(["Alice", "Bob", "Charlie"]));
    assert_eq!(dependent["argument"], "name");
    assert_eq!(dependent["server"], "everything");
}

#[test]
fn the_model_completes_through_describe() {
    let Some(home) = everything_home() else {
        return;
    };
    let args = json!({
        "kind": "prompt",
        "name": "completable-prompt",
        "complete": {"argument": "name", "value": "B", "context": {"department": "Engineering"}}
    })
    .to_string();
    let (code, out, err) = home.run(&["mcp", "meta", "mcp_describe_everything", &args]);
    assert_eq!(code, 0, "{err}");
    let body: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(body["completion"]["values"], json!(["Bob"]), "{body:#}");
}

#[test]
fn mcp_complete_needs_argument_pairs() {
    let Some(home) = everything_home() else {
        return;
    };
    let (code, _, err) = home.run(&[
        "mcp",
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "department",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ARG=PREFIX"), "{err}");
}

/// `.prompt everything completable-prompt department=Eng<TAB>` completes to `Engineering`;
/// `name=B<TAB>` after it gets `Bob` from the context; a missing argument's question offers the
/// server's values too (`E<TAB>` → `Eve` for Sales). The model receives the filled prompts.
#[tokio::test]
async fn prompt_values_complete_in_the_repl_and_in_the_missing_argument_question() {
    use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};

    use super::client_repl::wait_ready;
    use super::repl::write_config;
    use super::terminal::{Terminal, tmux_available};

    if !tmux_available() {
        return;
    }
    let Some(home) = everything_home() else {
        return;
    };
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![Reply::text("FIRST-DONE"), Reply::text("SECOND-DONE")],
    )
    .await;
    write_config(&home, &llm);
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    wait_ready(&term, "everything", 1).await;

    term.type_text(".prompt everything completable-prompt department=Eng");
    term.keys(&["Tab"]);
    term.wait_text("department=Engineering ").await;
    term.type_text("name=B");
    term.keys(&["Tab"]);
    term.wait_text("department=Engineering name=Bob").await;
    term.keys(&["Enter"]);
    term.wait_text("FIRST-DONE").await;
    let requests = llm.requests();
    let texts = user_texts(LlmWire::OpenAi, &requests[0]);
    assert!(
        texts
            .iter()
            .any(|t| t.contains("Please promote Bob to the head of the Engineering team.")),
        "{texts:?}"
    );

    term.type_text(".prompt everything completable-prompt department=Sales");
    term.keys(&["Enter"]);
    term.wait_text("name for prompt `completable-prompt`").await;
    term.type_text("E");
    term.wait_text("Eve").await;
    term.keys(&["Tab"]);
    term.keys(&["Enter"]);
    term.wait_text("SECOND-DONE").await;
    let requests = llm.requests();
    let texts = user_texts(LlmWire::OpenAi, requests.last().unwrap());
    assert!(
        texts
            .iter()
            .any(|t| t.contains("Please promote Eve to the head of the Sales team.")),
        "{texts:?}"
    );
}
