//! A private tmux server running the real `coyote` binary in one pane: tests type with
//! `send-keys` and read the screen with `capture-pane`, polling with a bounded deadline
//! (reedline asks the terminal for the cursor position, which tmux answers).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use super::common::Home;

/// Bound of each wait for the screen or the event log (generous: CI machines are shared).
pub const WAIT: Duration = Duration::from_secs(60);
pub const POLL: Duration = Duration::from_millis(50);

/// `tmux` is installed by scripts/test; without it these tests cannot run.
pub fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A private tmux server running `coyote repl` in one pane.
pub struct Terminal {
    socket: PathBuf,
}

impl Terminal {
    /// Starts `coyote repl` in a 160x50 pane with only the home's environment.
    pub fn start(home: &Home, extra_env: &[(&str, &str)]) -> Terminal {
        Terminal::run(home, &["repl"], extra_env)
    }

    /// Starts `coyote ARGS…` in a 160x50 pane with only the home's environment; when it ends
    /// the pane shows `[coyote exited CODE]`.
    pub fn run(home: &Home, args: &[&str], extra_env: &[(&str, &str)]) -> Terminal {
        Terminal::run_sized(home, args, extra_env, (160, 50))
    }

    /// [`Terminal::run`] in a pane of `(columns, rows)`.
    pub fn run_sized(
        home: &Home,
        args: &[&str],
        extra_env: &[(&str, &str)],
        (columns, rows): (u16, u16),
    ) -> Terminal {
        // One socket per terminal: a test may start several one after the other.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let socket = home.path().join(format!("tmux-{n}.sock"));
        let coyote = assert_cmd::cargo::cargo_bin("coyote");
        let mut env = vec![
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".to_owned(), home.path().display().to_string()),
            ("TERM".to_owned(), "tmux-256color".to_owned()),
            (
                "COYOTE_CONFIG_DIR".to_owned(),
                home.config_dir().display().to_string(),
            ),
            (
                "COYOTE_STATE_DIR".to_owned(),
                home.path().join("state").display().to_string(),
            ),
            (
                "COYOTE_CACHE_DIR".to_owned(),
                home.path().join("cache").display().to_string(),
            ),
            ("SHELL".to_owned(), "/bin/sh".to_owned()),
        ];
        for (k, v) in extra_env {
            env.push(((*k).to_owned(), (*v).to_owned()));
        }
        // The wrapper prints the exit status, so a test can see the REPL end.
        let script = format!(
            "cd {work} && env -i {env} {coyote} {args}; echo \"[coyote exited $?]\"; sleep 600",
            work = shell_quote(&home.work_dir().display().to_string()),
            env = env
                .iter()
                .map(|(k, v)| format!("{k}={}", shell_quote(v)))
                .collect::<Vec<_>>()
                .join(" "),
            coyote = shell_quote(&coyote.display().to_string()),
            args = args
                .iter()
                .map(|a| shell_quote(a))
                .collect::<Vec<_>>()
                .join(" "),
        );
        let (columns, rows) = (columns.to_string(), rows.to_string());
        let terminal = Terminal { socket };
        terminal.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &columns,
            "-y",
            &rows,
            "sh",
            "-c",
            &script,
        ]);
        terminal
    }

    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types text literally (no key names).
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", text]);
    }

    /// Sends named keys (`Enter`, `Tab`, `C-c`, `Down`…).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// The screen with its colours and attributes as escape sequences (`capture-pane -e`).
    pub fn screen_with_escapes(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-e", "-S", "-200", "-t", "t"])
    }

    /// The visible screen plus scrollback, wrapped lines joined.
    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-S", "-200", "-t", "t"])
    }

    /// Polls the screen until `check` holds; panics with the screen after [`WAIT`].
    pub async fn wait_for(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let screen = self.screen();
            if check(&screen) {
                return screen;
            }
            if tokio::time::Instant::now() > deadline {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until `text` is on the screen.
    pub async fn wait_text(&self, text: &str) -> String {
        self.wait_for(&format!("{text:?}"), |s| s.contains(text))
            .await
    }

    /// Waits until the screen shows `count` prompts (`coyote> ` at the start of a line).
    pub async fn wait_prompts(&self, count: usize) -> String {
        self.wait_for(&format!("prompt #{count}"), |s| {
            s.lines().filter(|l| l.starts_with("coyote> ")).count() >= count
        })
        .await
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
