//! Defect 1: SIGINT, SIGTERM and SIGHUP in every mode leave no process of any server behind
//! (exit 130/143/129), a second signal kills the groups at once, and a server whose call timed
//! out is killed at once.
//!
//! Each test starts `coyote` under `setsid` with a unique `COYOTE_TEST_MARKER` in its
//! environment; every server process inherits it. The server is a chain — `sh` running the fake
//! MCP server plus a `sleep` that ignores SIGTERM, SIGHUP, SIGINT and its stdin — so only a
//! SIGKILL of the whole group ends it. After coyote exits (plus the grace period), no
//! `/proc/*/environ` may hold the marker.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply};
use coyote_test_support::{Capabilities, Scenario, ScenarioFile, ToolBehavior};
use serde_json::{Value, json};

use super::super::common::Home;
use super::log_text;

/// How long the leftover processes may take to disappear after coyote exited: the shutdown
/// grace (2 s + 2 s + 1 s) and plenty of slack for a loaded machine. A bound on polling, not
/// a timed assertion: a fixed build passes at the first poll after the exit.
const GONE_DEADLINE: Duration = Duration::from_secs(30);

const KEY_VAR: &str = "FAKE_LLM_KEY";

fn unique_marker() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("coyote-signals-{}-{nanos}", std::process::id())
}

/// Pids of the live processes whose environment holds `COYOTE_TEST_MARKER=<marker>`.
fn marked_processes(marker: &str) -> Vec<u32> {
    let needle = format!("COYOTE_TEST_MARKER={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == needle.as_bytes()))
        })
        .filter(|pid| super::super::common::alive(*pid))
        .collect()
}

/// Waits (bounded) until no process holds the marker; returns the survivors, SIGKILLed so a
/// failing test leaves nothing behind.
fn survivors_after_exit(marker: &str) -> Vec<u32> {
    let start = Instant::now();
    loop {
        let left = marked_processes(marker);
        if left.is_empty() {
            return left;
        }
        if start.elapsed() > GONE_DEADLINE {
            for pid in &left {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills whatever still holds the marker when the test ends, also when an assertion failed
/// first (a failing test must not leave its chain running).
struct Reaper(String);

impl Drop for Reaper {
    fn drop(&mut self) {
        for pid in marked_processes(&self.0) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

/// The mcp.json entry of the chain: `sh` keeps running while the fake server (its child)
/// serves, next to a `sleep` that ignores every catchable signal and never reads stdin.
fn chain_entry(scenario: &ScenarioFile) -> Value {
    let mut args = vec![
        "-c".to_owned(),
        "(trap '' TERM HUP INT; exec sleep 100000) </dev/null >/dev/null 2>&1 & \"$0\" \"$@\"; wait"
            .to_owned(),
        coyote_test_support::fake_mcp_bin().display().to_string(),
    ];
    args.extend(scenario.args());
    json!({ "command": "sh", "args": args })
}

fn hang_scenario(home: &Home) -> ScenarioFile {
    Scenario::builder()
        .server_name("chain")
        .capabilities(Capabilities::none().with_tools())
        .tool("hang", ToolBehavior::Hang)
        .write_to(home.path())
        .unwrap()
}

/// `setsid coyote ARGS` with the test home's environment and `marker`.
fn spawn_coyote(home: &Home, marker: &str, args: &[&str], extra_env: &[(&str, &str)]) -> Child {
    let mut cmd = Command::new("setsid");
    cmd.arg(assert_cmd::cargo::cargo_bin("coyote"))
        .args(args)
        .current_dir(home.work_dir())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("COYOTE_CONFIG_DIR", home.config_dir())
        .env("COYOTE_STATE_DIR", home.path().join("state"))
        .env("COYOTE_CACHE_DIR", home.path().join("cache"))
        .env("COYOTE_TEST_MARKER", marker)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in extra_env {
        cmd.env(key, value);
    }
    cmd.spawn().expect("start setsid coyote")
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{name}");
}

/// Waits for the call to reach the server (and the sleep to be running).
async fn wait_for_the_call(server: &ScenarioFile, marker: &str) {
    server
        .wait_for(Duration::from_secs(60), |log| log.tool_calls("hang") >= 1)
        .await
        .expect("the hang call reached the server");
    assert!(
        marked_processes(marker).len() >= 3,
        "sh, the server and the sleep run with the marker"
    );
}

async fn wait_output(child: Child) -> std::process::Output {
    tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap()
}

/// `coyote mcp call chain hang`, then `name`: exit `code`, the call cancelled on the wire, and
/// nothing of the chain left.
async fn mcp_call_then_signal(name: &str, code: i32) {
    let home = Home::new();
    let server = hang_scenario(&home);
    home.write_servers(json!({ "chain": chain_entry(&server) }));
    let marker = unique_marker();
    let _reaper = Reaper(marker.clone());
    let child = spawn_coyote(&home, &marker, &["mcp", "call", "chain", "hang"], &[]);
    wait_for_the_call(&server, &marker).await;
    signal(&child, name);
    let output = wait_output(child).await;
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "SIG{name}: {err}");
    let left = survivors_after_exit(&marker);
    assert!(left.is_empty(), "SIG{name}: processes left: {left:?}");
    let events = server.events();
    assert!(
        events.cancelled_notifications() >= 1,
        "SIG{name}: the call was not cancelled: {:?}",
        events.events
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_during_mcp_call_leaves_no_process_and_exits_130() {
    mcp_call_then_signal("INT", 130).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_mcp_call_leaves_no_process_and_exits_143() {
    mcp_call_then_signal("TERM", 143).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_during_mcp_call_leaves_no_process_and_exits_129() {
    mcp_call_then_signal("HUP", 129).await;
}

/// One-shot chat: the model calls the hanging tool, then SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_one_shot_chat_leaves_no_process_and_exits_143() {
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![Reply::call("mcp_invoke_chain", json!({"tool": "hang"}))],
    )
    .await;
    let home = Home::new();
    let server = hang_scenario(&home);
    // Meta-functions: the model calls `mcp_invoke_chain`.
    let mut entry = chain_entry(&server);
    entry["expose"] = json!("meta");
    home.write_servers(json!({ "chain": entry }));
    let config = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: {}\n    api_key_env: {KEY_VAR}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), config).unwrap();
    let marker = unique_marker();
    let _reaper = Reaper(marker.clone());
    // `--yes`: a tool without annotations needs approval.
    let child = spawn_coyote(
        &home,
        &marker,
        &["--yes", "hang please"],
        &[(KEY_VAR, "sk-x")],
    );
    wait_for_the_call(&server, &marker).await;
    signal(&child, "TERM");
    let output = wait_output(child).await;
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{err}");
    let left = survivors_after_exit(&marker);
    assert!(left.is_empty(), "processes left: {left:?}");
    assert!(server.events().cancelled_notifications() >= 1);
}

/// A second signal while the servers are being stopped kills their groups at once: the
/// `sleep` that ignores SIGTERM is gone when coyote has exited, and the log says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_signal_kills_the_groups_at_once() {
    let home = Home::new();
    let server = hang_scenario(&home);
    home.write_servers(json!({ "chain": chain_entry(&server) }));
    let marker = unique_marker();
    let _reaper = Reaper(marker.clone());
    let child = spawn_coyote(&home, &marker, &["mcp", "call", "chain", "hang"], &[]);
    wait_for_the_call(&server, &marker).await;
    signal(&child, "TERM");
    // The first signal is being handled once the server saw its stdin close.
    server
        .wait_for(Duration::from_secs(60), |log| log.disconnect_seen())
        .await
        .expect("the server's stdin was closed");
    signal(&child, "INT");
    let output = wait_output(child).await;
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{err}");
    // SIGKILL is sent before coyote exits, but a process takes a moment to die: wait for the
    // chain to be gone (without the second signal's kill the TERM-ignoring `sleep` would stay).
    let left = survivors_after_exit(&marker);
    assert!(
        left.is_empty(),
        "processes left after coyote's exit: {left:?}; {}",
        log_text(&home)
    );
    assert!(
        log_text(&home).contains("second signal"),
        "{}",
        log_text(&home)
    );
    assert!(survivors_after_exit(&marker).is_empty());
}

/// A call that timed out: the server's group is killed at once at shutdown (no stdin-close
/// and SIGTERM waits for a server that is known to be stuck).
#[test]
fn a_timed_out_call_kills_the_group_at_once() {
    let home = Home::new();
    let server = hang_scenario(&home);
    let mut entry = chain_entry(&server);
    entry["toolTimeoutSec"] = json!(1);
    home.write_servers(json!({ "chain": entry }));
    let marker = unique_marker();
    let _reaper = Reaper(marker.clone());
    let child = spawn_coyote(&home, &marker, &["mcp", "call", "chain", "hang"], &[]);
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("timed out"), "{err}");
    let left = marked_processes(&marker);
    assert!(left.is_empty(), "processes left at coyote's exit: {left:?}");
    let log = log_text(&home);
    assert!(
        log.lines()
            .any(|l| l.contains("chain") && l.contains("killing its process group at once")),
        "{log}"
    );
    assert!(survivors_after_exit(&marker).is_empty());
}

/// The pid of the `coyote` process holding the marker.
fn coyote_pid(marker: &str) -> Option<u32> {
    marked_processes(marker).into_iter().find(|pid| {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "coyote")
    })
}

/// The REPL (in a real terminal, idle at its prompt): SIGTERM or SIGHUP shuts the servers
/// down and exits 143 or 129.
async fn repl_then_signal(name: &str, code: i32) {
    use super::super::terminal::{Terminal, tmux_available};
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let server = hang_scenario(&home);
    home.write_servers(json!({ "chain": chain_entry(&server) }));
    std::fs::write(
        home.config_dir().join("config.yaml"),
        "model: fake:m\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: http://127.0.0.1:1/v1\n    models:\n      - name: m\n",
    )
    .unwrap();
    let marker = unique_marker();
    let _reaper = Reaper(marker.clone());
    let term = Terminal::start(&home, &[("COYOTE_TEST_MARKER", &marker)]);
    term.wait_prompts(1).await;
    server
        .wait_for(Duration::from_secs(60), |log| log.initialized_seen())
        .await
        .expect("the server started");
    let pid = coyote_pid(&marker).expect("coyote runs with the marker");
    let status = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let screen = term.wait_text(&format!("[coyote exited {code}]")).await;
    assert!(
        screen.contains(&format!("[coyote exited {code}]")),
        "{screen}"
    );
    let left = survivors_after_exit(&marker);
    assert!(left.is_empty(), "SIG{name}: processes left: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_in_the_repl_leaves_no_process_and_exits_143() {
    repl_then_signal("TERM", 143).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_in_the_repl_leaves_no_process_and_exits_129() {
    repl_then_signal("HUP", 129).await;
}
