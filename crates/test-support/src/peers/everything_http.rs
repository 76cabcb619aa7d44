//! server-everything over HTTP ([`ServerEverythingHttp`]): started on a free 127.0.0.1 port
//! (another port when Node loses the race for it), ready once it accepts TCP connections, and
//! killed with its whole process group when the guard drops (the invariants of [`super`]).

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::{
    HTTP_READY_DEADLINE, OutputTail, PORT_ATTEMPTS, PeerError, READY_POLL, SERVER_EVERYTHING,
    accepts_connections, free_port, kill_process_group, node_options, server_everything_entry,
    system_node,
};

/// server-everything in `streamableHttp` (or legacy `sse`) mode on a free 127.0.0.1 port. The
/// whole process group is killed when this guard drops.
pub struct ServerEverythingHttp {
    child: Child,
    port: u16,
    output: OutputTail,
    /// `/mcp` (streamable HTTP) or `/sse` (legacy SSE).
    path: &'static str,
}

impl fmt::Debug for ServerEverythingHttp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerEverythingHttp")
            .field("pid", &self.child.id())
            .field("port", &self.port)
            .finish()
    }
}

impl ServerEverythingHttp {
    /// Starts the server and blocks until it accepts TCP connections on 127.0.0.1 (at most
    /// [`HTTP_READY_DEADLINE`]). Blocking: from async tests call it before other work starts
    /// or through `spawn_blocking`.
    pub fn start() -> Result<Self, PeerError> {
        Self::start_mode("streamableHttp", "/mcp")
    }

    /// [`ServerEverythingHttp::start`] in the legacy HTTP+SSE mode (`sse`): GET `/sse` opens the
    /// event stream, messages are POSTed to `/message`.
    pub fn start_sse() -> Result<Self, PeerError> {
        Self::start_mode("sse", "/sse")
    }

    fn start_mode(mode: &'static str, path: &'static str) -> Result<Self, PeerError> {
        let entry = server_everything_entry()?;
        let node = system_node()?;
        let mut last_error = None;
        for _ in 0..PORT_ATTEMPTS {
            match Self::start_on_free_port(&node, &entry, mode, path) {
                Ok(server) => return Ok(server),
                Err(StartError::PortTaken(err)) => last_error = Some(err),
                Err(StartError::Fatal(err)) => return Err(err),
            }
        }
        Err(last_error.unwrap_or(PeerError::NotReady {
            peer: SERVER_EVERYTHING,
            reason: "no free port".to_owned(),
            output_tail: String::new(),
        }))
    }

    /// The MCP endpoint, `http://127.0.0.1:<port>/mcp` (`/sse` in the legacy mode).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}{}", self.port, self.path)
    }

    /// The port it listens on at 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The last bytes the server wrote to stdout/stderr (for assertion messages).
    pub fn output_tail(&self) -> String {
        self.output.snapshot()
    }

    /// Kills the server (its whole process group) and starts a new one on the same port, as
    /// a restarted deployment would: sessions of the old one are unknown to the new one.
    /// Retries while the port is still taken.
    pub fn restart(&mut self) -> Result<(), PeerError> {
        self.kill();
        let entry = server_everything_entry()?;
        let node = system_node()?;
        let mut last_error = None;
        for _ in 0..PORT_ATTEMPTS {
            let mode = if self.path == "/sse" {
                "sse"
            } else {
                "streamableHttp"
            };
            match Self::start_on_port(&node, &entry, mode, self.path, self.port) {
                Ok(server) => {
                    *self = server;
                    return Ok(());
                }
                Err(StartError::PortTaken(err)) => {
                    last_error = Some(err);
                    thread::sleep(READY_POLL);
                }
                Err(StartError::Fatal(err)) => return Err(err),
            }
        }
        Err(last_error.unwrap_or(PeerError::NotReady {
            peer: SERVER_EVERYTHING,
            reason: format!("port {} stayed taken", self.port),
            output_tail: String::new(),
        }))
    }

    /// Kills the server's process group (a crash); it stays down.
    pub fn kill(&mut self) {
        kill_process_group(self.child.id());
        let _ = self.child.wait();
    }

    fn start_on_free_port(
        node: &Path,
        entry: &Path,
        mode: &'static str,
        path: &'static str,
    ) -> Result<Self, StartError> {
        let port = free_port().map_err(|source| {
            StartError::Fatal(PeerError::Spawn {
                peer: SERVER_EVERYTHING,
                source,
            })
        })?;
        Self::start_on_port(node, entry, mode, path, port)
    }

    fn start_on_port(
        node: &Path,
        entry: &Path,
        mode: &'static str,
        path: &'static str,
        port: u16,
    ) -> Result<Self, StartError> {
        let mut command = Command::new(node);
        command
            .arg(entry)
            .arg(mode)
            .env("PORT", port.to_string())
            .env("NODE_OPTIONS", node_options())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|source| {
            StartError::Fatal(PeerError::Spawn {
                peer: SERVER_EVERYTHING,
                source,
            })
        })?;
        let output = OutputTail::default();
        if let Some(stdout) = child.stdout.take() {
            output.drain(stdout);
        }
        if let Some(stderr) = child.stderr.take() {
            output.drain(stderr);
        }
        let mut server = ServerEverythingHttp {
            child,
            port,
            output,
            path,
        };
        // On error `server` drops here, which kills and reaps the process group.
        server.wait_ready()?;
        Ok(server)
    }

    fn wait_ready(&mut self) -> Result<(), StartError> {
        let deadline = Instant::now() + HTTP_READY_DEADLINE;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        // Its own words first: a listener on the port may be another test's server that took
        // the port between `free_port` and Node's bind (Node then fails with EADDRINUSE).
        // ("MCP Streamable HTTP Server listening on port N", "Server is running on port N").
        let own = format!(" on port {}", self.port);
        loop {
            let said = self.output.snapshot();
            if said.lines().any(|line| line.trim_end().ends_with(&own))
                && accepts_connections(&addr, Duration::from_millis(500))
            {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // Give the drain threads a moment to collect the last words.
                thread::sleep(READY_POLL);
                let tail = self.output.snapshot();
                let err = PeerError::NotReady {
                    peer: SERVER_EVERYTHING,
                    reason: format!(
                        "it exited ({status}) before listening on port {}",
                        self.port
                    ),
                    output_tail: tail.clone(),
                };
                // server-everything prints this when another process grabbed the port first.
                return Err(if tail.contains("already in use") {
                    StartError::PortTaken(err)
                } else {
                    StartError::Fatal(err)
                });
            }
            if Instant::now() >= deadline {
                return Err(StartError::Fatal(PeerError::NotReady {
                    peer: SERVER_EVERYTHING,
                    reason: format!(
                        "not listening on 127.0.0.1:{} after {HTTP_READY_DEADLINE:?}",
                        self.port
                    ),
                    output_tail: self.output.snapshot(),
                }));
            }
            thread::sleep(READY_POLL);
        }
    }
}

impl Drop for ServerEverythingHttp {
    fn drop(&mut self) {
        kill_process_group(self.child.id());
        let _ = self.child.wait();
    }
}

enum StartError {
    /// The port we picked was taken before Node bound it: try another one.
    PortTaken(PeerError),
    Fatal(PeerError),
}
