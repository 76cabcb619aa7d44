//! A restarted HTTP server at the level of the real `coyote` binary (the library-level tests are
//! `coyote-mcp`'s `host::restart::*`): a streamable HTTP server restarted or killed while a
//! REPL or a `coyote mcp` command is using it.
//! - 404 on the old session (test-support's fake HTTP server, as rmcp servers answer): in the
//!   REPL `.list tools` works again at once (the read is resent in a new session), and a tool
//!   call running when the server restarts reaches the model as "restarted … not retried" —
//!   the new server never runs it. (Before the fix it said the response stream closed and
//!   blamed a response over 80 MiB.)
//! - 400 on the old session (server-everything's answer): `.list tools` fails at once with the
//!   server's words — the prompt comes back long before any timeout — and `.mcp restart`
//!   recovers.
//! - killed mid-call: `coyote mcp call` fails saying the connection closed, not "timed out",
//!   and without the stdio hint about responses over 80 MiB.

use std::time::Duration;

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, tool_results};
use coyote_test_support::peers::{ServerEverythingHttp, require};
use coyote_test_support::{FakeHttpServer, Scenario, ToolBehavior};
use serde_json::json;

use crate::cli::common::{Home, output_async, write_fake_model_config};
use crate::cli::terminal::{Terminal, tmux_available};

/// The fake model's key, as `write_fake_model_config` names it.
const KEY: (&str, &str) = ("FAKE_LLM_KEY", "sk-fake");

fn port_of(url: &str) -> u16 {
    url.trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a loopback URL with a port")
}

/// The fake model of `home` (OpenAI wire) answering with `replies`.
async fn model(home: &Home, replies: Vec<Reply>) -> FakeLlm {
    let llm = FakeLlm::start(LlmWire::OpenAi, replies).await;
    write_fake_model_config(home, &llm.api_base(), "");
    llm
}

/// Types `.mcp status` until `server` shows as ready; returns the prompts seen so far.
async fn wait_ready(term: &Terminal, server: &str) -> usize {
    wait_ready_from(term, server, 1).await
}

/// [`wait_ready`] when `prompts` prompts are on the screen already.
async fn wait_ready_from(term: &Terminal, server: &str, mut prompts: usize) -> usize {
    loop {
        let (now, screen) = command(term, prompts, ".mcp status").await;
        prompts = now;
        if screen
            .lines()
            .any(|l| l.contains(server) && l.contains("ready"))
        {
            return prompts;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Types `line` and waits for the prompt after it; returns the new prompt count and what the
/// screen shows from that line on.
async fn command(term: &Terminal, prompts: usize, line: &str) -> (usize, String) {
    term.type_text(line);
    term.keys(&["Enter"]);
    let screen = term.wait_prompts(prompts + 1).await;
    let echoed = format!("coyote> {line}");
    let from = screen.rfind(&echoed).unwrap_or(0);
    (prompts + 1, screen[from..].to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_404_the_repl_lists_again_and_the_model_hears_the_call_was_not_retried() {
    if !tmux_available() {
        return;
    }
    let slow = ToolBehavior::Slow {
        duration_ms: 30_000,
        progress_every_ms: Some(500),
    };
    let scenario = Scenario::builder()
        .tool("echo", ToolBehavior::Echo)
        .tool("slow", slow)
        .build();
    let first = FakeHttpServer::start(scenario.clone()).await.unwrap();
    let url = first.url().to_owned();
    let port = port_of(&url);
    let home = Home::new();
    home.write_servers(json!({ "web": { "url": url, "approve": "never" } }));
    let llm = model(
        &home,
        vec![
            Reply::call("web__echo", json!({"text": "once"})),
            Reply::text("first call done"),
            Reply::call("web__slow", json!({})),
            Reply::text("second call reported"),
        ],
    )
    .await;
    let term = Terminal::start(&home, &[KEY]);
    term.wait_prompts(1).await;
    let prompts = wait_ready(&term, "web").await;

    // A restart between two reads: the second `.list tools` is resent in a new session.
    first.shutdown();
    drop(first);
    let second = FakeHttpServer::start_on(scenario.clone(), port)
        .await
        .unwrap();
    let (prompts, screen) = command(&term, prompts, ".list tools").await;
    assert!(
        screen.contains("echo"),
        "listed in a new session:\n{screen}"
    );
    assert!(!screen.contains("rejected"), "{screen}");

    // A call in the session that works, then a restart before the next call.
    let (prompts, screen) = command(&term, prompts, "echo once").await;
    assert!(screen.contains("first call done"), "{screen}");
    assert_eq!(second.handle().events().tool_calls("echo"), 1);
    term.type_text("run the slow one");
    term.keys(&["Enter"]);
    // The server restarts while the call runs on it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while second.handle().events().tool_calls("slow") < 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the slow call started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    second.shutdown();
    drop(second);
    let third = FakeHttpServer::start_on(scenario, port).await.unwrap();
    let screen = term.wait_prompts(prompts + 1).await;
    assert!(screen.contains("second call reported"), "{screen}");

    let requests = llm.requests();
    assert_eq!(requests.len(), 4, "{requests:#?}");
    let results = tool_results(LlmWire::OpenAi, &requests[3]);
    let (_, last) = results.last().expect("the second call's result");
    assert!(
        last.contains("restarted") && last.contains("not retried") && !last.contains("MiB"),
        "the model hears the call was not run again: {last}"
    );
    assert_eq!(
        third.handle().events().tool_calls("slow"),
        0,
        "the call is never run twice"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_400_the_repl_says_so_at_once_and_mcp_restart_recovers() {
    if !tmux_available() {
        return;
    }
    let started = tokio::task::spawn_blocking(ServerEverythingHttp::start)
        .await
        .unwrap();
    let Some(mut server) = require(started) else {
        return;
    };
    let home = Home::new();
    // A call timeout far beyond the screen waits: a hang fails the test instead of passing slowly.
    home.write_servers(json!({ "everything": {
        "url": server.url(), "toolTimeoutSec": 600, "startupTimeoutSec": 120
    }}));
    let _llm = model(&home, Vec::new()).await;
    let term = Terminal::start(&home, &[KEY]);
    term.wait_prompts(1).await;
    let prompts = wait_ready(&term, "everything").await;

    let server = tokio::task::spawn_blocking(move || server.restart().map(|()| server))
        .await
        .unwrap()
        .expect("server-everything restarted on its port");
    let (prompts, screen) = command(&term, prompts, ".list tools").await;
    assert!(
        screen.contains("rejected the request")
            && screen.contains("400")
            && screen.contains("No valid session ID"),
        "the server's answer, at once:\n{screen}"
    );

    let (prompts, _) = command(&term, prompts, ".mcp restart everything").await;
    let prompts = wait_ready_from(&term, "everything", prompts).await;
    let (_, screen) = command(&term, prompts, ".list tools").await;
    assert!(screen.contains("echo"), "{screen}");
    assert!(!screen.contains("No valid session ID"), "{screen}");
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_call_ends_the_command_saying_the_connection_closed() {
    let started = tokio::task::spawn_blocking(ServerEverythingHttp::start)
        .await
        .unwrap();
    let Some(mut server) = require(started) else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": { "url": server.url(), "toolTimeoutSec": 600 } }));
    let mut cmd = home.coyote();
    cmd.args([
        "mcp",
        "call",
        "everything",
        "trigger-long-running-operation",
        "duration=40",
        "steps=40",
    ]);
    let call = tokio::spawn(output_async(cmd));
    // Killed once the call is running: its first progress notifications have been sent.
    tokio::time::sleep(Duration::from_secs(3)).await;
    tokio::task::spawn_blocking(move || server.kill())
        .await
        .unwrap();
    let (code, out, err) = call.await.unwrap();
    assert_ne!(code, 0, "{out}\n{err}");
    assert!(err.contains("closed"), "{err}");
    assert!(!err.contains("timed out"), "{err}");
    assert!(!err.contains("MiB"), "{err}");
}

/// A batch (and so a session daemon, which runs commands in the same pool) whose HTTP server
/// restarted: the command that meets the stale session fails at once with the server's 400,
/// and the next command starts the server afresh — as a command run alone would. Before,
/// every later command failed with the same 400 until the process was restarted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_400_a_batch_starts_the_server_again_for_its_next_command() {
    use std::io::{BufRead, Write};
    let started = tokio::task::spawn_blocking(ServerEverythingHttp::start)
        .await
        .unwrap();
    let Some(mut server) = require(started) else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": { "url": server.url(), "startupTimeoutSec": 120 } }));
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("coyote"))
        .current_dir(home.work_dir())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("COYOTE_CONFIG_DIR", home.config_dir())
        .env("COYOTE_STATE_DIR", home.path().join("state"))
        .env("COYOTE_CACHE_DIR", home.path().join("cache"))
        .args(["mcp", "batch", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut next = move |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        serde_json::from_str::<serde_json::Value>(&answer).unwrap()
    };
    let first = tokio::task::block_in_place(|| next("tools everything"));
    assert_eq!(first["exit"], 0, "{first}");
    let server = tokio::task::spawn_blocking(move || server.restart().map(|()| server))
        .await
        .unwrap()
        .expect("server-everything restarted on its port");
    let stale = tokio::task::block_in_place(|| next("tools everything"));
    assert_eq!(stale["exit"], 1, "{stale}");
    assert!(stale["stderr"].as_str().unwrap().contains("400"), "{stale}");
    let again = tokio::task::block_in_place(|| next("tools everything"));
    assert_eq!(again["exit"], 0, "started afresh: {again}");
    assert!(again["stdout"].to_string().contains("echo"), "{again}");
    let _ = child.kill();
    let _ = child.wait();
    drop(server);
}
