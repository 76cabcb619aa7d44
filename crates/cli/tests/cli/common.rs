//! A temp home per test: config/state/cache dirs, an mcp.json writer, and a `coyote` command
//! that only ever sees those dirs (HOME and XDG point inside the temp dir too).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};
use tempfile::TempDir;

pub struct Home {
    pub dir: TempDir,
}

impl Home {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for d in ["config", "state", "cache", "work"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Home { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn config_dir(&self) -> PathBuf {
        self.path().join("config")
    }

    pub fn work_dir(&self) -> PathBuf {
        self.path().join("work")
    }

    pub fn mcp_json_path(&self) -> PathBuf {
        self.config_dir().join("mcp.json")
    }

    /// Writes `{"mcpServers": servers}`.
    pub fn write_servers(&self, servers: Value) {
        self.write_raw(&serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap());
    }

    pub fn write_raw(&self, text: &str) {
        std::fs::write(self.mcp_json_path(), text).unwrap();
    }

    pub fn coyote(&self) -> Command {
        let mut cmd = Command::cargo_bin("coyote").expect("coyote binary");
        cmd.current_dir(self.work_dir())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("COYOTE_CONFIG_DIR", self.config_dir())
            .env("COYOTE_STATE_DIR", self.path().join("state"))
            .env("COYOTE_CACHE_DIR", self.path().join("cache"))
            .timeout(std::time::Duration::from_secs(120));
        cmd
    }

    /// Runs `coyote ARGS` and returns (exit code, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        outcome(&self.coyote().args(args).output().expect("run coyote"))
    }

    /// [`Home::run`] for async tests: the command runs off the runtime, so fake servers that
    /// live on it keep answering.
    pub async fn run_async(&self, args: &[&str]) -> (i32, String, String) {
        let mut cmd = self.coyote();
        cmd.args(args);
        output_async(cmd).await
    }

    /// Runs with `--json` appended and parses stdout; panics with stderr on failure.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--json");
        let (code, out, err) = self.run(&all);
        assert_eq!(code, 0, "coyote {all:?} failed: {err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }
}

/// server-everything over stdio as an mcp.json entry (None when not installed outside CI).
pub fn everything_entry() -> Option<Value> {
    let spec = coyote_test_support::peers::require(
        coyote_test_support::peers::server_everything_stdio_command(),
    )?;
    Some(coyote_test_support::peers::mcp_json_entry(&spec))
}

/// Whether a process is still alive (and not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Runs a prepared `coyote` command off the async runtime: (exit code, stdout, stderr).
pub async fn output_async(mut cmd: Command) -> (i32, String, String) {
    let out = tokio::task::spawn_blocking(move || cmd.output().expect("run coyote"))
        .await
        .unwrap();
    outcome(&out)
}

fn outcome(out: &std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// config.yaml pointing `fake:fake-model` (OpenAI-compatible, key in `FAKE_LLM_KEY`) at
/// `api_base`, with `extra` top-level lines before `clients:`.
pub fn write_fake_model_config(home: &Home, api_base: &str, extra: &str) {
    let text = format!(
        "model: fake:fake-model\n{extra}clients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {api_base}\n    api_key_env: FAKE_LLM_KEY\n    models:\n      - name: \
         fake-model\n"
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

/// `coyote ARGS` with the fake model's key set, off the async runtime.
pub async fn chat_async(home: &Home, args: &[&str]) -> (i32, String, String) {
    let mut cmd = home.coyote();
    cmd.args(args).env("FAKE_LLM_KEY", "sk-fake");
    output_async(cmd).await
}
