//! Completer tests against real MCP peers: the fake server in-process (prompts with arguments,
//! a server without prompts, a killed server, a closed one) and a hand-written peer that
//! completes the handshake and then never answers (the timeout path).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::Timeouts;
use coyote_test_support::{
    Capabilities, PromptArgSpec, PromptContent, PromptMessageSpec, PromptRole, PromptSpec,
    Scenario, in_process,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::*;
use crate::repl::commands::CommandName;

/// Generous server call timeout: in these tests only the completion bound may fire.
fn timeouts() -> Timeouts {
    Timeouts {
        startup: Duration::from_secs(30),
        call: Duration::from_secs(120),
    }
}

fn review_prompt() -> PromptSpec {
    PromptSpec {
        name: "review".into(),
        title: None,
        description: Some("review a file".into()),
        arguments: vec![
            PromptArgSpec {
                name: "path".into(),
                description: Some("file to review".into()),
                required: true,
            },
            PromptArgSpec {
                name: "tone".into(),
                description: None,
                required: false,
            },
            PromptArgSpec {
                name: "focus".into(),
                description: Some("what to look at".into()),
                required: false,
            },
        ],
        messages: vec![PromptMessageSpec {
            role: PromptRole::User,
            content: PromptContent::Text {
                text: "review {path}".into(),
            },
        }],
    }
}

fn summary_prompt() -> PromptSpec {
    PromptSpec {
        name: "summarize".into(),
        title: None,
        description: None,
        arguments: vec![],
        messages: vec![],
    }
}

fn prompts_scenario(name: &str) -> Scenario {
    Scenario::builder()
        .server_name(name)
        .completion(
            coyote_test_support::CompletionTarget::Prompt {
                name: "review".into(),
            },
            "path",
            &["src/main.rs", "src/a b.rs", "docs/x.md"],
        )
        .prompt(review_prompt())
        .prompt(summary_prompt())
        .build()
}

fn no_prompts_scenario() -> Scenario {
    Scenario::builder()
        .capabilities(Capabilities {
            prompts: false,
            ..Capabilities::default()
        })
        .build()
}

/// Messages a hand-written peer received.
type Seen = Arc<Mutex<Vec<Value>>>;

/// A peer that answers `initialize` (advertising prompts) and never answers anything else.
async fn attach_silent(runtime: &McpRuntime, name: &str) -> Seen {
    let (client_read, mut server_write) = tokio::io::duplex(1 << 16);
    let (server_read, client_write) = tokio::io::duplex(1 << 16);
    let seen: Seen = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(server_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let method = message["method"].as_str().unwrap_or("").to_owned();
            log.lock().unwrap().push(message.clone());
            if method == "initialize" {
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"prompts": {}},
                    "serverInfo": {"name": "silent", "version": "1"}}});
                let mut text = reply.to_string();
                text.push('\n');
                if server_write.write_all(text.as_bytes()).await.is_err() {
                    return;
                }
            }
        }
    });
    runtime
        .attach_stream(name, timeouts(), client_read, client_write)
        .await
        .expect("the silent peer completes the handshake");
    seen
}

struct Fixture {
    runtime: McpRuntime,
    silent: Seen,
    _fakes: Vec<coyote_test_support::FakeHandle>,
}

/// Servers: `everything` and `evening` (prompts), `tools` (no prompts), `silent` (never
/// answers), `gone` (killed: Failed), `stopped` (closed), `hidden` (prompts, not enabled).
async fn fixture() -> Fixture {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let mut fakes = Vec::new();
    for (name, scenario) in [
        ("everything", prompts_scenario("everything")),
        ("evening", prompts_scenario("evening")),
        ("tools", no_prompts_scenario()),
        ("gone", prompts_scenario("gone")),
        ("stopped", prompts_scenario("stopped")),
        ("hidden", prompts_scenario("hidden")),
    ] {
        let ((r, w), fake) = in_process(scenario);
        runtime.attach_stream(name, timeouts(), r, w).await.unwrap();
        fakes.push(fake);
    }
    let silent = attach_silent(&runtime, "silent").await;
    // `gone` crashes; wait until the runtime has noticed.
    fakes[3].kill().await;
    for _ in 0..200 {
        if matches!(
            runtime.state("gone"),
            Some(coyote_mcp::ServerState::Failed(_))
        ) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(matches!(
        runtime.state("gone"),
        Some(coyote_mcp::ServerState::Failed(_))
    ));
    assert!(runtime.close_server("stopped").await);
    Fixture {
        runtime,
        silent,
        _fakes: fakes,
    }
}

fn source(runtime: &McpRuntime) -> CompletionSource {
    CompletionSource::new(runtime.clone(), Arc::new(|name: &str| name != "hidden"))
        .with_rpc_timeout(Duration::from_millis(200))
}

fn values(candidates: &[Candidate]) -> Vec<&str> {
    candidates.iter().map(|c| c.value.as_str()).collect()
}

fn prompt_list_requests(fake: &coyote_test_support::FakeHandle) -> usize {
    fake.events()
        .list_requests(coyote_test_support::ListKind::Prompts)
}

#[test]
fn positions_follow_the_typed_words() {
    let at = |line: &str| position(line, line.len());
    assert_eq!(at(".pr").stage, Stage::Command);
    assert_eq!(at(".prompt ").stage, Stage::PromptServer);
    assert_eq!(at(".prompt ev").partial, "ev");
    assert_eq!(at(".prompt ev").start, 8);
    assert_eq!(
        at(".prompt everything ").stage,
        Stage::PromptName {
            server: "everything".into()
        }
    );
    assert_eq!(
        at(".prompt everything review path=\"a b\" to").stage,
        Stage::PromptArgKey {
            server: "everything".into(),
            prompt: "review".into(),
            typed_keys: BTreeSet::from(["path".to_owned()]),
        }
    );
    // A value being typed: the server's values, the other arguments as context.
    assert_eq!(
        at(".prompt everything review tone=kind path=sr").stage,
        Stage::PromptArgValue {
            server: "everything".into(),
            prompt: "review".into(),
            key: "path".into(),
            given: BTreeMap::from([("tone".to_owned(), "kind".to_owned())]),
        }
    );
    // An open quote, plain chat: nothing to complete.
    assert_eq!(
        at(".prompt everything review path=\"a b").stage,
        Stage::None
    );
    assert_eq!(at("hello wor").stage, Stage::None);
    assert_eq!(at(".list ").stage, Stage::ListTarget);
    assert_eq!(at(".mcp restart e").stage, Stage::McpServer);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stage_one_lists_enabled_ready_prompt_servers_without_any_rpc() {
    let f = fixture().await;
    let before: Vec<usize> = f._fakes.iter().map(prompt_list_requests).collect();
    let silent_before = f.silent.lock().unwrap().len();
    let src = source(&f.runtime);
    let all = src.candidates(&position(".prompt ", 8)).await;
    // Not `tools` (no prompts), `gone` (failed), `stopped` (closed), `hidden` (not enabled).
    assert_eq!(values(&all), vec!["everything", "evening", "silent"]);
    let ev = src.candidates(&position(".prompt ev", 10)).await;
    assert_eq!(values(&ev), vec!["everything", "evening"]);
    let after: Vec<usize> = f._fakes.iter().map(prompt_list_requests).collect();
    assert_eq!(before, after, "stage 1 must not list prompts");
    assert_eq!(f.silent.lock().unwrap().len(), silent_before);
    f.runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stage_two_lists_prompts_live_on_every_tab() {
    let f = fixture().await;
    let src = source(&f.runtime);
    let line = ".prompt everything ";
    let first = src.candidates(&position(line, line.len())).await;
    assert_eq!(
        first,
        vec![
            Candidate {
                value: "review".into(),
                description: Some("review a file".into()),
                append_whitespace: true,
            },
            Candidate {
                value: "summarize".into(),
                description: None,
                append_whitespace: true,
            },
        ]
    );
    let second = src.candidates(&position(".prompt everything su", 21)).await;
    assert_eq!(values(&second), vec!["summarize"]);
    // Live: one prompts/list per TAB, no cache.
    assert_eq!(prompt_list_requests(&f._fakes[0]), 2);
    f.runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stage_three_offers_argument_keys_without_typed_ones() {
    let f = fixture().await;
    let src = source(&f.runtime);
    let line = ".prompt everything review ";
    let keys = src.candidates(&position(line, line.len())).await;
    assert_eq!(
        keys,
        vec![
            Candidate {
                value: "path=".into(),
                description: Some("file to review (required)".into()),
                append_whitespace: false,
            },
            Candidate {
                value: "tone=".into(),
                description: None,
                append_whitespace: false,
            },
            Candidate {
                value: "focus=".into(),
                description: Some("what to look at".into()),
                append_whitespace: false,
            },
        ]
    );
    let line = ".prompt everything review path='x y' tone=kind ";
    let keys = src.candidates(&position(line, line.len())).await;
    assert_eq!(values(&keys), vec!["focus="]);
    let line = ".prompt everything review path=x f";
    let keys = src.candidates(&position(line, line.len())).await;
    assert_eq!(values(&keys), vec!["focus="]);
    // A prompt that does not exist (any more): empty.
    let line = ".prompt everything deleted ";
    assert!(src.candidates(&position(line, line.len())).await.is_empty());
    f.runtime.shutdown().await;
}

#[tokio::test]
async fn stage_four_offers_the_servers_values_quoted_as_typed_back() {
    let f = fixture().await;
    let src = source(&f.runtime);
    let line = ".prompt everything review tone=kind path=src";
    let found = src.candidates(&position(line, line.len())).await;
    assert_eq!(
        values(&found),
        vec!["path=src/main.rs", "path=\"src/a b.rs\""]
    );
    assert!(found.iter().all(|c| c.append_whitespace));
    assert_eq!(f._fakes[0].events().complete_requests(), 1);
    // A server without completion, or one that never answers: nothing, silently.
    let line = ".prompt silent review path=s";
    assert!(src.candidates(&position(line, line.len())).await.is_empty());
    f.runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_gives_empty_suggestions_through_the_timeout() {
    let f = fixture().await;
    let src = source(&f.runtime);
    for line in [".prompt silent ", ".prompt silent review "] {
        let got = src.candidates(&position(line, line.len())).await;
        assert!(got.is_empty(), "{line}: {got:?}");
    }
    // The timeout path fired: each listing was sent, and abandoned with
    // `notifications/cancelled` for its request id when the injected bound expired (the
    // notification is sent from a task, so the order of the lines may vary).
    fn done(seen: &[Value]) -> (Vec<&Value>, Vec<&Value>) {
        let listed = seen
            .iter()
            .filter(|m| m["method"] == "prompts/list")
            .map(|m| &m["id"])
            .collect();
        let cancelled = seen
            .iter()
            .filter(|m| m["method"] == "notifications/cancelled")
            .map(|m| &m["params"]["requestId"])
            .collect();
        (listed, cancelled)
    }
    let mut seen = Vec::new();
    for _ in 0..500 {
        seen = f.silent.lock().unwrap().clone();
        if done(&seen).1.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (mut listed, mut cancelled) = done(&seen);
    assert_eq!(listed.len(), 2, "{seen:?}");
    listed.sort_by_key(|v| v.to_string());
    cancelled.sort_by_key(|v| v.to_string());
    assert_eq!(listed, cancelled, "every listing was cancelled: {seen:?}");
    f.runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopped_failed_unknown_and_prompt_less_servers_give_empty_stages_two_and_three() {
    let f = fixture().await;
    let src = source(&f.runtime);
    let before: Vec<usize> = f._fakes.iter().map(prompt_list_requests).collect();
    for server in ["gone", "stopped", "tools", "hidden", "nosuch"] {
        for line in [
            format!(".prompt {server} "),
            format!(".prompt {server} review "),
        ] {
            let got = src.candidates(&position(&line, line.len())).await;
            assert!(got.is_empty(), "{line}: {got:?}");
        }
    }
    let after: Vec<usize> = f._fakes.iter().map(prompt_list_requests).collect();
    assert_eq!(
        before, after,
        "no RPC to servers that are not usable or not enabled"
    );
    f.runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_and_their_words_complete_from_the_table() {
    let f = fixture().await;
    let src = source(&f.runtime);
    let got = src.candidates(&position(".p", 2)).await;
    assert_eq!(values(&got), vec![".prompt"]);
    assert_eq!(
        got[0].description.as_deref(),
        Some(CommandName::Prompt.spec().description)
    );
    let got = src.candidates(&position(".", 1)).await;
    assert_eq!(got.len(), REPL_COMMANDS.len());
    let got = src.candidates(&position(".list p", 7)).await;
    assert_eq!(values(&got), vec!["prompts"]);
    let got = src.candidates(&position(".mcp r", 6)).await;
    assert_eq!(values(&got), vec!["restart"]);
    let got = src.candidates(&position(".mcp restart s", 14)).await;
    assert_eq!(values(&got), vec!["stopped", "silent"]);
    f.runtime.shutdown().await;
}

#[test]
fn the_reedline_adapter_places_suggestions_on_the_line() {
    // Like the REPL: a multi-thread runtime, and the completer called from a thread outside it.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let runtime = rt.block_on(async {
        let runtime = McpRuntime::new(RuntimeOptions::default());
        let ((r, w), _fake) = in_process(prompts_scenario("everything"));
        runtime
            .attach_stream("everything", timeouts(), r, w)
            .await
            .unwrap();
        runtime
    });
    let completer = ReplCompleter::new(source(&runtime), rt.handle().clone());
    let got = completer.suggestions(".prompt ev", 10);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].value, "everything");
    assert_eq!(got[0].span, Span::new(8, 10));
    assert!(got[0].append_whitespace);
    let line = ".prompt everything review ";
    let got = completer.suggestions(line, line.len());
    assert_eq!(got[0].value, "path=");
    assert_eq!(got[0].span, Span::new(line.len(), line.len()));
    assert!(
        !got[0].append_whitespace,
        "key= leaves the cursor at the value"
    );
    rt.block_on(runtime.shutdown());
}

/// `.role`, `.macro`, `.session load|save` complete names from the config dir;
/// `.mcp enable|disable` complete servers like `.mcp restart`.
#[test]
fn role_macro_and_session_names_complete_from_the_config_dir() {
    let at = |line: &str| position(line, line.len());
    assert_eq!(at(".role ").stage, Stage::Definition(DefinitionDir::Roles));
    assert_eq!(
        at(".macro re").stage,
        Stage::Definition(DefinitionDir::Macros)
    );
    assert_eq!(at(".session ").stage, Stage::SessionSubcommand);
    assert_eq!(
        at(".session load w").stage,
        Stage::Definition(DefinitionDir::Sessions)
    );
    assert_eq!(at(".mcp enable ").stage, Stage::McpServer);
    assert_eq!(at(".mcp disable g").stage, Stage::McpServer);
    assert_eq!(at(".skills e").stage, Stage::McpServer);
    assert_eq!(at(".role coder ").stage, Stage::None);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let paths = coyote_config::ConfigPaths::under(dir.path());
    for (file, text) in [
        (
            "roles/coder.md",
            "---\ndescription: writes code\n---\nCode.",
        ),
        ("roles/critic.md", "Criticise."),
        ("macros/review.yaml", "steps: [hi]\n"),
        ("sessions/work.yaml", "version: 1\nconversation: {}\n"),
    ] {
        let path = paths.config_dir().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let runtime = McpRuntime::new(coyote_mcp::RuntimeOptions::default());
    let configured = source(&runtime).with_config(paths);
    let complete = |line: &str| rt.block_on(configured.candidates(&at(line)));
    let roles = complete(".role c");
    assert_eq!(values(&roles), vec!["coder", "critic"]);
    assert_eq!(roles[0].description.as_deref(), Some("writes code"));
    assert_eq!(values(&complete(".macro ")), vec!["review"]);
    assert_eq!(values(&complete(".session l")), vec!["load", "list"]);
    assert_eq!(values(&complete(".session load ")), vec!["work"]);
    // Without a config dir there is nothing to offer.
    let bare = source(&runtime);
    assert!(rt.block_on(bare.candidates(&at(".role "))).is_empty());
}

/// One keypress is bounded as a whole: when reedline asks twice for the same line (menu and
/// hint), the second answer is the first one again — one listing, not one per call (before:
/// a Tab against a slow `prompts/list` froze the editor twice the bound).
#[test]
fn one_keypress_asks_the_server_once_however_often_reedline_asks() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (runtime, seen) = rt.block_on(async {
        let runtime = McpRuntime::new(RuntimeOptions::default());
        let seen = attach_silent(&runtime, "silent").await;
        (runtime, seen)
    });
    let mut completer = ReplCompleter::new(source(&runtime), rt.handle().clone());
    let line = ".prompt silent ";
    for _ in 0..3 {
        assert!(completer.suggestions_once(line, line.len()).is_empty());
    }
    let listings = |seen: &Seen| {
        seen.lock()
            .unwrap()
            .iter()
            .filter(|m| m["method"] == "prompts/list")
            .count()
    };
    assert_eq!(listings(&seen), 1);
    // Another line is another keypress.
    let line = ".prompt silent r";
    assert!(completer.suggestions_once(line, line.len()).is_empty());
    assert_eq!(listings(&seen), 2);
    rt.block_on(runtime.shutdown());
}
