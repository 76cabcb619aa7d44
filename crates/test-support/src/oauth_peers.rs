//! Remote servers that ask for sign-in, for the OAuth tests:
//!
//! - [`SdkOAuthDemo`]: the TypeScript SDK's own example (`@modelcontextprotocol/sdk`,
//!   `dist/esm/examples/server/simpleStreamableHttp.js --oauth`): a real MCP server behind a
//!   real demo authorization server (dynamic registration, PKCE, approves at once), written by
//!   no one here. Its URLs say `localhost`; with the loopback preload both ports bind
//!   127.0.0.1 only.
//! - [`browser_script`]: the `$BROWSER` stand-in that follows the authorization redirects.
//! - [`SecretServiceSession`]: a private D-Bus session bus with GNOME Keyring's Secret Service
//!   on it (Debian packages `dbus-daemon`, `dbus-bin`, `gnome-keyring`), for the keyring store.
//!
//! Every process runs in its own process group, killed and reaped when its guard drops.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
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
                if crate::peers::accepts_connections(&addr, Duration::from_millis(500)) {
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

const KEYRING_FIX: &str = "install dbus-daemon, dbus-bin and gnome-keyring (scripts/test does \
                           when it runs as root with apt-get)";
const KEYRING: &str = "gnome-keyring (Secret Service)";

/// A private session bus (`dbus-daemon`) with `gnome-keyring-daemon --components=secrets`,
/// unlocked with an empty password, in a temp dir; both are killed on drop.
pub struct SecretServiceSession {
    dir: tempfile::TempDir,
    bus: Child,
    keyring: Child,
}

impl fmt::Debug for SecretServiceSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretServiceSession")
            .field("dir", &self.dir.path())
            .finish()
    }
}

fn program(name: &str) -> Result<PathBuf, PeerError> {
    ["/usr/bin", "/bin", "/usr/local/bin"]
        .iter()
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| PeerError::NotInstalled {
            peer: KEYRING,
            path: PathBuf::from(name),
            fix: KEYRING_FIX,
        })
}

impl SecretServiceSession {
    /// Starts the bus and the keyring and waits until `org.freedesktop.secrets` is on the bus.
    pub fn start() -> Result<Self, PeerError> {
        let (dbus, keyring, send) = (
            program("dbus-daemon")?,
            program("gnome-keyring-daemon")?,
            program("dbus-send")?,
        );
        let spawn_error = |source| PeerError::Spawn {
            peer: KEYRING,
            source,
        };
        let dir = tempfile::tempdir().map_err(spawn_error)?;
        let runtime_dir = dir.path().join("run");
        std::fs::create_dir_all(&runtime_dir).map_err(spawn_error)?;
        std::fs::set_permissions(
            &runtime_dir,
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .map_err(spawn_error)?;
        let socket = dir.path().join("bus");
        let mut bus = Command::new(dbus);
        bus.args(["--session", "--nofork"])
            .arg(format!("--address=unix:path={}", socket.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut bus, 0);
        let bus = bus.spawn().map_err(spawn_error)?;
        let address = format!("unix:path={}", socket.display());
        let mut keyring_cmd = Command::new(keyring);
        keyring_cmd
            .args(["--foreground", "--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("HOME", dir.path())
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut keyring_cmd, 0);
        // Wait for the bus socket before the keyring connects to it.
        let deadline = Instant::now() + HTTP_READY_DEADLINE;
        while !socket.exists() && Instant::now() < deadline {
            thread::sleep(READY_POLL);
        }
        let mut keyring = keyring_cmd.spawn().map_err(spawn_error)?;
        // The unlock password (empty) on stdin, then end of input.
        drop(keyring.stdin.take());
        let session = SecretServiceSession { dir, bus, keyring };
        loop {
            let owned = Command::new(&send)
                .args([
                    "--session",
                    "--print-reply",
                    "--dest=org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner",
                    "string:org.freedesktop.secrets",
                ])
                .env("DBUS_SESSION_BUS_ADDRESS", &address)
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("boolean true"));
            if owned {
                return Ok(session);
            }
            if Instant::now() >= deadline {
                return Err(PeerError::NotReady {
                    peer: KEYRING,
                    reason: "org.freedesktop.secrets never appeared on the bus".to_owned(),
                    output_tail: String::new(),
                });
            }
            thread::sleep(READY_POLL);
        }
    }

    /// `DBUS_SESSION_BUS_ADDRESS` of this session.
    pub fn bus_address(&self) -> String {
        format!("unix:path={}", self.dir.path().join("bus").display())
    }
}

impl Drop for SecretServiceSession {
    fn drop(&mut self) {
        kill_process_group(self.keyring.id());
        let _ = self.keyring.wait();
        kill_process_group(self.bus.id());
        let _ = self.bus.wait();
    }
}
