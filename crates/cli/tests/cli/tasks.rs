//! MCP tasks against server-everything (its task tool `simulate-research-query` and the two
//! tools that ask coyote to run sampling and elicitation as tasks): a task call shows its
//! status and ends with the report; the question a task asks mid-way reaches the user; a
//! task is cancelled on the server by `coyote mcp tasks … cancel` and by Ctrl-C; the async
//! sampling/elicitation requests run as coyote-side tasks; the model gets a task handle when
//! the call outlives its wait and reads the result later through `mcp_describe_`.
//! Assertions are about what the streams and the server report, never about timing.

use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply};
use serde_json::{Value, json};

use super::common::{Home, everything_entry};

/// A config dir with server-everything as `ev` (`extra` merged into its entry), and a
/// private runtime dir for the session daemon.
struct Fixture {
    home: Home,
    run_dir: PathBuf,
}

impl Fixture {
    fn new(extra: Value) -> Option<Fixture> {
        let mut entry = everything_entry()?;
        if let (Some(entry), Value::Object(extra)) = (entry.as_object_mut(), extra) {
            entry.extend(extra);
        }
        let home = Home::new();
        home.write_servers(json!({ "ev": entry }));
        let run_dir = home.path().join("run");
        Some(Fixture { home, run_dir })
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self
            .home
            .coyote()
            .env("XDG_RUNTIME_DIR", &self.run_dir)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// `coyote ARGS` started in the background (same environment as [`Fixture::run`]).
    fn spawn(&self, args: &[&str]) -> Child {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("coyote"))
            .current_dir(self.home.work_dir())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("COYOTE_CONFIG_DIR", self.home.config_dir())
            .env("COYOTE_STATE_DIR", self.home.path().join("state"))
            .env("COYOTE_CACHE_DIR", self.home.path().join("cache"))
            .env("XDG_RUNTIME_DIR", &self.run_dir)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn start_session(&self) -> Session<'_> {
        let (code, _, err) = self.run(&["mcp", "session", "start"]);
        assert_eq!(code, 0, "{err}");
        Session { fixture: self }
    }

    /// The server's tasks (`coyote mcp tasks ev --json`).
    fn tasks(&self) -> Vec<Value> {
        let (code, out, err) = self.run(&["mcp", "tasks", "ev", "--json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Vec<Value>>(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }

    /// Waits until the server reports a task, and returns its id.
    fn first_task(&self) -> String {
        let mut found = None;
        eventually("a task is listed", || {
            found = self
                .tasks()
                .first()
                .map(|t| t["task_id"].as_str().unwrap().to_owned());
            found.is_some()
        });
        found.unwrap()
    }

    fn task_status(&self, id: &str) -> String {
        let (code, out, err) = self.run(&["mcp", "tasks", "ev", "get", id, "--json"]);
        assert_eq!(code, 0, "{err}");
        let tasks: Vec<Value> = serde_json::from_str(&out).unwrap();
        tasks[0]["status"].as_str().unwrap().to_owned()
    }
}

/// A running daemon, stopped when dropped.
struct Session<'a> {
    fixture: &'a Fixture,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        self.fixture.run(&["mcp", "session", "stop"]);
    }
}

/// Waits (bounded by a generous safety limit, not a measurement) until `done` holds.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let limit = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < limit, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn finish(child: Child) -> (i32, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_task_tool_shows_its_status_and_returns_its_report() {
    let Some(f) = Fixture::new(json!({})) else {
        return;
    };
    let (code, out, err) = f.run(&[
        "mcp",
        "call",
        "ev",
        "simulate-research-query",
        "topic=otters",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("# Research Report: otters"), "{out}");
    assert!(
        err.contains("simulate-research-query: task working: Gathering sources..."),
        "the task's status is the call's progress: {err}"
    );

    let (code, out, err) = f.run(&[
        "mcp",
        "call",
        "ev",
        "simulate-research-query",
        "topic=otters",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let result: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(result["task"]["status"], "completed", "{result}");
    assert!(
        result["task"]["task_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("otters")
    );
}

#[test]
fn the_question_a_task_asks_reaches_the_user() {
    let Some(f) = Fixture::new(json!({})) else {
        return;
    };
    let (code, out, err) = f.run(&[
        "mcp",
        "call",
        "ev",
        "simulate-research-query",
        "topic=python",
        "ambiguous=true",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains(
            "MCP server `ev` asked a question (The research query \"python\" could have \
             multiple interpretations."
        ),
        "{err}"
    );
    // The answer (declined: nothing can ask when piped) went back to the task.
    assert!(
        out.contains("# Research Report: python (User declined - using default interpretation)"),
        "{out}"
    );
}

#[test]
fn mcp_tasks_lists_and_cancels_a_running_task_on_the_server() {
    let Some(f) = Fixture::new(json!({})) else {
        return;
    };
    let _session = f.start_session();
    let call = f.spawn(&[
        "mcp",
        "call",
        "ev",
        "simulate-research-query",
        "topic=cancel-me",
    ]);
    let id = f.first_task();
    let (code, out, err) = f.run(&["mcp", "tasks", "ev"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&id) && out.contains("working"), "{out}");

    let (code, out, err) = f.run(&["mcp", "tasks", "ev", "cancel", &id]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("cancelled"), "{out}");
    let (code, out, err) = finish(call);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains(&format!(
            "MCP server 'ev': task {id} of tool `simulate-research-query` was cancelled"
        )),
        "{err}"
    );
    assert_eq!(f.task_status(&id), "cancelled");
}

#[test]
fn ctrl_c_cancels_the_task_on_the_server() {
    let Some(f) = Fixture::new(json!({})) else {
        return;
    };
    let _session = f.start_session();
    let call = f.spawn(&[
        "mcp",
        "call",
        "ev",
        "simulate-research-query",
        "topic=interrupt",
    ]);
    let id = f.first_task();
    assert_eq!(f.task_status(&id), "working");
    let sent = std::process::Command::new("kill")
        .args(["-INT", &call.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let (code, _, err) = finish(call);
    assert_eq!(code, 130, "{err}");
    eventually("the server reports the task cancelled", || {
        f.task_status(&id) == "cancelled"
    });
}

#[tokio::test]
async fn the_server_s_async_sampling_runs_as_a_coyote_task() {
    let Some(f) = Fixture::new(json!({})) else {
        return;
    };
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("sampled in a task")]).await;
    super::repl::write_config(&f.home, &llm);
    let (code, out, err) = tokio::task::spawn_blocking(move || {
        let r = f.run(&[
            "mcp",
            "call",
            "--allow-sampling",
            "ev",
            "trigger-sampling-request-async",
            "prompt=from-the-task-test",
        ]);
        drop(f);
        r
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("[COMPLETED] Async sampling completed!"),
        "{out}"
    );
    assert!(out.contains("Task created: coyote-"), "{out}");
    assert!(out.contains("sampled in a task"), "{out}");
    assert!(
        out.contains("io.modelcontextprotocol/related-task"),
        "the result is tied to its task: {out}"
    );
    assert_eq!(llm.requests().len(), 1);
}

#[test]
fn the_server_s_async_elicitation_runs_as_a_coyote_task() {
    let Some(f) = Fixture::new(json!({})) else {
        return;
    };
    let (code, out, err) = f.run(&["mcp", "call", "ev", "trigger-elicitation-request-async"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Task created: coyote-"), "{out}");
    assert!(out.contains("[DECLINED]"), "{out}");
    assert!(err.contains("MCP server `ev` asked a question"), "{err}");
}

#[test]
fn the_model_gets_a_task_handle_and_reads_the_result_later() {
    // One second of call time: the four-second task outlives it.
    let Some(f) = Fixture::new(json!({ "toolTimeoutSec": 1 })) else {
        return;
    };
    let _session = f.start_session();
    let args = json!({ "tool": "simulate-research-query", "arguments": { "topic": "later" } });
    let (code, out, err) = f.run(&["mcp", "meta", "mcp_invoke_ev", &args.to_string()]);
    assert_eq!(code, 0, "{out}\n{err}");
    // What the model gets: a line saying whose result it is, then the result.
    let json_start = out.find('{').unwrap_or_else(|| panic!("{out}"));
    let result: Value =
        serde_json::from_str(&out[json_start..]).unwrap_or_else(|e| panic!("{e}: {out}"));
    let id = result["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{result}"))
        .to_owned();
    assert_eq!(result["task"]["status"], "working", "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!(
            "mcp_describe_ev({{\"kind\": \"task\", \"name\": \"{id}\"}})"
        )),
        "{text}"
    );

    let check = json!({ "kind": "task", "name": id }).to_string();
    let mut report = String::new();
    eventually("the task's result is read through mcp_describe_", || {
        let (code, out, err) = f.run(&["mcp", "meta", "mcp_describe_ev", &check]);
        assert_eq!(code, 0, "{out}\n{err}");
        report = out;
        report.contains("# Research Report: later")
    });
    assert!(
        !report.contains("\"task\""),
        "a finished task is its result: {report}"
    );
}

#[test]
fn tasks_run_the_same_over_streamable_http() {
    let Some(server) = coyote_test_support::peers::require(
        coyote_test_support::peers::ServerEverythingHttp::start(),
    ) else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "ev": { "url": server.url() } }));
    let (code, out, err) = home.run(&["mcp", "call", "ev", "simulate-research-query", "topic=web"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("# Research Report: web"), "{out}");
    assert!(err.contains("task working: Gathering sources..."), "{err}");
    let (code, out, err) = home.run(&["mcp", "call", "ev", "trigger-elicitation-request-async"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Task created: coyote-"), "{out}");
}

#[tokio::test]
async fn the_repl_shows_a_task_s_status_while_the_model_waits_for_it() {
    if !super::terminal::tmux_available() {
        return;
    }
    let Some(f) = Fixture::new(json!({
        "expose": "direct",
        "autoApprove": ["simulate-research-query"]
    })) else {
        return;
    };
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call("ev__simulate-research-query", json!({"topic": "otters"})),
            Reply::text("RESEARCH-DONE"),
        ],
    )
    .await;
    super::repl::write_config(&f.home, &llm);
    let term = super::terminal::Terminal::start(&f.home, &[]);
    term.wait_prompts(1).await;
    super::client_repl::wait_ready(&term, "ev", 1).await;
    term.type_text("research otters");
    term.keys(&["Enter"]);
    let screen = term
        .wait_for("the task's status on the progress line", |s| {
            s.contains("task working:") || s.contains("RESEARCH-DONE")
        })
        .await;
    assert!(screen.contains("task working:"), "{screen}");
    term.wait_text("RESEARCH-DONE").await;
    let requests = llm.requests();
    let tool_result = requests
        .last()
        .and_then(|r| r["messages"].as_array())
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "tool"))
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert!(
        tool_result.contains("Research Report: otters"),
        "{tool_result}"
    );
}
