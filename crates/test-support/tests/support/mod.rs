//! Shared helpers: spawn the binary with piped stdio and connect rmcp's client to it.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, Result};
use coyote_test_support::ScenarioFile;
#[expect(deprecated)]
use rmcp::model::{
    ClientConfig, ElicitRequestParams, ElicitResult, LoggingMessageNotificationParam,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt as _;
use tokio::process::{Child, ChildStderr};

/// Generous deadline for anything the tests wait on (never asserted as a duration).
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A client that advertises elicitation and answers every elicitation with `answer`.
#[derive(Debug, Clone)]
pub struct TestClient {
    pub answer: Value,
    /// Server notifications received, as short names (`tools_list_changed`, `log:warning`, …).
    pub notices: Arc<Mutex<Vec<String>>>,
}

impl TestClient {
    pub fn answering(answer: Value) -> Self {
        TestClient {
            answer,
            ..TestClient::default()
        }
    }

    pub fn notices(&self) -> Vec<String> {
        self.notices.lock().expect("notices lock").clone()
    }

    fn note(&self, what: String) {
        self.notices.lock().expect("notices lock").push(what);
    }
}

impl Default for TestClient {
    fn default() -> Self {
        TestClient {
            answer: json!({"action": "decline"}),
            notices: Arc::default(),
        }
    }
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "fake-mcp-tests", "version": "0.0.0"}
        }))
        .expect("valid client info")
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(serde_json::from_value(self.answer.clone()).expect("valid ElicitResult"))
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.note("tools_list_changed".into());
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.note("resources_list_changed".into());
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.note("prompts_list_changed".into());
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.note(format!("resource_updated:{}", params.uri));
    }

    #[expect(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level).unwrap_or_default();
        self.note(format!("log:{}", level.as_str().unwrap_or("?")));
    }
}

pub struct Spawned {
    pub client: RunningService<RoleClient, TestClient>,
    pub child: Child,
}

/// Spawns the binary for `file` (stderr piped) without connecting.
pub fn spawn_raw(file: &ScenarioFile) -> Result<Child> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_coyote-fake-mcp"));
    cmd.arg(&file.path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd.spawn().context("spawn coyote-fake-mcp")
}

/// Spawns the binary and connects a client whose line limit is 128 MiB.
pub async fn connect(file: &ScenarioFile, handler: TestClient) -> Result<Spawned> {
    let mut child = spawn_raw(file)?;
    let stdout = child.stdout.take().context("stdout")?;
    let stdin = child.stdin.take().context("stdin")?;
    let transport = AsyncRwTransport::new_client(stdout, stdin).with_max_line_length(128 << 20);
    let client = tokio::time::timeout(DEADLINE, handler.serve(transport))
        .await
        .context("initialize timed out")??;
    Ok(Spawned { client, child })
}

pub async fn read_stderr(stderr: ChildStderr) -> String {
    let mut text = String::new();
    let mut stderr = stderr;
    let _ = tokio::time::timeout(DEADLINE, stderr.read_to_string(&mut text)).await;
    text
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}
