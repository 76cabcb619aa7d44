//! Coyote's half: this tree's `coyote`, speaking 2026-07-28
//! (`COYOTE_MCP_PROTOCOL=2026-07-28`), calls a guarded delete on coolify-mcp over streamable
//! HTTP on 127.0.0.1. coolify-mcp answers `input_required` with the confirmation question and a
//! sealed `requestState`; coyote asks its user and retries with the answer and the same state.
//! Piped, coyote has nobody to ask: the question is declined and nothing is deleted. In a real
//! terminal (a private tmux server) the user accepts and the fixture sees exactly one DELETE.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use coolify_fixture::Fixture;

use crate::sdk_peers::{coyote_binary, coyote_env, coyote_with, home_for, serve};

const MODERN: (&str, &str) = ("COYOTE_MCP_PROTOCOL", "2026-07-28");
/// Bound of each wait for the screen (generous: CI machines are shared).
const WAIT: Duration = Duration::from_secs(90);

fn deletes(f: &Fixture) -> usize {
    f.requests().iter().filter(|r| r.method == "DELETE").count()
}

const DELETE: [&str; 6] = [
    "mcp",
    "call",
    "coolify",
    "application",
    "action=delete",
    "uuid=app-api",
];

#[tokio::test]
async fn coyote_piped_declines_the_input_required_question_and_nothing_is_deleted() {
    let Some(bin) = coyote_binary() else {
        return;
    };
    let fixture = Fixture::start().await.unwrap();
    let h = serve(&fixture).await;
    let home = home_for(&format!("http://{}/mcp", h.addr));

    let (code, out, err) = coyote_with(&bin, home.path(), &DELETE, &[MODERN]).await;
    assert!(
        err.contains("MCP server `coolify` asked a question (Delete application \"api-gateway\"")
            && err.contains("declined: there is no terminal to ask you"),
        "the question reached coyote and was declined: {code}\n{out}\n{err}"
    );
    assert!(out.contains("Aborted: the user declined"), "{out}\n{err}");
    assert_eq!(deletes(&fixture), 0, "a declined delete sends nothing");
    h.shutdown.cancel();
}

/// A private tmux server running one command in a 160x50 pane.
struct Pane {
    socket: PathBuf,
}

impl Pane {
    /// Runs `bin args…` with `env` through a script in `home`; the pane then shows
    /// `[coyote exited CODE]` and stays open.
    fn start(home: &Path, bin: &Path, args: &[&str], env: &[(String, std::ffi::OsString)]) -> Pane {
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let mut script = String::from("#!/bin/sh\n");
        for (k, v) in env {
            script.push_str(&format!("export {k}={}\n", quote(&v.to_string_lossy())));
        }
        script.push_str("export TERM=tmux-256color\n");
        let words: Vec<String> = std::iter::once(bin.display().to_string())
            .chain(args.iter().map(|a| (*a).to_string()))
            .map(|w| quote(&w))
            .collect();
        script.push_str(&format!(
            "cd {}\n{}\necho \"[coyote exited $?]\"\nsleep 600\n",
            quote(&home.display().to_string()),
            words.join(" ")
        ));
        let path = home.join("run.sh");
        std::fs::write(&path, script).unwrap();
        let socket = home.join("tmux.sock");
        let pane = Pane { socket };
        let ok = pane
            .tmux(&["new-session", "-d", "-x", "160", "-y", "50", "sh"])
            .arg(&path)
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux new-session");
        pane
    }

    fn tmux(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.arg("-S").arg(&self.socket).args(["-f", "/dev/null"]);
        c.args(args);
        c
    }

    fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-J"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    async fn wait_text(&self, text: &str) -> String {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{text:?} not on screen:\n{screen}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn key(&self, key: &str) {
        assert!(self.tmux(&["send-keys", key]).status().unwrap().success());
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coyote_in_a_terminal_accepts_and_the_delete_runs_once() {
    let Some(bin) = coyote_binary() else {
        return;
    };
    let tmux = Command::new("tmux").arg("-V").output();
    if !tmux.is_ok_and(|o| o.status.success()) {
        let required = std::env::var("COYOTE_REQUIRE_PEERS").is_ok_and(|v| v.trim() == "1");
        assert!(
            !required,
            "tmux is not installed (scripts/test installs it)"
        );
        return;
    }
    let fixture = Fixture::start().await.unwrap();
    let h = serve(&fixture).await;
    let home = home_for(&format!("http://{}/mcp", h.addr));
    let mut env = coyote_env(home.path());
    env.push((MODERN.0.to_string(), MODERN.1.into()));

    let pane = Pane::start(home.path(), &bin, &DELETE, &env);
    pane.wait_text("MCP server `coolify` asks: Delete application \"api-gateway\"")
        .await;
    assert_eq!(deletes(&fixture), 0, "nothing is deleted before the answer");
    pane.key("Enter"); // answer (the form has no fields)
    let screen = pane.wait_text("[coyote exited").await;
    assert!(screen.contains("[coyote exited 0]"), "{screen}");
    assert!(!screen.contains("Aborted"), "{screen}");
    assert_eq!(
        deletes(&fixture),
        1,
        "the delete ran once, after the answer"
    );
    h.shutdown.cancel();
}

/// A 2026-07-28 server answers a bad call with HTTP 400 and that request's own JSON-RPC error
/// (there is no session to be stale): coyote reports the server's error, exits 1, and the next
/// command still works — it is not "connection failed".
#[tokio::test]
async fn coyote_reports_a_2026_07_28_call_error_as_the_server_s_error() {
    let Some(bin) = coyote_binary() else {
        return;
    };
    let fixture = Fixture::start().await.unwrap();
    let h = serve(&fixture).await;
    let home = home_for(&format!("http://{}/mcp", h.addr));

    let unknown = ["mcp", "call", "coolify", "no_such_tool"];
    let (code, out, err) = coyote_with(&bin, home.path(), &unknown, &[MODERN]).await;
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains("MCP server 'coolify' answered 'tools/call' with error -32602")
            && err.contains("no_such_tool"),
        "{err}"
    );
    assert!(!err.contains("connection failed"), "{err}");
    let version = ["mcp", "call", "coolify", "get_mcp_version"];
    let (code, out, err) = coyote_with(&bin, home.path(), &version, &[MODERN]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    h.shutdown.cancel();
}
