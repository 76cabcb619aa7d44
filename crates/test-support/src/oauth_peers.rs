//! Remote servers that ask for sign-in, for the OAuth tests:
//!
//! - [`SdkOAuthDemo`]: the TypeScript SDK's own example (`@modelcontextprotocol/sdk`,
//!   `dist/esm/examples/server/simpleStreamableHttp.js --oauth`): a real MCP server behind a
//!   real demo authorization server (dynamic registration, PKCE, approves at once), written by
//!   no one here. Its URLs say `localhost`; with the loopback preload both ports bind
//!   127.0.0.1 only.
//! - [`browser_script`]: the `$BROWSER` stand-in that follows the authorization redirects.
//!
//! The Node process runs in its own process group, killed and reaped when the guard drops.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::peers::{
    HTTP_READY_DEADLINE, OutputTail, PeerError, existing, free_port, kill_process_group,
    node_options, package_dir, repo_root, system_node,
};

const SDK: &str = "@modelcontextprotocol/sdk";
const NPM_FIX: &str = "run `npm ci` at the repository root (scripts/test does this)";
const READY_POLL: Duration = Duration::from_millis(50);

/// The `$BROWSER` stand-in (`scripts/browser.mjs` of this crate): run it as `node <path> URL`.
pub fn browser_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join("browser.mjs")
}

/// A `$BROWSER` value that runs [`browser_script`] with the system Node.
pub fn browser_command() -> Result<String, PeerError> {
    let node = system_node()?;
    Ok(format!("{} {}", node.display(), browser_script().display()))
}

/// The SDK's demo: MCP on one free port, its authorization server on another.
pub struct SdkOAuthDemo {
    child: Child,
    mcp_port: u16,
    auth_port: u16,
    output: OutputTail,
}

impl fmt::Debug for SdkOAuthDemo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdkOAuthDemo")
            .field("mcp_port", &self.mcp_port)
            .field("auth_port", &self.auth_port)
            .finish()
    }
}

impl SdkOAuthDemo {
    /// Starts the demo and blocks until both ports accept connections.
    pub fn start() -> Result<Self, PeerError> {
        let entry = existing(
            package_dir(SDK).join("dist/esm/examples/server/simpleStreamableHttp.js"),
            SDK,
            NPM_FIX,
        )?;
        let node = system_node()?;
        let port = || free_port().map_err(|source| PeerError::Spawn { peer: SDK, source });
        let (mcp_port, auth_port) = (port()?, port()?);
        let mut command = Command::new(node);
        command
            .arg(entry)
            .arg("--oauth")
            .current_dir(repo_root())
            .env("MCP_PORT", mcp_port.to_string())
            .env("MCP_AUTH_PORT", auth_port.to_string())
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
        let mut demo = SdkOAuthDemo {
            child,
            mcp_port,
            auth_port,
            output,
        };
        demo.wait_ready()?;
        Ok(demo)
    }

    /// `http://localhost:<port>/mcp` — the resource the demo's metadata names.
    pub fn url(&self) -> String {
        format!("http://localhost:{}/mcp", self.mcp_port)
    }

    /// The last bytes the demo wrote (for assertion messages).
    pub fn output_tail(&self) -> String {
        self.output.snapshot()
    }

    fn wait_ready(&mut self) -> Result<(), PeerError> {
        let deadline = Instant::now() + HTTP_READY_DEADLINE;
        for port in [self.mcp_port, self.auth_port] {
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            loop {
                if TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok() {
                    break;
                }
                let exited = self.child.try_wait().ok().flatten();
                if exited.is_some() || Instant::now() >= deadline {
                    thread::sleep(READY_POLL);
                    return Err(PeerError::NotReady {
                        peer: SDK,
                        reason: match exited {
                            Some(status) => format!("it exited ({status})"),
                            None => format!("not listening on 127.0.0.1:{port}"),
                        },
                        output_tail: self.output.snapshot(),
                    });
                }
                thread::sleep(READY_POLL);
            }
        }
        Ok(())
    }
}

impl Drop for SdkOAuthDemo {
    fn drop(&mut self) {
        kill_process_group(self.child.id());
        let _ = self.child.wait();
    }
}
