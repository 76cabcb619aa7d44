//! Scoping through the real binary: a session saved by one `coyote` process and continued by
//! the next gives the model the same history (checked in the fake model's
//! captured request); roles scope a one-shot turn; a corrupt session file or a malformed role
//! is reported with the file, the key and the fix, and never overwritten.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};

use super::common::Home;

/// config.yaml pointing `fake:fake-model` at `llm`.
fn write_config(home: &Home, llm: &FakeLlm) {
    let text = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

fn write(home: &Home, file: &str, text: &str) -> std::path::PathBuf {
    let path = home.config_dir().join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// The system prompt of an OpenAI request (first message with role system).
fn system_text(body: &serde_json::Value) -> Option<String> {
    body["messages"]
        .as_array()?
        .iter()
        .find(|m| m["role"] == "system")
        .and_then(|m| m["content"].as_str())
        .map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_continues_across_processes_with_the_same_history() {
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![Reply::text("first answer"), Reply::text("second answer")],
    )
    .await;
    let home = Home::new();
    write_config(&home, &llm);
    write(
        &home,
        "roles/terse.md",
        "---\ndescription: short\n---\nAnswer tersely.",
    );

    let (code, out, err) = home
        .run_async(&["--session", "work", "-r", "terse", "first question"])
        .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "first answer\n");
    let file = home.config_dir().join("sessions/work.yaml");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    // A new process: the session brings back the history, the role and its system prompt.
    let (code, out, err) = home
        .run_async(&["--session", "work", "second question"])
        .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "second answer\n");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        user_texts(LlmWire::OpenAi, &requests[1]),
        vec!["first question", "second question"]
    );
    assert_eq!(requests[1]["messages"][2]["role"], "assistant");
    assert_eq!(requests[1]["messages"][2]["content"], "first answer");
    assert_eq!(
        system_text(&requests[0]).as_deref(),
        Some("Answer tersely.")
    );
    assert_eq!(
        system_text(&requests[1]).as_deref(),
        Some("Answer tersely.")
    );
    assert_eq!(llm.violations(), Vec::<String>::new());
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("role: terse"), "{saved}");
    assert!(saved.contains("second answer"), "{saved}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_session_or_a_malformed_role_is_a_usage_error_and_nothing_is_overwritten() {
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![]).await;
    let home = Home::new();
    write_config(&home, &llm);
    let garbage = "version: 1\nconversation: {messages: 7\n";
    let session = write(&home, "sessions/broken.yaml", garbage);
    let role = write(
        &home,
        "roles/bad.md",
        "---\nenabled_mcp_servers: {a: 1}\n---\nx",
    );

    let (code, _, err) = home.run_async(&["--session", "broken", "hi"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{} is not a readable session file",
            session.display()
        )),
        "{err}"
    );
    assert!(err.contains("it was left untouched"), "{err}");
    assert_eq!(std::fs::read_to_string(&session).unwrap(), garbage);

    let (code, _, err) = home.run_async(&["-r", "bad", "hi"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{} (key `enabled_mcp_servers`): expected `all`, a list of server names or an empty \
             list; write `enabled_mcp_servers: [github, fs]`",
            role.display()
        )),
        "{err}"
    );
    assert!(llm.requests().is_empty());
}

/// A role's `enabled_mcp_servers` decides what one-shot starts; a name no mcp.json defines is
/// warned about with the layer it came from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_selection_naming_an_unknown_server_is_warned_about() {
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("ok")]).await;
    let home = Home::new();
    write_config(&home, &llm);
    write(
        &home,
        "roles/r.md",
        "---\nenabled_mcp_servers: [nope]\n---\nsys",
    );
    let (code, out, err) = home.run_async(&["-r", "r", "hi"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "ok\n");
    assert!(
        err.contains(
            "coyote: warning: `enabled_mcp_servers` (from the role) names \"nope\", which no \
             mcp.json defines; ignored"
        ),
        "{err}"
    );
    let requests = llm.requests();
    assert_eq!(requests[0]["tools"].as_array().map_or(0, Vec::len), 0);
}
