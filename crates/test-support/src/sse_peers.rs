//! The TypeScript SDK's legacy HTTP+SSE example server (`@modelcontextprotocol/sdk`,
//! `dist/esm/examples/server/simpleSseServer.js`), for the legacy SSE transport tests: GET
//! `/mcp` opens the event stream, messages go to `/messages`, one tool
//! (`start-notification-stream`). It always listens on port 3000 (no option to change it): when
//! that port is busy the test skips with a clear message instead of failing. With the loopback
//! preload it binds 127.0.0.1 only. Its process group is killed and reaped when the guard drops.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::peers::{
    HTTP_READY_DEADLINE, OutputTail, PeerError, existing, kill_process_group, node_options,
    package_dir, system_node,
};

/// The example's fixed port.
pub const SIMPLE_SSE_PORT: u16 = 3000;
const SDK: &str = "@modelcontextprotocol/sdk";
const NPM_FIX: &str = "run `npm ci` at the repository root (scripts/test does this)";
const READY_POLL: Duration = Duration::from_millis(50);

/// The running example.
pub struct SdkSimpleSse {
    child: Child,
    output: OutputTail,
}

impl fmt::Debug for SdkSimpleSse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdkSimpleSse")
            .field("pid", &self.child.id())
            .finish()
    }
}

impl SdkSimpleSse {
    /// Starts it and waits until it accepts connections. `Ok(None)` when port 3000 is already
    /// taken on this machine (the caller skips; the note says so). Blocking.
    pub fn start() -> Result<Option<Self>, PeerError> {
        let script = existing(
            package_dir(SDK).join("dist/esm/examples/server/simpleSseServer.js"),
            SDK,
            NPM_FIX,
        )?;
        let node = system_node()?;
        if TcpListener::bind((Ipv4Addr::LOCALHOST, SIMPLE_SSE_PORT)).is_err() {
            return Ok(None);
        }
        let mut command = Command::new(node);
        command
            .arg(script)
            .env("NODE_OPTIONS", node_options())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|source| PeerError::Spawn { peer: SDK, source })?;
        let output = OutputTail::default();
        if let Some(stdout) = child.stdout.take() {
            output.drain(stdout);
        }
        if let Some(stderr) = child.stderr.take() {
            output.drain(stderr);
        }
        let mut server = SdkSimpleSse { child, output };
        server.wait_ready()?;
        Ok(Some(server))
    }

    /// The event-stream URL, `http://127.0.0.1:3000/mcp`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{SIMPLE_SSE_PORT}/mcp")
    }

    /// The last bytes it wrote to stdout/stderr.
    pub fn output_tail(&self) -> String {
        self.output.snapshot()
    }

    fn wait_ready(&mut self) -> Result<(), PeerError> {
        let deadline = Instant::now() + HTTP_READY_DEADLINE;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, SIMPLE_SSE_PORT));
        loop {
            if crate::peers::accepts_connections(&addr, Duration::from_millis(500)) {
                return Ok(());
            }
            let exited = matches!(self.child.try_wait(), Ok(Some(_)));
            if exited || Instant::now() >= deadline {
                thread::sleep(READY_POLL);
                return Err(PeerError::NotReady {
                    peer: SDK,
                    reason: format!(
                        "simpleSseServer.js is not listening on 127.0.0.1:{SIMPLE_SSE_PORT}"
                    ),
                    output_tail: self.output.snapshot(),
                });
            }
            thread::sleep(READY_POLL);
        }
    }
}

impl Drop for SdkSimpleSse {
    fn drop(&mut self) {
        kill_process_group(self.child.id());
        let _ = self.child.wait();
    }
}
