//! Test harness: a loopback Coolify fixture, the server in-process, and an rmcp client
//! connected over an in-memory duplex pipe. The client's elicitation behaviour is chosen
//! per test and every elicitation message it receives is recorded.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Result;
use coolify_fixture::{FIXTURE_TOKEN, Fixture};
use coolify_mcp::config::{AccessMode, ElicitationSetting, HumanPolicy, InstanceSpec, TokenSource};
use coolify_mcp::{BackendFactory, CoolifyServer, ServerOptions, Timing};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    GetPromptRequestParams, ReadResourceRequestParams,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};

/// How the test client answers `elicitation/create`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Human {
    /// The client does not advertise the elicitation capability.
    Absent,
    Accept,
    Decline,
    Cancel,
    /// Never answers (timeout tests).
    Silent,
    /// Answers `elicitation/create` with a JSON-RPC error (-32603 "Elicitation failed").
    Fails,
}

#[derive(Clone)]
pub struct TestClient {
    human: Human,
    pub asked: Arc<Mutex<Vec<Value>>>,
    pub progress: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for TestClient {
    async fn on_cancelled(
        &self,
        params: rmcp::model::CancelledNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push(json!({"cancelled": serde_json::to_value(&params).unwrap()}));
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        let action = match self.human {
            Human::Accept => ElicitationAction::Accept,
            Human::Decline | Human::Absent => ElicitationAction::Decline,
            Human::Cancel => ElicitationAction::Cancel,
            Human::Silent => {
                std::future::pending::<()>().await;
                unreachable!()
            }
            Human::Fails => return Err(ErrorData::internal_error("Elicitation failed", None)),
        };
        Ok(serde_json::from_value(json!({"action": action})).unwrap())
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push(serde_json::to_value(&params).unwrap());
    }

    fn get_info(&self) -> ClientConfig {
        let caps = if self.human == Human::Absent {
            json!({})
        } else {
            json!({"elicitation": {}})
        };
        serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": caps,
            "clientInfo": {"name": "coolify-mcp-tests", "version": "1"}
        }))
        .unwrap()
    }
}

/// What a test needs from the server.
#[derive(Clone)]
pub struct Setup {
    pub human: Human,
    pub access: AccessMode,
    pub policy: HumanPolicy,
    pub elicitation: ElicitationSetting,
    /// Extra instances (fleet mode when non-empty): `(name, url)`; `None` url = the fixture.
    pub extra: Vec<(String, Option<String>)>,
    pub timing: Timing,
    /// Name of the first (default) instance.
    pub default_name: String,
    /// Request timeout of every instance's client (default: the production default).
    pub request_timeout: Option<Duration>,
    /// Audit lines (default off).
    pub audit: coolify_mcp::audit::Audit,
    /// The 2026-07-28 confirmation seal (default: a per-process key, the system clock).
    pub seal: Option<coolify_mcp::request_state::ConfirmationSeal>,
    /// The default instance's URL when it is not the fixture's.
    pub base_url: Option<String>,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            human: Human::Absent,
            access: AccessMode::ReadWrite,
            policy: HumanPolicy::AskWhenPossible,
            elicitation: ElicitationSetting::Enabled,
            extra: Vec::new(),
            timing: Timing::default(),
            default_name: "default".into(),
            request_timeout: None,
            audit: coolify_mcp::audit::Audit::off(),
            seal: None,
            base_url: None,
        }
    }
}

impl Setup {
    pub fn human(mut self, h: Human) -> Self {
        self.human = h;
        self
    }
    pub fn read_only(mut self) -> Self {
        self.access = AccessMode::ReadOnly;
        self
    }
    pub fn require_human(mut self) -> Self {
        self.policy = HumanPolicy::RequireHuman;
        self
    }
    pub fn elicitation_off(mut self) -> Self {
        self.elicitation = ElicitationSetting::Off;
        self
    }
    pub fn fleet(mut self) -> Self {
        self.extra.push(("staging".into(), None));
        self
    }
    /// The default instance points at `url` instead of the fixture (e.g. a closed port).
    pub fn base_url(mut self, url: &str) -> Self {
        self.base_url = Some(url.into());
        self
    }
    pub fn instance(mut self, name: &str, url: Option<String>) -> Self {
        self.extra.push((name.into(), url));
        self
    }
}

pub struct Harness {
    pub fixture: Fixture,
    pub server: CoolifyServer,
    pub client: RunningService<RoleClient, TestClient>,
    pub asked: Arc<Mutex<Vec<Value>>>,
    pub progress: Arc<Mutex<Vec<Value>>>,
}

/// HTTP on a free loopback port behind a static bearer `token` (sessions unless `stateless`).
pub fn bearer_http(token: &str, stateless: bool) -> coolify_mcp::config::HttpSpec {
    coolify_mcp::config::HttpSpec {
        bind: "127.0.0.1:0".parse().unwrap(),
        auth: coolify_mcp::config::HttpAuth::Bearer(token.into()),
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        oauth: None,
        stateless,
    }
}

pub fn spec(name: &str, url: &str) -> InstanceSpec {
    InstanceSpec::new(name, url, TokenSource::Value(FIXTURE_TOKEN.into()))
}

pub fn factory() -> BackendFactory {
    Arc::new(coolify_mcp::backend_impl::make_backend)
}

pub fn build_server(fixture_url: &str, setup: &Setup) -> CoolifyServer {
    let default_url = setup.base_url.as_deref().unwrap_or(fixture_url);
    let mut instances = vec![spec(&setup.default_name, default_url)];
    for (name, url) in &setup.extra {
        instances.push(spec(name, url.as_deref().unwrap_or(fixture_url)));
    }
    if let Some(t) = setup.request_timeout {
        for (i, instance) in instances.iter_mut().enumerate() {
            instance.request_timeout = t;
            if i > 0 {
                instance.timeout_setting = format!("COOLIFY_INSTANCES[{}].request_timeout", i - 1);
            }
        }
    }
    CoolifyServer::new(ServerOptions {
        instances,
        access: setup.access,
        human: setup.policy,
        elicitation: setup.elicitation,
        timing: setup.timing.clone(),
        factory: factory(),
        audit: setup.audit.clone(),
        seal: setup.seal.clone(),
    })
    .expect("server builds")
}

impl Harness {
    pub async fn start(setup: Setup) -> Result<Self> {
        Self::with_fixture(Fixture::start().await?, setup).await
    }

    pub async fn with_fixture(fixture: Fixture, setup: Setup) -> Result<Self> {
        let server = build_server(fixture.url(), &setup);
        let (a, b) = tokio::io::duplex(1 << 22);
        let srv = server.clone();
        tokio::spawn(async move {
            if let Ok(running) = srv.serve(coolify_mcp::wire::outgoing(a)).await {
                let _ = running.waiting().await;
            }
        });
        let asked = Arc::new(Mutex::new(Vec::new()));
        let progress = Arc::new(Mutex::new(Vec::new()));
        let client = TestClient {
            human: setup.human,
            asked: asked.clone(),
            progress: progress.clone(),
        }
        .serve(b)
        .await?;
        Ok(Self {
            fixture,
            server,
            client,
            asked,
            progress,
        })
    }

    /// `tools/call` → the single text block (and whether `isError` was set).
    pub async fn call_raw(&self, name: &str, args: Value) -> Result<(String, bool)> {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = Some(as_map(args));
        let r = self.client.peer().call_tool(params).await?;
        let v = serde_json::to_value(&r)?;
        let text = v["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        Ok((text, v["isError"] == true))
    }

    /// `tools/call` → text (asserting no `isError`).
    pub async fn call(&self, name: &str, args: Value) -> String {
        let (text, is_error) = self
            .call_raw(name, args)
            .await
            .expect("tools/call succeeds");
        assert!(!is_error, "{name} returned isError: {text}");
        text
    }

    /// `tools/call` → parsed JSON text.
    pub async fn call_json(&self, name: &str, args: Value) -> Value {
        let text = self.call(name, args).await;
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{name} text is not JSON ({e}): {text}"))
    }

    pub async fn tools(&self) -> Vec<Value> {
        let r = self
            .client
            .peer()
            .list_tools(None)
            .await
            .expect("tools/list");
        serde_json::to_value(&r).unwrap()["tools"]
            .as_array()
            .unwrap()
            .clone()
    }

    pub async fn tool_names(&self) -> Vec<String> {
        self.tools()
            .await
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    pub async fn prompts(&self) -> Vec<Value> {
        let r = self
            .client
            .peer()
            .list_prompts(None)
            .await
            .expect("prompts/list");
        serde_json::to_value(&r).unwrap()["prompts"]
            .as_array()
            .unwrap()
            .clone()
    }

    pub async fn prompt(&self, name: &str, args: Value) -> Result<Value, rmcp::ServiceError> {
        let mut p: GetPromptRequestParams = serde_json::from_value(json!({"name": name})).unwrap();
        p.arguments = Some(as_map(args));
        let r = self.client.peer().get_prompt(p).await?;
        Ok(serde_json::to_value(&r).unwrap())
    }

    pub async fn prompt_text(&self, name: &str, args: Value) -> String {
        let v = self.prompt(name, args).await.expect("prompts/get");
        assert_eq!(v["messages"].as_array().unwrap().len(), 1);
        assert_eq!(v["messages"][0]["role"], "user");
        v["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub async fn resources(&self) -> Vec<Value> {
        let r = self
            .client
            .peer()
            .list_resources(None)
            .await
            .expect("resources/list");
        serde_json::to_value(&r).unwrap()["resources"]
            .as_array()
            .unwrap()
            .clone()
    }

    pub async fn templates(&self) -> Vec<Value> {
        let r = self
            .client
            .peer()
            .list_resource_templates(None)
            .await
            .expect("resources/templates/list");
        serde_json::to_value(&r).unwrap()["resourceTemplates"]
            .as_array()
            .unwrap()
            .clone()
    }

    pub async fn read(&self, uri: &str) -> Result<Value, rmcp::ServiceError> {
        let p: ReadResourceRequestParams = serde_json::from_value(json!({"uri": uri})).unwrap();
        let r = self.client.peer().read_resource(p).await?;
        Ok(serde_json::to_value(&r).unwrap())
    }

    pub async fn read_text(&self, uri: &str) -> String {
        let v = self.read(uri).await.expect("resources/read");
        v["contents"][0]["text"].as_str().unwrap().to_string()
    }

    /// Requests the fixture saw, as `METHOD /path?query`.
    pub fn log(&self) -> Vec<String> {
        self.fixture
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path_and_query()))
            .collect()
    }

    pub fn progress(&self) -> Vec<Value> {
        self.progress.lock().unwrap().clone()
    }

    pub fn asked(&self) -> Vec<Value> {
        self.asked.lock().unwrap().clone()
    }
}

pub fn as_map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The JSON-RPC error of a failed request (code, message).
pub fn rpc_error(e: &rmcp::ServiceError) -> (i32, String) {
    match e {
        rmcp::ServiceError::McpError(d) => (d.code.0, d.message.to_string()),
        other => (0, other.to_string()),
    }
}

/// A short timing profile for tests that wait on purpose.
pub fn quick_timing() -> Timing {
    Timing {
        elicitation_timeout: Duration::from_millis(200),
        progress_interval: Duration::from_millis(50),
        deploy_poll_interval: Duration::from_millis(10),
        deploy_deadline: None,
        listing_deadline: Duration::from_millis(300),
        task_poll_interval: Duration::from_millis(10),
    }
}
