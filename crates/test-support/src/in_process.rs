//! The fake server inside the test process, over two `tokio::io::duplex` pipes.
//!
//! [`in_process`] returns the client's ends — `(read, write)`, usable directly as an rmcp
//! client transport (`().serve(halves)`) or wrapped in `AsyncRwTransport::new_client(r, w)` —
//! and a [`FakeHandle`] for the counters. Each direction is its own pipe so closing the
//! server's writer is a clean end of stream for the client (a crash), and dropping the
//! client's ends is a disconnect for the server. Must be called inside a tokio runtime.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;
use tokio::io::DuplexStream;

use crate::events::{EventLog, EventSink, WaitError};
use crate::scenario::{Scenario, StartupMode};
use crate::server::{CrashMode, FakeServer, Shared};
use crate::transport::{FakeTransport, RawOut};

/// Capacity of each in-process pipe: large messages flow through it in pieces.
const PIPE_CAPACITY: usize = 1 << 20;

/// The client's ends: `(read, write)`.
pub type ClientHalves = (DuplexStream, DuplexStream);

/// Observes (and can crash) a fake server.
#[derive(Debug, Clone)]
pub struct FakeHandle {
    pub(crate) events: Arc<EventSink>,
    pub(crate) raw: Option<RawOut>,
}

impl FakeHandle {
    /// Everything observed so far.
    pub fn events(&self) -> EventLog {
        self.events.snapshot()
    }

    /// Waits until `condition` holds on the events (re-checked on every new event), or fails
    /// with the events seen once `deadline` passes.
    pub async fn wait_for(
        &self,
        deadline: Duration,
        condition: impl Fn(&EventLog) -> bool,
    ) -> Result<EventLog, WaitError> {
        let mut changed = self.events.subscribe();
        let wait = async {
            loop {
                let log = self.events.snapshot();
                if condition(&log) {
                    return log;
                }
                if changed.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::time::timeout(deadline, wait)
            .await
            .map_err(|_| WaitError::Timeout {
                after: deadline,
                events: self.events.snapshot().events,
            })
    }

    /// Closes the server's side at once, like a crashed process (line transports only;
    /// a no-op over HTTP).
    pub async fn kill(&self) {
        if let Some(raw) = &self.raw {
            raw.kill().await;
        }
    }
}

/// Starts a fake server for `scenario` on in-process pipes.
pub fn in_process(scenario: Scenario) -> (ClientHalves, FakeHandle) {
    let (client_read, server_write) = tokio::io::duplex(PIPE_CAPACITY);
    let (server_read, client_write) = tokio::io::duplex(PIPE_CAPACITY);
    // A log file is optional in-process; failing to open it is a test bug worth seeing.
    let events = Arc::new(
        EventSink::new(scenario.event_log.as_deref())
            .unwrap_or_else(|e| panic!("cannot open the scenario's event log: {e}")),
    );
    let transport = FakeTransport::new(server_read, server_write, events.clone());
    let raw = transport.raw_out();
    let handle = FakeHandle {
        events: events.clone(),
        raw: Some(raw.clone()),
    };
    let delay = Duration::from_millis(scenario.startup.delay_ms);
    let crash_at_start = matches!(scenario.startup.mode, StartupMode::CrashAtStart { .. });
    let shared = Shared::new(scenario, events, CrashMode::CloseTransport);
    tokio::spawn(async move {
        if crash_at_start {
            raw.kill().await;
            return;
        }
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let server = FakeServer {
            shared,
            raw: Some(raw),
            _session: None,
        };
        if let Ok(running) = server.serve(transport).await {
            let _ = running.waiting().await;
        }
    });
    ((client_read, client_write), handle)
}
