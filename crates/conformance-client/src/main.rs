//! `coyote-conformance-client <url>`: the client side of the MCP conformance suite
//! (`@modelcontextprotocol/conformance`), run one scenario at a time. The scenario comes from
//! `MCP_CONFORMANCE_SCENARIO`; the runner passes the mock server's URL as the last argument.
//!
//! This is a thin shim over `coyote-mcp`'s public API: it has no protocol handling of its
//! own, so a passing scenario is evidence about the product's MCP client. It adds two things
//! the product never does on a person's behalf: an elicitation hook that accepts and fills in
//! every property's default, and a headless sign-in authorizer that GETs the authorization URL
//! without following the redirect and takes `code` from its `Location` (the suite's mock
//! authorization server approves at once). Auth scenarios (`auth/…`) connect, list the tools
//! and call each one; credentials the suite hands out (`MCP_CONFORMANCE_CONTEXT`) become the
//! server entry's `oauth` settings, exactly as a user would write them in mcp.json (a workload
//! JWT or an ID token goes into a 0600 file of a private temporary directory, read through
//! `assertionFile` / `idTokenFile`, and deleted when the shim exits).
//!
//! Exit codes: 0 the scenario ran, 1 it failed, 2 bad usage or an unknown scenario.
//! stdout is unused; diagnostics go to stderr.
#![expect(
    clippy::print_stderr,
    reason = "a test shim: its diagnostics go to stderr, stdout is unused"
)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use coyote_mcp::auth::{
    AuthFailure, AuthOptions, AuthorizationPrompt, Authorizer, BeginRequest, PendingSignIn,
    RedirectParams, SignIn, TokenStoreChoice,
};
use coyote_mcp::{
    ClientIdentity, ElicitationHook, ElicitationRequest, ElicitationResponse, McpRuntime,
    ProtocolRevisions, RuntimeOptions, ServerHandle, ServerState,
};
use coyote_protocol::{
    ClientCredentials, EnterpriseIdp, HttpSpec, McpServerSpec, McpTransport, OAuthGrant, OAuthSpec,
    PrivateKey, Timeouts, TokenSource,
};
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

mod skills;

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
    /// Sign in as the scenario requires, list the tools and call each one.
    Auth,
    /// The 2026-07-28 client scenarios: list tools, call the ones the context names (else
    /// each listed tool), list and read resources, list and get prompts. A failed call is
    /// reported, not fatal: the scenario's checks judge what was sent.
    Exercise,
    /// List the tools and send the focal tool's `inputSchema` back through the echo tool.
    SchemaEcho,
    /// Skills over MCP (`sep-2640-client-…`): list them, or list and load them (see `skills`).
    Skills(skills::Use),
}

impl Scenario {
    fn parse(name: &str) -> Option<Scenario> {
        match name {
            "initialize" => Some(Scenario::Initialize),
            "tools_call" => Some(Scenario::ToolsCall),
            "elicitation-sep1034-client-defaults" => Some(Scenario::ElicitationDefaults),
            "sse-retry" => Some(Scenario::SseRetry),
            name if name.starts_with("auth/") => Some(Scenario::Auth),
            "request-metadata"
            | "sep-2322-client-request-state"
            | "http-standard-headers"
            | "http-custom-headers"
            | "http-invalid-tool-headers"
            | "json-schema-ref-no-deref" => Some(Scenario::Exercise),
            "json-schema-2020-12-preservation" => Some(Scenario::SchemaEcho),
            name => skills::scenario(name).map(Scenario::Skills),
        }
    }
}

const SERVER: &str = "conformance";
/// Generous per-step deadlines; the runner has its own overall timeout.
const STARTUP: Duration = Duration::from_secs(30);
const CALL: Duration = Duration::from_secs(30);
/// Bound of one headless sign-in.
const SIGN_IN: Duration = Duration::from_secs(20);

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

/// The client identity URL the suite's CIMD scenario expects (used only where an
/// authorization server supports Client ID Metadata Documents).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// Where the headless authorizer says the redirect goes (nothing listens: the `Location` of
/// the authorization endpoint's answer is read instead).
const HEADLESS_REDIRECT_URI: &str = "http://localhost:3000/callback";

/// What the suite hands out in `MCP_CONFORMANCE_CONTEXT`.
#[derive(Debug, Default, Deserialize)]
struct Context {
    client_id: Option<String>,
    client_secret: Option<String>,
    private_key_pem: Option<String>,
    signing_algorithm: Option<String>,
    /// Workload identity: the platform JWT (`auth/wif-jwt-bearer`).
    valid_jwt: Option<String>,
    /// Enterprise-managed authorization: the identity provider and the user's ID token.
    idp_issuer: Option<String>,
    idp_client_id: Option<String>,
    idp_id_token: Option<String>,
    /// Calls a scenario asks for (`http-custom-headers`).
    #[serde(rename = "toolCalls")]
    tool_calls: Option<Vec<ToolCall>>,
}

/// One call the suite asks the client to make.
#[derive(Debug, Clone, Deserialize)]
struct ToolCall {
    name: String,
    #[serde(default)]
    arguments: Value,
}

fn context() -> anyhow::Result<Context> {
    match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text).context("MCP_CONFORMANCE_CONTEXT is not JSON"),
        Err(_) => Ok(Context::default()),
    }
}

/// A private directory for the tokens the suite hands out; deleted on drop.
struct TokenDir(std::path::PathBuf);

impl TokenDir {
    fn new() -> anyhow::Result<Self> {
        let dir = std::env::temp_dir().join(format!("coyote-conformance-{}", std::process::id()));
        std::fs::create_dir_all(&dir).context("creating the token directory")?;
        set_mode(&dir, 0o700)?;
        Ok(TokenDir(dir))
    }

    /// Writes `token` to a 0600 file named `name` and says where.
    fn file(&self, name: &str, token: &str) -> anyhow::Result<TokenSource> {
        let path = self.0.join(name);
        std::fs::write(&path, token).context("writing a token file")?;
        set_mode(&path, 0o600)?;
        Ok(TokenSource::File(path))
    }
}

impl Drop for TokenDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(unix)]
fn set_mode(path: &std::path::Path, mode: u32) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .context("restricting a token file")
}

#[cfg(not(unix))]
fn set_mode(_: &std::path::Path, _: u32) -> anyhow::Result<()> {
    Ok(())
}

/// The entry's `oauth` object for a scenario, as a user would configure it.
fn oauth(name: &str, context: Context, tokens: &TokenDir) -> anyhow::Result<OAuthSpec> {
    let mut oauth = OAuthSpec {
        client_id: context.client_id,
        client_secret: context.client_secret,
        client_metadata_url: Some(CLIENT_METADATA_URL.to_owned()),
        ..OAuthSpec::default()
    };
    if name.starts_with("auth/client-credentials") {
        oauth.grant = OAuthGrant::ClientCredentials(ClientCredentials {
            private_key: context.private_key_pem.map(PrivateKey::Pem),
            signing_algorithm: context.signing_algorithm,
        });
    } else if name == "auth/wif-jwt-bearer" {
        let jwt = context.valid_jwt.context("the context has no valid_jwt")?;
        oauth.grant = OAuthGrant::JwtBearer(tokens.file("workload.jwt", &jwt)?);
    } else if name == "auth/enterprise-managed-authorization" {
        let id_token = context
            .idp_id_token
            .context("the context has no idp_id_token")?;
        oauth.grant = OAuthGrant::Enterprise(EnterpriseIdp {
            issuer: context
                .idp_issuer
                .context("the context has no idp_issuer")?,
            client_id: context.idp_client_id,
            client_secret: None,
            id_token: tokens.file("id-token.jwt", &id_token)?,
        });
    }
    Ok(oauth)
}

/// GETs the authorization URL without following the redirect; `code` comes from `Location`.
struct Headless {
    http: reqwest::Client,
}

struct HeadlessSignIn {
    http: reqwest::Client,
}

impl Authorizer for Headless {
    fn begin<'a>(
        &'a self,
        _request: BeginRequest<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn PendingSignIn>, AuthFailure>> {
        let pending = HeadlessSignIn {
            http: self.http.clone(),
        };
        Box::pin(std::future::ready(Ok(
            Box::new(pending) as Box<dyn PendingSignIn>
        )))
    }
}

impl PendingSignIn for HeadlessSignIn {
    fn redirect_uri(&self) -> &str {
        HEADLESS_REDIRECT_URI
    }

    fn finish(
        self: Box<Self>,
        prompt: AuthorizationPrompt,
    ) -> BoxFuture<'static, Result<RedirectParams, AuthFailure>> {
        Box::pin(async move {
            let failed = |reason: String| AuthFailure::Authorizer { reason };
            let response = self
                .http
                .get(&prompt.authorization_url)
                .send()
                .await
                .map_err(|e| failed(format!("GET of the authorization URL failed: {e}")))?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    failed(format!(
                        "the authorization endpoint answered {} without a redirect",
                        response.status()
                    ))
                })?;
            RedirectParams::from_url(location)
        })
    }
}

fn spec(url: &str, oauth: OAuthSpec) -> McpServerSpec {
    McpServerSpec {
        name: SERVER.to_owned(),
        transport: McpTransport::Http(HttpSpec {
            url: url.to_owned(),
            headers: Vec::new(),
            bearer_token_env: None,
            oauth,
            fallback_to_sse: false,
        }),
        timeouts: Timeouts {
            startup: STARTUP,
            call: CALL,
        },
        approve: Default::default(),
        expose: Default::default(),
        retrieve: Default::default(),
        auto_approve: Vec::new(),
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
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

/// [`Scenario::Exercise`]: every kind of request the scenario's mock may check.
async fn exercise(handle: &ServerHandle, calls: Option<Vec<ToolCall>>) -> anyhow::Result<()> {
    let tools = handle.list_tools().await?;
    eprintln!(
        "{:?}; {} tools",
        handle.info().protocol_version,
        tools.len()
    );
    let calls = calls.unwrap_or_else(|| {
        tools
            .iter()
            .map(|t| ToolCall {
                name: t.name.clone(),
                arguments: json!({}),
            })
            .collect()
    });
    for c in calls {
        let args = if c.arguments.is_object() {
            c.arguments
        } else {
            json!({})
        };
        if let Err(error) = call(handle, &c.name, args).await {
            eprintln!("{error:#}");
        }
    }
    if let Ok(resources) = handle.list_resources().await {
        for r in resources {
            let read = handle.read_resource(&r.uri).await;
            eprintln!("read {}: {}", r.uri, read.is_ok());
        }
    }
    if let Ok(prompts) = handle.list_prompts().await {
        for p in prompts {
            let got = handle.get_prompt(&p.name, Default::default()).await;
            eprintln!("prompt {}: {}", p.name, got.is_ok());
        }
    }
    Ok(())
}

/// [`Scenario::SchemaEcho`]: the echo tool takes `{schema}`; the other tool is the focal one.
async fn schema_echo(handle: &ServerHandle) -> anyhow::Result<()> {
    let tools = handle.list_tools().await?;
    let is_echo = |t: &&coyote_mcp::ToolInfo| {
        t.input_schema
            .pointer("/properties/schema")
            .is_some_and(|_| t.input_schema["required"] == json!(["schema"]))
    };
    let echo = tools.iter().find(is_echo).context("no echo tool listed")?;
    let focal = tools
        .iter()
        .find(|t| !is_echo(t))
        .context("no focal tool listed")?;
    call(
        handle,
        &echo.name,
        json!({"schema": focal.input_schema.clone()}),
    )
    .await
}

async fn run(
    runtime: &McpRuntime,
    scenario: Scenario,
    url: &str,
    name: &str,
) -> anyhow::Result<()> {
    let mut context = context()?;
    let calls = context.tool_calls.take();
    let tokens = TokenDir::new()?;
    let oauth = oauth(name, context, &tokens)?;
    runtime.start_all(vec![spec(url, oauth)]).await;
    let handle = match runtime.state(SERVER) {
        Some(ServerState::Ready) => runtime.server(SERVER)?,
        Some(ServerState::Failed(reason)) => bail!("could not connect to {url}: {reason}"),
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
        Scenario::Auth => {
            let tools = handle.list_tools().await?;
            eprintln!("signed in; {} tools", tools.len());
            for tool in tools {
                call(&handle, &tool.name, json!({})).await?;
            }
        }
        Scenario::Exercise => exercise(&handle, calls).await?,
        Scenario::SchemaEcho => schema_echo(&handle).await?,
        Scenario::Skills(how) => skills::run(&handle, how).await?,
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
             elicitation-sep1034-client-defaults, sse-retry, auth/…, request-metadata, \
             sep-2322-client-request-state, http-standard-headers, http-custom-headers, \
             http-invalid-tool-headers, json-schema-ref-no-deref, json-schema-2020-12-preservation, \
             sep-2640-client-no-prefetch, sep-2640-client-verify-*"
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
        let http = match reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(SIGN_IN)
            .build()
        {
            Ok(http) => http,
            Err(e) => {
                eprintln!("cannot build an HTTP client: {e}");
                return ExitCode::FAILURE;
            }
        };
        let options = RuntimeOptions {
            client: ClientIdentity {
                name: "coyote-conformance-client".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
            },
            elicitation: Arc::new(AcceptDefaults),
            auth: AuthOptions {
                store: TokenStoreChoice::Memory,
                sign_in: SignIn::Interactive(Arc::new(Headless { http })),
                login_timeout: SIGN_IN,
                client_name: "coyote-conformance-client".to_owned(),
                warn: None,
                progress: None,
            },
            protocol: match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
                Ok("2026-07-28") => ProtocolRevisions::Newest,
                _ => ProtocolRevisions::Initialize,
            },
            ..RuntimeOptions::default()
        };
        let mcp = McpRuntime::new(options);
        let result = run(&mcp, scenario, &url, &name).await;
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
