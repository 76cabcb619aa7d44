//! Connecting to one server: build the transport for its spec (stdio child process, streamable
//! HTTP, or legacy HTTP+SSE — also tried when an entry without `type` has its streamable-HTTP
//! `initialize` POST refused with 400/404/405), run the `initialize` handshake under the startup deadline, and hand back a
//! [`Connection`] that knows when its transport ends and how to close itself.
//!
//! Invariants: startup (spawn/connect + initialize) never outlives `spec.timeouts.startup`; a
//! failed or timed-out start kills the child it spawned and reports its stderr tail; the
//! response cache of rmcp is disabled (it can serve stale lists on errors).

pub mod auth;
mod challenge;
mod client_tasks;
mod describe;
mod groups;
pub mod http;
mod layered;
pub mod line;
mod log_opt_in;
pub(crate) mod negotiate;
pub(crate) mod post;
mod remote;
mod restart;
mod scan;
pub(crate) mod sse;
mod sse_limit;
mod stderr;
pub(crate) mod stdio;
mod stream_ready;
pub(crate) mod task_tap;
mod typed;

use std::sync::Arc;
use std::time::Duration;

use coyote_protocol::{ClientFeatureSettings, McpServerSpec, McpTransport, ProtocolPin};
use rmcp::ClientCacheConfig;
use rmcp::service::{
    ClientInitializeError, RoleClient, RunningService, RxJsonRpcMessage, TxJsonRpcMessage,
};
use rmcp::transport::Transport;
use tokio::sync::watch;

use crate::client_handler::{ClientHooks, Generations, Handler};
use crate::error::{McpError, TimeoutPhase};
use crate::mrtr::InputResponder;
use crate::server::ShutdownTimeouts;
pub(crate) use describe::{
    classify_http, classify_http_error, describe_http_error, describe_transport_error,
    is_bad_request,
};
pub use groups::kill_every_process_group;
pub use negotiate::{Lifecycle, ProtocolRevisions};
use negotiate::{Negotiated, Plan, Refused};
use remote::{connect_http, connect_sse, refused_post};
use stdio::StdioProcess;

/// How long a failed start waits for the child's last stderr lines.
const STDERR_DRAIN_WAIT: Duration = Duration::from_millis(500);

/// What every connection needs besides its spec.
#[derive(Clone)]
pub(crate) struct ConnectOptions {
    pub(crate) hooks: ClientHooks,
    pub(crate) max_message_bytes: usize,
    pub(crate) auth: Arc<auth::AuthContext>,
    pub(crate) protocol: ProtocolRevisions,
    /// The handshake the server answered last time (from the catalog cache), if known.
    pub(crate) remembered: Option<Lifecycle>,
    /// Where a big binary `resources/read` blob is written while it arrives (the spill
    /// store); `None` keeps it in memory until it is rendered.
    pub(crate) blob_spill: Option<crate::render::SpillStore>,
}

impl ConnectOptions {
    /// The handshake plan for `spec`: its own `protocol` pin, else the runtime's revisions
    /// with what the cache remembers.
    pub(crate) fn plan(&self, spec: &McpServerSpec) -> Plan {
        let offered = match spec.start.protocol {
            Some(ProtocolPin::V2025_11_25) => ProtocolRevisions::Initialize,
            Some(ProtocolPin::V2026_07_28) => ProtocolRevisions::Discover,
            None => self.protocol,
        };
        Plan::new(offered, self.remembered)
    }
}

/// A failed start: the error plus whatever the child wrote to stderr.
#[derive(Debug)]
pub(crate) struct StartError {
    pub(crate) error: McpError,
    pub(crate) stderr_tail: String,
    /// The HTTP server answered the `initialize` POST with 400, 404 or 405: it may speak
    /// only the legacy HTTP+SSE transport.
    pub(crate) refused_post: bool,
}

impl From<McpError> for StartError {
    fn from(error: McpError) -> Self {
        StartError {
            error,
            stderr_tail: String::new(),
            refused_post: false,
        }
    }
}

/// A live, initialized connection.
pub(crate) struct Connection {
    pub(crate) service: RunningService<RoleClient, Handler>,
    pub(crate) process: Option<StdioProcess>,
    /// Becomes `true` once the transport stopped delivering messages (EOF, error, close).
    pub(crate) ended: watch::Receiver<bool>,
    pub(crate) generations: Arc<Generations>,
    /// The OAuth state of an HTTP server that signs in.
    pub(crate) auth: Option<Arc<auth::ServerAuth>>,
    /// The transport's label when it is not the spec's (`sse` after the fallback).
    pub(crate) transport: Option<&'static str>,
    /// Answers the requests of `input_required` results (a handler like the connection's).
    pub(crate) inputs: Option<Arc<dyn InputResponder>>,
    /// The handshake the server answered, when the start was free to choose.
    pub(crate) learned: Option<Lifecycle>,
}

impl Connection {
    /// A connection over a settled handshake, with rmcp's response cache off.
    async fn new(negotiated: Negotiated, generations: Arc<Generations>) -> Connection {
        let Negotiated {
            service,
            ended,
            learned,
        } = negotiated;
        disable_cache(&service).await;
        Connection {
            service,
            process: None,
            ended,
            generations,
            auth: None,
            transport: None,
            inputs: None,
            learned,
        }
    }

    /// Cancels the service loop, stops the child (stdin close → SIGTERM → SIGKILL of the
    /// group), then waits (bounded) for the loop to finish. A server with a timed-out call is
    /// stuck: its group is killed at once instead.
    pub(crate) async fn close(mut self, timeouts: ShutdownTimeouts) {
        self.service.cancellation_token().cancel();
        if let Some(process) = self.process.as_mut() {
            let timeouts = if self.generations.activity.any_timed_out() {
                tracing::info!(
                    server = %process.server(),
                    "a call to this MCP server timed out: killing its process group at once"
                );
                ShutdownTimeouts::AFTER_TIMEOUT
            } else {
                timeouts
            };
            process.shutdown(timeouts).await;
        }
        let wait = timeouts.after_stdin_close + timeouts.after_sigterm;
        let _ = self.service.close_with_timeout(wait).await;
    }
}

pub(crate) async fn connect(
    spec: &McpServerSpec,
    options: &ConnectOptions,
) -> Result<Connection, StartError> {
    let mut connection = connect_any(spec, options).await?;
    let responder = Handler::new(&spec.name, &options.hooks, &spec.client);
    connection.inputs = Some(Arc::new(responder));
    Ok(connection)
}

async fn connect_any(
    spec: &McpServerSpec,
    options: &ConnectOptions,
) -> Result<Connection, StartError> {
    let name = spec.name.as_str();
    let handler = Handler::new(name, &options.hooks, &spec.client);
    let generations = handler.generations();
    let startup = spec.timeouts.startup;
    let plan = options.plan(spec);
    match &spec.transport {
        McpTransport::Stdio(stdio_spec) => {
            let (mut transport, mut process) =
                stdio::spawn(name, stdio_spec, options.max_message_bytes)?;
            transport.tap_into(generations.clone());
            if let Some(store) = &options.blob_spill {
                transport.spill_blobs_into(store.clone());
            }
            let served = negotiate::serve(handler, transport, plan);
            match tokio::time::timeout(startup, served).await {
                Ok(Ok(negotiated)) => {
                    let mut connection = Connection::new(negotiated, generations).await;
                    connection.process = Some(process);
                    Ok(connection)
                }
                Ok(Err(refused)) => {
                    // Usually the child died; let it finish so the reason can say how.
                    let exit = process.wait_exit(STDERR_DRAIN_WAIT).await;
                    process.shutdown(ShutdownTimeouts::IMMEDIATE).await;
                    process.stderr().drained(STDERR_DRAIN_WAIT).await;
                    // A child that exited says so the same way whether rmcp saw the pipe close
                    // or failed to write `initialize` into it (a race the exit decides).
                    let mut message = match (&refused.error, &exit) {
                        (
                            ClientInitializeError::ConnectionClosed(_)
                            | ClientInitializeError::TransportError { .. },
                            Some(_),
                        ) => closed_before(refused.step),
                        _ => describe_init_error(&refused),
                    };
                    if let Some(exit) = exit {
                        message.push_str(&format!(" (the process {exit})"));
                    }
                    let error = McpError::Handshake {
                        server: name.to_owned(),
                        message,
                    };
                    Err(StartError {
                        error,
                        stderr_tail: process.stderr().describe(),
                        refused_post: false,
                    })
                }
                Err(_) => {
                    process.shutdown(ShutdownTimeouts::IMMEDIATE).await;
                    process.stderr().drained(STDERR_DRAIN_WAIT).await;
                    let error = startup_timeout(name, startup);
                    Err(StartError {
                        error,
                        stderr_tail: process.stderr().describe(),
                        refused_post: false,
                    })
                }
            }
        }
        McpTransport::Http(http_spec) => {
            let streamable = connect_http(name, (startup, plan), handler, http_spec, options).await;
            match streamable {
                Err(failed) if failed.refused_post && http_spec.fallback_to_sse => {
                    tracing::info!(
                        server = name,
                        "streamable HTTP refused the initialize POST; trying legacy SSE"
                    );
                    let handler = Handler::new(name, &options.hooks, &spec.client);
                    connect_sse(name, (startup, plan), handler, http_spec, options).await
                }
                other => other,
            }
        }
        McpTransport::Sse(http_spec) => {
            connect_sse(name, (startup, plan), handler, http_spec, options).await
        }
    }
}

/// Connects over an already-open byte stream (in-process servers, tests): the same line
/// transport and handshake as stdio, without a process.
pub(crate) async fn connect_stream<R, W>(
    name: &str,
    startup: Duration,
    (read, write): (R, W),
    options: &ConnectOptions,
) -> Result<Connection, StartError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let handler = Handler::new(name, &options.hooks, &ClientFeatureSettings::default());
    let generations = handler.generations();
    let mut transport = line::LineTransport::new(name, read, write, options.max_message_bytes);
    transport.tap_into(generations.clone());
    if let Some(store) = &options.blob_spill {
        transport.spill_blobs_into(store.clone());
    }
    let plan = Plan::new(options.protocol, options.remembered);
    match tokio::time::timeout(startup, negotiate::serve(handler, transport, plan)).await {
        Ok(Ok(negotiated)) => {
            let mut connection = Connection::new(negotiated, generations).await;
            connection.inputs = Some(Arc::new(Handler::new(
                name,
                &options.hooks,
                &ClientFeatureSettings::default(),
            )));
            Ok(connection)
        }
        Ok(Err(refused)) => Err(StartError::from(McpError::Handshake {
            server: name.to_owned(),
            message: describe_init_error(&refused),
        })),
        Err(_) => Err(StartError::from(startup_timeout(name, startup))),
    }
}

/// The `initialize` handshake of an HTTP server. A sign-in it triggers (interactive runtimes
/// only) is bounded by the login timeout, not by the startup timeout: the startup clock covers
/// the exchanges with the server, and the sign-in's own time is added to it.
async fn handshake<T>(
    name: &str,
    (startup, plan): (Duration, Plan),
    handler: Handler,
    transport: T,
    server_auth: Option<Arc<auth::ServerAuth>>,
) -> Result<Connection, StartError>
where
    T: Transport<RoleClient> + Send + 'static,
{
    let generations = handler.generations();
    let deadline = match &server_auth {
        Some(a) if matches!(a.sign_in, auth::SignIn::Interactive(_)) => startup + a.login_timeout,
        _ => startup,
    };
    match tokio::time::timeout(deadline, negotiate::serve(handler, transport, plan)).await {
        Ok(Ok(negotiated)) => {
            let mut connection = Connection::new(negotiated, generations).await;
            connection.auth = server_auth;
            Ok(connection)
        }
        Ok(Err(refused)) => {
            if let ClientInitializeError::TransportError { error, .. } = &refused.error
                && let Some(mapped) = classify_http(name, error, server_auth.is_some())
            {
                return Err(StartError::from(mapped));
            }
            let mut failed = StartError::from(McpError::Handshake {
                server: name.to_owned(),
                message: describe_init_error(&refused),
            });
            failed.refused_post = refused_post(&refused.error);
            Err(failed)
        }
        Err(_) => Err(StartError::from(startup_timeout(name, startup))),
    }
}

fn startup_timeout(server: &str, after: Duration) -> McpError {
    McpError::Timeout {
        server: server.to_owned(),
        phase: TimeoutPhase::Startup,
        after,
    }
}

async fn disable_cache(service: &RunningService<RoleClient, Handler>) {
    service
        .peer()
        .set_response_cache_config(ClientCacheConfig::disabled())
        .await;
}

/// Why a start failed when the server's connection closed before it answered `step`.
fn closed_before(step: Lifecycle) -> String {
    format!(
        "the connection closed before the server answered {}",
        negotiate::step_name(step)
    )
}

fn describe_init_error(refused: &Refused) -> String {
    let step = negotiate::step_name(refused.step);
    if refused.pinned_modern_refused {
        return format!(
            "the server does not speak protocol 2026-07-28, to which it is pinned ({step}: {}); \
             remove the pin (\"protocol\" in mcp.json, or COYOTE_MCP_PROTOCOL) so that coyote \
             falls back to 2025-11-25",
            describe_rmcp_error(&refused.error)
        );
    }
    match &refused.error {
        ClientInitializeError::ConnectionClosed(_) => closed_before(refused.step),
        ClientInitializeError::JsonRpcError(data) => {
            format!(
                "the server rejected {step}: {} (code {})",
                data.message, data.code.0
            )
        }
        other => describe_rmcp_error(other),
    }
}

fn describe_rmcp_error(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::JsonRpcError(data) => {
            format!("{} (code {})", data.message, data.code.0)
        }
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => {
            let versions: Vec<&str> = server_supported.iter().map(|v| v.as_str()).collect();
            format!("it supports {}", versions.join(", "))
        }
        ClientInitializeError::TransportError { error, .. } => describe_transport_error(error),
        other => other.to_string(),
    }
}

/// Wraps a transport to report when it stops delivering messages, so a crash is noticed at
/// once (no polling) and the server is marked `Failed`.
pub(crate) struct Observed<T> {
    inner: T,
    ended: watch::Sender<bool>,
}

impl<T> Observed<T> {
    pub(crate) fn new(inner: T) -> (Self, watch::Receiver<bool>) {
        let (ended, rx) = watch::channel(false);
        (Observed { inner, ended }, rx)
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Observed<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if message.is_none() {
            self.ended.send_replace(true);
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let result = self.inner.close().await;
        self.ended.send_replace(true);
        result
    }
}
