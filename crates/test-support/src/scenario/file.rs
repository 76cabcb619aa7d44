//! A scenario written to disk for the `coyote-fake-mcp` binary, plus how to find and start
//! that binary from any crate's tests.
//!
//! Cargo builds a dependency's binaries only for that package's own tests, so
//! [`fake_mcp_bin`] uses `<target>/<profile>/coyote-fake-mcp` when it is newer than every
//! source file of this crate (a workspace build made it), and otherwise builds it once per
//! test process with the `cargo` that runs the tests (same profile, same target dir).
//! `COYOTE_FAKE_MCP_BIN` overrides both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use coyote_protocol::{McpServerSpec, McpTransport, StdioSpec};

use super::Scenario;
use crate::events::{EventLog, WaitError};

/// Env var naming a prebuilt `coyote-fake-mcp` (skips the build in [`fake_mcp_bin`]).
pub const FAKE_MCP_BIN_ENV: &str = "COYOTE_FAKE_MCP_BIN";
/// Env var the binary reads the scenario path from when argv[1] is absent.
pub const SCENARIO_ENV: &str = "COYOTE_FAKE_SCENARIO";

/// A scenario on disk and the event log its server appends to.
#[derive(Debug, Clone)]
pub struct ScenarioFile {
    /// The scenario JSON file the binary reads.
    pub path: PathBuf,
    /// The JSON-lines event log the server appends to.
    pub event_log: PathBuf,
    /// The scenario that was written.
    pub scenario: Scenario,
}

impl ScenarioFile {
    /// Events the server(s) of this scenario logged so far (all processes, in order).
    pub fn events(&self) -> EventLog {
        EventLog::read(&self.event_log).unwrap_or_default()
    }

    /// Polls the event log until `condition` holds or `deadline` passes.
    pub async fn wait_for(
        &self,
        deadline: Duration,
        condition: impl Fn(&EventLog) -> bool,
    ) -> Result<EventLog, WaitError> {
        EventLog::wait_file(&self.event_log, deadline, condition).await
    }

    /// Arguments for the binary in stdio mode: `[<scenario path>]`.
    pub fn args(&self) -> Vec<String> {
        vec![self.path.display().to_string()]
    }

    /// A ready-to-spawn stdio command (`coyote-fake-mcp <scenario>`; stdio not configured).
    pub fn command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(fake_mcp_bin());
        cmd.arg(&self.path);
        cmd
    }

    /// The `tokio` flavour of [`ScenarioFile::command`].
    pub fn tokio_command(&self) -> tokio::process::Command {
        tokio::process::Command::from(self.command())
    }

    /// A stdio server spec named `name` running this scenario, with default timeouts.
    pub fn stdio_spec(&self, name: &str) -> McpServerSpec {
        McpServerSpec {
            name: name.to_owned(),
            transport: McpTransport::Stdio(StdioSpec {
                command: fake_mcp_bin().display().to_string(),
                args: self.args(),
                env: BTreeMap::new(),
                cwd: None,
            }),
            timeouts: Default::default(),
            approve: Default::default(),
            expose: Default::default(),
            retrieve: Default::default(),
            auto_approve: Vec::new(),
            client: Default::default(),
            limits: Default::default(),
            start: Default::default(),
            source: self.path.clone(),
        }
    }

    /// The mcp.json entry (`{"command": …, "args": […]}`) that runs this scenario.
    pub fn mcp_json_entry(&self) -> serde_json::Value {
        serde_json::json!({"command": fake_mcp_bin().display().to_string(), "args": self.args()})
    }
}

/// Path of the `coyote-fake-mcp` binary, building it on first use (see the module docs).
/// Panics with the command to run when it cannot be built: tests cannot proceed without it.
pub fn fake_mcp_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(path) = std::env::var_os(FAKE_MCP_BIN_ENV) {
            return PathBuf::from(path);
        }
        let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe failed: {e}"));
        // Test executables live in <target>/<profile>/deps/.
        let profile_dir = exe
            .parent()
            .filter(|d| d.ends_with("deps"))
            .and_then(Path::parent)
            .unwrap_or_else(|| exe.parent().unwrap_or(Path::new(".")))
            .to_owned();
        let bin = profile_dir.join(format!("coyote-fake-mcp{}", std::env::consts::EXE_SUFFIX));
        if is_fresh(&bin) {
            return bin;
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", "coyote-test-support", "--bin", "coyote-fake-mcp"]);
        if profile_dir.ends_with("release") {
            cmd.arg("--release");
        }
        if let Some(target_dir) = profile_dir.parent() {
            cmd.arg("--target-dir").arg(target_dir);
        }
        let status = cmd.status();
        match status {
            Ok(s) if s.success() && bin.exists() => bin,
            other => panic!(
                "could not build coyote-fake-mcp ({other:?}); run `cargo build -p coyote-test-support --bin \
                 coyote-fake-mcp` or set {FAKE_MCP_BIN_ENV} to the binary"
            ),
        }
    })
    .clone()
}

/// The binary exists and is newer than this crate's manifest and every file under `src/`.
fn is_fresh(bin: &Path) -> bool {
    fn newest(path: &Path, newest_seen: &mut std::time::SystemTime) {
        let Ok(meta) = std::fs::metadata(path) else {
            return;
        };
        if meta.is_dir() {
            for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
                newest(&entry.path(), newest_seen);
            }
        } else if let Ok(modified) = meta.modified() {
            *newest_seen = (*newest_seen).max(modified);
        }
    }
    let Ok(built) = std::fs::metadata(bin).and_then(|m| m.modified()) else {
        return false;
    };
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = std::time::SystemTime::UNIX_EPOCH;
    newest(&crate_dir.join("Cargo.toml"), &mut sources);
    newest(&crate_dir.join("src"), &mut sources);
    built >= sources
}
