//! The fake server over streamable HTTP on 127.0.0.1 (rmcp's `StreamableHttpService` in
//! axum), used by the binary's `--http` mode and by in-process HTTP tests.
//!
//! Raw-writing behaviours (garbage lines, raw results, `RawContents`) answer an error here:
//! HTTP has no line stream to corrupt. `Oversized` and `GeneratedBlob` are built in memory.
//! `Disconnect` is logged when a session's handler is dropped (session closed or expired).

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::events::{Event, EventSink};
use crate::in_process::FakeHandle;
use crate::scenario::Scenario;
use crate::server::{CrashMode, FakeServer, SessionGuard, Shared};

/// A running HTTP fake server; stopped on `shutdown()` or drop.
#[derive(Debug)]
pub struct FakeHttpServer {
    url: String,
    handle: FakeHandle,
    stop: CancellationToken,
}

impl FakeHttpServer {
    /// Binds 127.0.0.1 on an ephemeral port and serves `scenario` at `/mcp`. A `crash` tool
    /// answers an error (a test process cannot exit).
    pub async fn start(scenario: Scenario) -> std::io::Result<FakeHttpServer> {
        let events = Arc::new(EventSink::new(scenario.event_log.as_deref())?);
        start_with(
            scenario,
            events,
            CrashMode::CloseTransport,
            SocketAddr::from(([127, 0, 0, 1], 0)),
        )
        .await
    }

    /// [`FakeHttpServer::start`] on a given port of 127.0.0.1: a restarted server (stop the
    /// old one first; its sessions are unknown to this one). Retries for a while when the
    /// port is not free yet.
    pub async fn start_on(scenario: Scenario, port: u16) -> std::io::Result<FakeHttpServer> {
        let events = Arc::new(EventSink::new(scenario.event_log.as_deref())?);
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let mut attempts = 0;
        loop {
            match start_with(
                scenario.clone(),
                events.clone(),
                CrashMode::CloseTransport,
                addr,
            )
            .await
            {
                Err(e) if e.kind() == std::io::ErrorKind::AddrInUse && attempts < 100 => {
                    attempts += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                other => return other,
            }
        }
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server's events and live controls.
    pub fn handle(&self) -> &FakeHandle {
        &self.handle
    }

    /// Stops serving; open sessions end (also done on drop).
    pub fn shutdown(&self) {
        self.stop.cancel();
    }
}

impl Drop for FakeHttpServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

pub(crate) async fn start_with(
    scenario: Scenario,
    events: Arc<EventSink>,
    crash: CrashMode,
    bind: SocketAddr,
) -> std::io::Result<FakeHttpServer> {
    let listener = tokio::net::TcpListener::bind(bind).await?;
    let addr = listener.local_addr()?;
    let url = format!("http://{addr}/mcp");
    let stop = CancellationToken::new();
    let shared = Shared::new(scenario, events.clone(), crash);
    let session_events = events.clone();
    let service = StreamableHttpService::new(
        move || {
            Ok(FakeServer {
                shared: shared.clone(),
                raw: None,
                _session: Some(SessionGuard(session_events.clone())),
            })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token()),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let shutdown = stop.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await;
    });
    events.record(Event::Listening { url: url.clone() });
    Ok(FakeHttpServer {
        url,
        handle: FakeHandle { events, raw: None },
        stop,
    })
}
