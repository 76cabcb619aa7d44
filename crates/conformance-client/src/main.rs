//! `coyote-conformance-client <url>`: the client side of the MCP conformance suite
//! (`@modelcontextprotocol/conformance`), run one scenario at a time. The scenario comes from
//! `MCP_CONFORMANCE_SCENARIO`; the runner passes the mock server's URL as the last argument.
//!
//! This is a thin shim over `coyote-mcp`'s public API: it has no protocol handling of its
//! own, so a passing scenario is evidence about the product's MCP client. The one thing it
//! adds is an elicitation hook that accepts and fills in every property's default — the
//! product never approves anything on the user's behalf; that behaviour exists only here.
//!
//! Exit codes: 0 the scenario ran, 1 it failed, 2 bad usage or an unknown scenario.
//! stdout is unused; diagnostics go to stderr.
#![allow(
    clippy::print_stderr,
    reason = "a one-module test shim: its diagnostics go to stderr, stdout is unused"
)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use coyote_mcp::{
    ClientIdentity, ElicitationHook, ElicitationRequest, ElicitationResponse, McpRuntime,
    RuntimeOptions, ServerHandle, ServerState,
};
use coyote_protocol::{HttpSpec, McpServerSpec, McpTransport, Timeouts};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

/// The scenarios this shim knows, and what each asks of the client.
#[derive(Debug, Clone, Copy)]
enum Scenario {
    /// Connect (initialize) and list tools.
    Initialize,
    /// Call `add_numbers {a, b}`.
    ToolsCall,
    /// Call `test_client_elicitation_defaults`; the hook accepts with the schema's defaults.
    ElicitationDefaults,
    /// Call `test_reconnection`; the answer arrives after an SSE reconnect.
    SseRetry,
}

impl Scenario {
    fn parse(name: &str) -> Option<Scenario> {
        match name {
            "initialize" => Some(Scenario::Initialize),
            "tools_call" => Some(Scenario::ToolsCall),
            "elicitation-sep1034-client-defaults" => Some(Scenario::ElicitationDefaults),
            "sse-retry" => Some(Scenario::SseRetry),
            _ => None,
        }
    }
}

const SERVER: &str = "conformance";
/// Generous per-step deadlines; the runner has its own overall timeout.
const STARTUP: Duration = Duration::from_secs(30);
const CALL: Duration = Duration::from_secs(30);

/// Accepts every form elicitation with each property's `default` (SEP-1034).
struct AcceptDefaults;

impl ElicitationHook for AcceptDefaults {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        let mut content = Map::new();
        if let Some(Value::Object(properties)) = request.requested_schema.get("properties") {
            for (name, property) in properties {
                if let Some(default) = property.get("default") {
                    content.insert(name.clone(), default.clone());
                }
            }
        }
        Box::pin(std::future::ready(ElicitationResponse::Accept(content)))
    }
}

fn spec(url: &str) -> McpServerSpec {
    McpServerSpec {
        name: SERVER.to_owned(),
        transport: McpTransport::Http(HttpSpec {
            url: url.to_owned(),
            headers: Vec::new(),
            bearer_token_env: None,
            oauth: Default::default(),
        }),
        timeouts: Timeouts {
            startup: STARTUP,
            call: CALL,
        },
        approve: Default::default(),
        expose: Default::default(),
        auto_approve: Vec::new(),
        source: "conformance".into(),
    }
}

async fn call(handle: &ServerHandle, tool: &str, args: Value) -> anyhow::Result<()> {
    let Value::Object(args) = args else {
        bail!("arguments must be an object")
    };
    let outcome = handle
        .call_tool(tool, args)
        .await
        .with_context(|| format!("calling {tool}"))?;
    if outcome.is_error {
        return Err(anyhow!("{tool} returned isError: {:?}", outcome.content));
    }
    eprintln!("{tool}: {:?}", outcome.content);
    Ok(())
}

async fn run(runtime: &McpRuntime, scenario: Scenario, url: &str) -> anyhow::Result<()> {
    runtime.start_all(vec![spec(url)]).await;
    let handle = match runtime.state(SERVER) {
        Some(ServerState::Ready) => runtime.server(SERVER)?,
        state => bail!("could not connect to {url}: {state:?}"),
    };
    match scenario {
        Scenario::Initialize => {
            let tools = handle.list_tools().await?;
            eprintln!(
                "initialized ({:?}); {} tools",
                handle.info().protocol_version,
                tools.len()
            );
        }
        Scenario::ToolsCall => call(&handle, "add_numbers", json!({"a": 2, "b": 3})).await?,
        Scenario::ElicitationDefaults => {
            call(&handle, "test_client_elicitation_defaults", json!({})).await?;
        }
        Scenario::SseRetry => call(&handle, "test_reconnection", json!({})).await?,
    }
    Ok(())
}

fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!(
            "usage: coyote-conformance-client <server-url> (with MCP_CONFORMANCE_SCENARIO set)"
        );
        return ExitCode::from(2);
    };
    let name = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(scenario) = Scenario::parse(&name) else {
        eprintln!(
            "unknown MCP_CONFORMANCE_SCENARIO {name:?}; supported: initialize, tools_call, \
             elicitation-sep1034-client-defaults, sse-retry"
        );
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        coyote_mcp::install_crypto_provider();
        let options = RuntimeOptions {
            client: ClientIdentity {
                name: "coyote-conformance-client".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
            },
            elicitation: Arc::new(AcceptDefaults),
            ..RuntimeOptions::default()
        };
        let mcp = McpRuntime::new(options);
        let result = run(&mcp, scenario, &url).await;
        // Always close the connection before exiting (never rely on Drop).
        mcp.shutdown().await;
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("scenario {name} failed: {error:#}");
                ExitCode::FAILURE
            }
        }
    })
}
