//! `coyote mcp session`: the daemon's socket permissions, one daemon per config dir,
//! a stale socket after a crash, concurrent clients, idle exit, commands whose configuration
//! differs, and the same output and exit codes with and without the daemon.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use coyote_test_support::{Event, ResourceBody, Scenario, ScenarioFile, ToolBehavior};
use serde_json::{Value, json};

use super::common::{Home, alive};

/// A home with a fake server `name` (echo, fail, one resource) and its own runtime dir.
struct Fixture {
    home: Home,
    scenario: ScenarioFile,
    run_dir: PathBuf,
}

impl Fixture {
    fn new(name: &str) -> Self {
        let home = Home::new();
        let scenario = Scenario::builder()
            .tool("echo", ToolBehavior::Echo)
            .tool("wait", ToolBehavior::Hang)
            .tool(
                "fail",
                ToolBehavior::Error {
                    text: "it broke".into(),
                },
            )
            .resource(
                "fake://doc",
                "doc",
                ResourceBody::Text {
                    text: "the document\n".into(),
                },
            )
            .event_log(&home.path().join("events.jsonl"))
            .write_to(home.path())
            .unwrap();
        home.write_servers(json!({ name: scenario.mcp_json_entry() }));
        let run_dir = home.path().join("run");
        Fixture {
            home,
            scenario,
            run_dir,
        }
    }

    /// Shares another fixture's runtime dir (two config dirs, one user).
    fn sharing(mut self, run_dir: &Path) -> Self {
        self.run_dir = run_dir.to_owned();
        self
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_env(args, &[])
    }

    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let out = self
            .home
            .coyote()
            .env("XDG_RUNTIME_DIR", &self.run_dir)
            .envs(env.iter().copied())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn start(&self, extra: &[&str]) -> Session<'_> {
        let mut args = vec!["mcp", "session", "start"];
        args.extend_from_slice(extra);
        let (code, _out, err) = self.run(&args);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("session started"), "{err}");
        Session { fixture: self }
    }

    fn status(&self) -> (i32, Value) {
        let (code, out, err) = self.run(&["mcp", "session", "status", "--json"]);
        (
            code,
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}")),
        )
    }

    fn spawns(&self) -> usize {
        self.scenario
            .events()
            .events
            .iter()
            .filter(|e| matches!(e, Event::Started { .. }))
            .count()
    }

    fn socket_dir(&self) -> PathBuf {
        self.run_dir.join("coyote")
    }
}

/// A running daemon, stopped when dropped (also when a test fails).
struct Session<'a> {
    fixture: &'a Fixture,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        self.fixture.run(&["mcp", "session", "stop"]);
    }
}

/// Waits (bounded by a generous safety limit, not a measurement) until `done` holds.
fn eventually(what: &str, done: impl Fn() -> bool) {
    let limit = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < limit, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

const COMMANDS: &[&[&str]] = &[
    &["mcp", "tools", "fake"],
    &["mcp", "servers", "--json"],
    &["mcp", "call", "fake", "echo", "text=hi there"],
    &["mcp", "call", "fake", "echo", "text=hi", "--json"],
    &["mcp", "call", "fake", "fail"],
    &["mcp", "read", "fake", "fake://doc"],
    &["mcp", "describe", "fake", "echo"],
    &["mcp", "tools", "nope"],
    &["mcp", "call", "fake", "echo", "--json-args", "[1]"],
];

#[test]
fn commands_print_the_same_with_and_without_the_daemon_which_spawns_the_server_once() {
    let f = Fixture::new("fake");
    let alone: Vec<_> = COMMANDS.iter().map(|args| f.run(args)).collect();
    let spawned_alone = f.spawns();
    assert!(spawned_alone >= COMMANDS.len() - 1, "{spawned_alone}");
    let session = f.start(&[]);
    assert_eq!(
        f.spawns(),
        spawned_alone + 1,
        "the daemon starts the configured server"
    );
    for (args, alone) in COMMANDS.iter().zip(&alone) {
        assert_eq!(&f.run(args), alone, "{args:?}");
    }
    assert_eq!(
        f.spawns(),
        spawned_alone + 1,
        "served by the daemon's server"
    );
    let (code, status) = f.status();
    assert_eq!(code, 0);
    assert_eq!(status["served"], COMMANDS.len());
    assert_eq!(
        status["servers"],
        json!([{"name": "fake", "state": "ready"}])
    );
    drop(session);
    let (code, status) = f.status();
    assert_eq!((code, &status["running"]), (1, &json!(false)));
}

#[test]
fn the_socket_directory_is_0700_and_the_socket_0600_and_a_shared_directory_is_refused() {
    let f = Fixture::new("fake");
    let session = f.start(&[]);
    let dir = std::fs::metadata(f.socket_dir()).unwrap();
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    let (_, status) = f.status();
    let socket = PathBuf::from(status["socket"].as_str().unwrap());
    assert_eq!(socket.parent(), Some(f.socket_dir().as_path()));
    let meta = std::fs::metadata(&socket).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(meta.uid(), dir.uid());
    drop(session);
    assert!(!socket.exists(), "stop removes the socket");

    // A directory others may enter is not used.
    std::fs::set_permissions(f.socket_dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, _out, err) = f.run(&["mcp", "session", "start"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is not private to you"), "{err}");
}

#[test]
fn two_config_dirs_get_two_daemons_each_serving_its_own_servers() {
    let a = Fixture::new("alpha");
    let b = Fixture::new("beta").sharing(&a.run_dir);
    let _sa = a.start(&[]);
    let _sb = b.start(&[]);
    let (_, status_a) = a.status();
    let (_, status_b) = b.status();
    assert_ne!(status_a["socket"], status_b["socket"]);
    assert_ne!(status_a["pid"], status_b["pid"]);
    assert_eq!(a.run(&["mcp", "call", "alpha", "echo", "text=a"]).1, "a\n");
    assert_eq!(b.run(&["mcp", "call", "beta", "echo", "text=b"]).1, "b\n");
    let (code, _out, err) = b.run(&["mcp", "tools", "alpha"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("configured servers: beta"), "{err}");
    assert_eq!((a.spawns(), b.spawns()), (1, 1));
}

#[test]
fn after_a_crash_the_stale_socket_is_ignored_by_commands_and_replaced_by_start() {
    let f = Fixture::new("fake");
    let session = f.start(&[]);
    let (_, status) = f.status();
    let socket = PathBuf::from(status["socket"].as_str().unwrap());
    let pid = status["pid"].as_u64().unwrap();
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    eventually("the daemon is gone", || !alive(u32::try_from(pid).unwrap()));
    assert!(socket.exists(), "a crashed daemon leaves its socket behind");
    assert_eq!(f.status().0, 1);
    // Commands run alone, as if there were no daemon.
    let (code, out, err) = f.run(&["mcp", "call", "fake", "echo", "text=alone"]);
    assert_eq!((code, out.as_str()), (0, "alone\n"), "{err}");
    std::mem::forget(session);
    let _again = f.start(&[]);
    let (code, out, _) = f.run(&["mcp", "call", "fake", "echo", "text=served"]);
    assert_eq!((code, out.as_str()), (0, "served\n"));
    assert_eq!(f.status().1["served"], 1);
}

#[test]
fn concurrent_clients_each_get_their_own_output() {
    let f = Fixture::new("fake");
    let _session = f.start(&[]);
    let outputs: Vec<(i32, String, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let f = &f;
                scope.spawn(move || {
                    let text = format!("text=client {i}");
                    f.run(&["mcp", "call", "fake", "echo", &text])
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, (code, out, err)) in outputs.iter().enumerate() {
        assert_eq!(
            (*code, out.as_str()),
            (0, format!("client {i}\n").as_str()),
            "{err}"
        );
    }
    assert_eq!(f.status().1["served"], 8);
    assert_eq!(f.spawns(), 1);
}

#[test]
fn an_idle_daemon_exits_and_shuts_its_servers_down() {
    let f = Fixture::new("fake");
    let session = f.start(&["--idle-timeout", "1"]);
    let (_, status) = f.status();
    let socket = PathBuf::from(status["socket"].as_str().unwrap());
    let pid = u32::try_from(status["pid"].as_u64().unwrap()).unwrap();
    let server = f.scenario.events().server_pid().unwrap();
    eventually("the idle daemon exits", || !alive(pid));
    assert!(!socket.exists(), "the idle daemon removes its socket");
    eventually("its server is shut down", || !alive(server));
    assert_eq!(f.status().0, 1);
    std::mem::forget(session);
}

#[test]
fn a_command_whose_configuration_differs_runs_alone_and_mcp_add_reloads_the_daemon() {
    let f = Fixture::new("fake");
    let _session = f.start(&[]);
    // Other global options: not the daemon's configuration.
    let (code, out, _) = f.run(&[
        "--mcp-log-level",
        "debug",
        "mcp",
        "call",
        "fake",
        "echo",
        "text=x",
    ]);
    assert_eq!((code, out.as_str()), (0, "x\n"));
    assert_eq!(f.spawns(), 2, "run alone");
    assert_eq!(f.status().1["served"], 0);
    // mcp.json edited: the daemon serves the new configuration.
    let fake = f.scenario.mcp_json_entry();
    let mut args = vec!["mcp", "add", "second", "--"];
    let command = fake["command"].as_str().unwrap().to_owned();
    let rest: Vec<String> = fake["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    args.push(&command);
    args.extend(rest.iter().map(String::as_str));
    assert_eq!(f.run(&args).0, 0);
    let (code, out, err) = f.run(&["mcp", "call", "second", "echo", "text=new"]);
    assert_eq!((code, out.as_str()), (0, "new\n"), "{err}");
    assert_eq!(f.status().1["served"], 1, "served after the reload");
}

#[test]
fn a_clients_ctrl_c_cancels_its_own_call_only_while_others_are_served() {
    let f = Fixture::new("fake");
    let _session = f.start(&[]);
    let mut waiting = std::process::Command::new(assert_cmd::cargo::cargo_bin("coyote"))
        .args(["mcp", "call", "fake", "wait"])
        .current_dir(f.home.work_dir())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", f.home.path())
        .env("COYOTE_CONFIG_DIR", f.home.config_dir())
        .env("COYOTE_STATE_DIR", f.home.path().join("state"))
        .env("COYOTE_CACHE_DIR", f.home.path().join("cache"))
        .env("XDG_RUNTIME_DIR", &f.run_dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    eventually("the call reaches the server", || {
        f.scenario.events().tool_calls("wait") == 1
    });
    // Another client is served while that call hangs.
    let (code, out, err) = f.run(&["mcp", "call", "fake", "echo", "text=meanwhile"]);
    assert_eq!((code, out.as_str()), (0, "meanwhile\n"), "{err}");
    std::process::Command::new("kill")
        .args(["-INT", &waiting.id().to_string()])
        .status()
        .unwrap();
    let status = waiting.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    eventually("the daemon cancels the call on the wire", || {
        f.scenario.events().tools_cancelled() == vec!["wait".to_owned()]
    });
    // The daemon and its server go on serving.
    let (code, out, _) = f.run(&["mcp", "call", "fake", "echo", "text=after"]);
    assert_eq!((code, out.as_str()), (0, "after\n"));
    assert_eq!(f.spawns(), 1);
    let _ = waiting.stdout.take();
}

#[test]
fn the_daemon_fits_tables_and_colours_to_the_calling_client() {
    let f = Fixture::new("fake");
    let narrow = [("COLUMNS", "20")];
    let forced = [("CLICOLOR_FORCE", "1")];
    let alone_narrow = f.run_env(&["mcp", "tools", "fake"], &narrow);
    let alone_forced = f.run_env(&["mcp", "tools", "nope"], &forced);
    assert!(alone_narrow.1.contains('…'), "{}", alone_narrow.1);
    assert!(alone_forced.2.contains('\x1b'), "{}", alone_forced.2);
    let _session = f.start(&[]);
    assert_eq!(f.run_env(&["mcp", "tools", "fake"], &narrow), alone_narrow);
    assert_eq!(f.run_env(&["mcp", "tools", "nope"], &forced), alone_forced);
    assert!(!f.run(&["mcp", "tools", "fake"]).1.contains('…'));
    assert_eq!(f.status().1["served"], 3);
}

/// A server's form question during a command the daemon runs is asked on the terminal of the
/// command that is running (and answered there); a command without a terminal declines it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_question_is_asked_on_the_terminal_of_the_command_the_daemon_runs() {
    use super::terminal::{Terminal, tmux_available};
    use coyote_test_support::Capabilities;
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let server = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool(
            "ask",
            ToolBehavior::Elicit {
                message: "Who is asking?".into(),
                schema: json!({"type": "object",
                               "properties": {"name": {"type": "string", "title": "Your name"}},
                               "required": ["name"]}),
            },
        )
        .event_log(&home.path().join("events.jsonl"))
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": server.mcp_json_entry() }));
    let run_dir = home.path().join("run");
    let coyote = runner(&home, &run_dir);
    let (code, _, err) = coyote(&["mcp", "session", "start"]);
    assert_eq!(code, 0, "{err}");
    let stop = Stop(&coyote);

    let run_env = [("XDG_RUNTIME_DIR", run_dir.to_str().unwrap())];
    let term = Terminal::run(&home, &["mcp", "call", "fake", "ask"], &run_env);
    term.wait_text("MCP server `fake` asks: Who is asking?")
        .await;
    term.keys(&["Enter"]);
    term.wait_text("Your name").await;
    term.type_text("Ada");
    term.keys(&["Enter"]);
    let screen = term.wait_text("[coyote exited 0]").await;
    assert!(
        screen.contains(r#"{"action":"accept","content":{"name":"Ada"}}"#),
        "{screen}"
    );

    // Without a terminal to ask on, the question is declined (nothing answered for the user).
    let (code, out, err) = coyote(&["mcp", "call", "fake", "ask"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#""action":"decline""#), "{out}");

    assert_eq!(
        server.events().elicitations(),
        vec![
            ("accept".to_owned(), Some(json!({"name": "Ada"}))),
            ("decline".to_owned(), None)
        ]
    );
    // Both calls were the daemon's: its one server answered them.
    let started = server
        .events()
        .events
        .iter()
        .filter(|e| matches!(e, Event::Started { .. }))
        .count();
    assert_eq!(started, 1, "the server was started once, by the daemon");
    let (_, status, _) = coyote(&["mcp", "session", "status", "--json"]);
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["served"], 2, "{status}");
    drop(stop);
}

/// Stops the daemon when dropped (also when the test fails).
struct Stop<'a, F: Fn(&[&str]) -> (i32, String, String)>(&'a F);

impl<F: Fn(&[&str]) -> (i32, String, String)> Drop for Stop<'_, F> {
    fn drop(&mut self) {
        (self.0)(&["mcp", "session", "stop"]);
    }
}

/// Sampling during a command the daemon runs: the consent question and the review of the
/// answer are asked on that command's terminal; the daemon's model answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_consent_is_asked_on_the_terminal_of_the_command_the_daemon_runs() {
    use super::terminal::{Terminal, tmux_available};
    use coyote_test_support::Capabilities;
    use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply};
    if !tmux_available() {
        return;
    }
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("SAMPLED-ANSWER")]).await;
    let home = Home::new();
    let server = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool(
            "sample",
            ToolBehavior::Sample {
                prompt: "Say something".into(),
                system: None,
                max_tokens: 50,
                hints: Vec::new(),
            },
        )
        .event_log(&home.path().join("events.jsonl"))
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": server.mcp_json_entry() }));
    let config = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), config).unwrap();
    let run_dir = home.path().join("run");
    let coyote = runner(&home, &run_dir);
    let (code, _, err) = coyote(&["mcp", "session", "start"]);
    assert_eq!(code, 0, "{err}");
    let stop = Stop(&coyote);

    let run_env = [("XDG_RUNTIME_DIR", run_dir.to_str().unwrap())];
    let term = Terminal::run(&home, &["mcp", "call", "fake", "sample"], &run_env);
    term.wait_text("Let this server use the model?").await;
    term.keys(&["Enter"]);
    let screen = term.wait_text("Send this answer?").await;
    assert!(screen.contains("SAMPLED-ANSWER"), "{screen}");
    term.keys(&["Enter"]);
    let screen = term.wait_text("[coyote exited 0]").await;
    assert!(screen.contains("SAMPLED-ANSWER"), "{screen}");
    assert_eq!(llm.requests().len(), 1, "the model answered once");

    // Without a terminal: declined, saying how to allow it; the model is not asked.
    let (code, out, err) = coyote(&["mcp", "call", "fake", "sample"]);
    assert!(
        out.contains("--allow-sampling") || err.contains("--allow-sampling"),
        "{code} {out} {err}"
    );
    assert_eq!(llm.requests().len(), 1, "no model request after a decline");
    let (_, status, _) = coyote(&["mcp", "session", "status", "--json"]);
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["served"], 2, "{status}");
    drop(stop);
}

/// A batch run while a daemon serves its configuration sends its commands to the daemon: the
/// same output (text and `--json` lines) as without it, and no server of its own.
#[test]
fn a_batch_uses_the_running_daemon_and_prints_the_same() {
    let f = Fixture::new("fake");
    let script = f.home.path().join("script.batch");
    std::fs::write(
        &script,
        "tools fake\ncall fake echo 'text=hi there'\ncall fake fail\n\
         {\"id\": \"r\", \"argv\": [\"read\", \"fake\", \"fake://doc\"]}\ntools nope\n",
    )
    .unwrap();
    let script = script.to_str().unwrap();
    let text_alone = f.run(&["mcp", "batch", script]);
    let json_alone = f.run(&["mcp", "batch", "--json", script]);
    assert_eq!(text_alone.0, json_alone.0);
    assert_ne!(text_alone.0, 0, "a failing line sets the exit code");
    let spawned_alone = f.spawns();
    assert_eq!(spawned_alone, 2, "one server per batch process");

    let _session = f.start(&[]);
    assert_eq!(f.run(&["mcp", "batch", script]), text_alone);
    assert_eq!(f.run(&["mcp", "batch", "--json", script]), json_alone);
    assert_eq!(
        f.spawns(),
        spawned_alone + 1,
        "only the daemon started a server"
    );
    // Every line of both batches was the daemon's (the unknown server's too: it fails there
    // as it does alone).
    assert_eq!(f.status().1["served"], 10, "{:?}", f.status());
}

/// Runs `coyote ARGS…` in `home` with its runtime dir at `run_dir`: (exit code, stdout, stderr).
fn runner<'a>(home: &'a Home, run_dir: &'a Path) -> impl Fn(&[&str]) -> (i32, String, String) + 'a {
    move |args: &[&str]| {
        let out = home
            .coyote()
            .env("XDG_RUNTIME_DIR", run_dir)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// Without `$XDG_RUNTIME_DIR`, the socket directory is a fresh, randomly named one recorded in
/// the state dir: another user who creates `$TMPDIR/coyote-$UID` first no longer blocks
/// `session start` (before, it failed with "is not private to you").
#[test]
fn without_a_runtime_dir_a_directory_made_by_someone_else_does_not_block_the_session() {
    let f = Fixture::new("fake");
    let tmp = f.home.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let uid = std::fs::metadata(f.home.path()).unwrap().uid();
    let squatted = tmp.join(format!("coyote-{uid}"));
    std::fs::create_dir(&squatted).unwrap();
    std::fs::set_permissions(&squatted, std::fs::Permissions::from_mode(0o777)).unwrap();
    let run = |args: &[&str]| {
        let out = f
            .home
            .coyote()
            .env("TMPDIR", &tmp)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, _, err) = run(&["mcp", "session", "start"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["mcp", "session", "status", "--json"]);
    let stop = run(&["mcp", "session", "stop"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(stop.0, 0, "{}", stop.2);
    let status: Value = serde_json::from_str(&out).unwrap();
    let socket = PathBuf::from(status["socket"].as_str().unwrap());
    let dir = socket.parent().unwrap();
    assert_eq!(dir.parent(), Some(tmp.as_path()), "{status:#}");
    assert_ne!(dir, squatted.as_path());
    let meta = std::fs::metadata(dir).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    let recorded = std::fs::read_to_string(f.home.path().join("state/session-dir")).unwrap();
    assert_eq!(Path::new(&recorded), dir);
}

/// A client's message over 4 MiB is refused without being held, and the daemon goes on
/// serving (before, it buffered a frame of any size: 2 GiB → 2.1 GB RSS).
#[test]
fn an_oversized_message_is_refused_and_the_daemon_goes_on() {
    use std::io::{BufRead, Write};
    let f = Fixture::new("fake");
    let _session = f.start(&[]);
    let (_, status) = f.status();
    let socket = PathBuf::from(status["socket"].as_str().unwrap());
    let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let mut line = vec![b'x'; 5 * 1024 * 1024];
    line.push(b'\n');
    stream.write_all(&line).unwrap();
    let mut answer = String::new();
    std::io::BufReader::new(&stream)
        .read_line(&mut answer)
        .unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["exit"], 2, "{answer}");
    assert!(
        answer["stderr"]
            .as_str()
            .unwrap()
            .contains("longer than the 4194304-byte limit"),
        "{answer}"
    );
    let (code, out, err) = f.run(&["mcp", "call", "fake", "echo", "message=still"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("still"), "{out}");
}
