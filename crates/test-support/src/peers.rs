//! Real MCP peers that no one here wrote, as installed by `scripts/test` (or by hand):
//! `npm ci` at the repo root puts `@modelcontextprotocol/server-everything` and
//! `@modelcontextprotocol/conformance` under `node_modules/`, and `scripts/test` fetches a Node 22
//! binary into `.tools/node22/` (the conformance suite crashes on Node 20).
//!
//! Invariants:
//! - Every Node process started through this module gets `NODE_OPTIONS=--import
//!   <repo>/scripts/loopback.mjs`, which forces host-less `listen()` onto 127.0.0.1: tests never
//!   open a port on another interface.
//! - A server started here runs in its own process group and the whole group is killed (SIGKILL)
//!   and reaped when its guard drops, so no test leaves a Node process behind.
//! - A missing peer is a [`PeerError::NotInstalled`] whose message says to run `npm ci`;
//!   [`require`] turns it into a test failure under CI (`CI` set) or `scripts/test`
//!   (`COYOTE_REQUIRE_PEERS=1`, it has just installed them) and into a skip note otherwise.
//!   Any other failure (spawn error, server never ready) always fails the test.

use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use coyote_protocol::StdioSpec;

mod everything_http;
mod output_tail;
pub use everything_http::ServerEverythingHttp;
pub(crate) use output_tail::OutputTail;

/// How long a freshly spawned Node server may take to accept TCP connections. Generous because
/// CI shares two cores with a cargo build; only the failure path ever waits this long.
pub const HTTP_READY_DEADLINE: Duration = Duration::from_secs(60);
/// How many fresh ports we try when a port picked as free was taken before Node bound it.
const PORT_ATTEMPTS: usize = 3;
const READY_POLL: Duration = Duration::from_millis(50);

const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything";
const CONFORMANCE: &str = "@modelcontextprotocol/conformance";
const SDK: &str = "@modelcontextprotocol/sdk";
const NPM_FIX: &str = "run `npm ci` at the repository root (scripts/test does this)";
const NODE22_FIX: &str = "run `scripts/test` once (it fetches Node 22 into .tools/node22), or `scripts/test --setup-only`";
const NODE_FIX: &str = "install Node.js >= 20 and put `node` on PATH";
const PYTHON_FIX: &str =
    "run `scripts/test --setup-only` (it installs scripts/python-peers.txt into .tools/pyenv)";

/// Why a real peer could not be provided.
#[derive(Debug)]
pub enum PeerError {
    /// The peer is not installed at `path`; `fix` says how to install it.
    NotInstalled {
        /// The peer's name as the error shows it.
        peer: &'static str,
        /// Where the peer was looked for.
        path: PathBuf,
        /// How to install it.
        fix: &'static str,
    },
    /// The peer is installed but its process could not be spawned.
    Spawn {
        /// The peer's name as the error shows it.
        peer: &'static str,
        /// The spawn error.
        source: io::Error,
    },
    /// The peer started but never became ready (exited, or did not listen in time).
    NotReady {
        /// The peer's name as the error shows it.
        peer: &'static str,
        /// Why it was not ready.
        reason: String,
        /// The last output of the peer, for diagnosis.
        output_tail: String,
    },
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::NotInstalled { peer, path, fix } => {
                write!(
                    f,
                    "{peer} is not installed (looked for {}); {fix}",
                    path.display()
                )
            }
            PeerError::Spawn { peer, source } => write!(f, "could not start {peer}: {source}"),
            PeerError::NotReady {
                peer,
                reason,
                output_tail,
            } => write!(
                f,
                "{peer} did not become ready: {reason}; its last output:\n{output_tail}"
            ),
        }
    }
}

impl std::error::Error for PeerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PeerError::Spawn { source, .. } => Some(source),
            PeerError::NotInstalled { .. } | PeerError::NotReady { .. } => None,
        }
    }
}

/// True when running under CI (`CI` set to anything but empty, `0` or `false`).
pub fn is_ci() -> bool {
    std::env::var("CI")
        .map(|value| {
            !matches!(
                value.trim().to_ascii_lowercase().as_str(),
                "" | "0" | "false"
            )
        })
        .unwrap_or(false)
}

/// What a test does when a peer is not installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingPeer {
    /// Fail the test (CI: a missing peer means the install step is broken).
    Fail,
    /// Print a skip note to stderr and let the test return early (local runs).
    Skip,
}

impl MissingPeer {
    /// `Fail` under CI ([`is_ci`]) or when `COYOTE_REQUIRE_PEERS=1` (set by `scripts/test`),
    /// `Skip` otherwise.
    pub fn from_env() -> Self {
        let required = std::env::var("COYOTE_REQUIRE_PEERS").is_ok_and(|v| v.trim() == "1");
        if is_ci() || required {
            MissingPeer::Fail
        } else {
            MissingPeer::Skip
        }
    }
}

/// Decides what a test does with a peer result: `Some(peer)` when available; when the peer is
/// merely not installed, panic under CI and otherwise print a skip note and return `None`; any
/// other error always panics.
///
/// ```ignore
/// let Some(server) = peers::require(peers::ServerEverythingHttp::start()) else { return };
/// ```
pub fn require<T>(result: Result<T, PeerError>) -> Option<T> {
    require_with(result, MissingPeer::from_env())
}

/// [`require`] with an explicit policy.
#[expect(
    clippy::print_stderr,
    reason = "the skip note is for the person reading the test output, which captures stderr"
)]
pub fn require_with<T>(result: Result<T, PeerError>, missing: MissingPeer) -> Option<T> {
    match (result, missing) {
        (Ok(peer), _) => Some(peer),
        (Err(err @ PeerError::NotInstalled { .. }), MissingPeer::Skip) => {
            eprintln!("SKIPPED (real peer missing; under CI this fails): {err}");
            None
        }
        (Err(err), _) => panic!("{err}"),
    }
}

/// The repository root (the workspace directory that holds `package.json`).
pub fn repo_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| manifest_dir.to_path_buf())
}

/// Absolute path of the Node preload that keeps listeners on 127.0.0.1.
pub fn loopback_preload() -> PathBuf {
    repo_root().join("scripts").join("loopback.mjs")
}

/// The `NODE_OPTIONS` value every Node peer gets: `--import <abs preload>` (quoted when the path
/// contains spaces, as NODE_OPTIONS splits on them).
pub fn node_options() -> String {
    let preload = loopback_preload().to_string_lossy().into_owned();
    if preload.contains(' ') {
        format!("--import \"{preload}\"")
    } else {
        format!("--import {preload}")
    }
}

/// The Node 22 binary fetched by `scripts/test` (used for the conformance suite).
pub fn node22() -> Result<PathBuf, PeerError> {
    let path = repo_root()
        .join(".tools")
        .join("node22")
        .join("bin")
        .join("node");
    existing(path, "Node 22 (.tools/node22)", NODE22_FIX)
}

/// The Python SDK server of `crates/test-support/scripts/py-sdk-server.py` over stdio, run by
/// the virtualenv `scripts/test` fills from `scripts/python-peers.txt` (the Python SDK 2.3.0);
/// `modern_only` puts its gate in front (the legacy `initialize` is refused: a server that
/// speaks only protocol 2026-07-28).
pub fn python_sdk_stdio_command(modern_only: bool) -> Result<StdioSpec, PeerError> {
    let python = existing(
        repo_root()
            .join(".tools")
            .join("pyenv")
            .join("bin")
            .join("python"),
        "the Python SDK (.tools/pyenv)",
        PYTHON_FIX,
    )?;
    let script = repo_root()
        .join("crates")
        .join("test-support")
        .join("scripts")
        .join("py-sdk-server.py");
    let mut args = vec![script.to_string_lossy().into_owned()];
    if modern_only {
        args.push("--modern-only".to_owned());
    }
    Ok(StdioSpec {
        command: python.to_string_lossy().into_owned(),
        args,
        env: Default::default(),
        cwd: None,
    })
}

/// The Node that runs server-everything: `node` on PATH, else the fetched Node 22.
pub fn system_node() -> Result<PathBuf, PeerError> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("node"))
            .find(|p| p.is_file())
    });
    match on_path {
        Some(path) => Ok(path),
        None => node22().map_err(|_| PeerError::NotInstalled {
            peer: "node",
            path: PathBuf::from("$PATH"),
            fix: NODE_FIX,
        }),
    }
}

/// The conformance suite's entry script. It needs Node 22: run it as `node22() <script> …`,
/// never through its `#!/usr/bin/env node` shebang (that may pick Node 20, which crashes).
pub fn conformance_bin() -> Result<PathBuf, PeerError> {
    let path = package_dir(CONFORMANCE).join("dist").join("index.js");
    existing(path, CONFORMANCE, NPM_FIX)
}

/// server-everything's entry script (`dist/index.js`).
pub fn server_everything_entry() -> Result<PathBuf, PeerError> {
    let path = package_dir(SERVER_EVERYTHING).join("dist").join("index.js");
    existing(path, SERVER_EVERYTHING, NPM_FIX)
}

/// server-everything over stdio, as a spec ready for an `McpServerSpec`: absolute `node`, the
/// entry script and `stdio`, with `NODE_OPTIONS` set to the loopback preload.
pub fn server_everything_stdio_command() -> Result<StdioSpec, PeerError> {
    let entry = server_everything_entry()?;
    let node = system_node()?;
    Ok(StdioSpec {
        command: node.to_string_lossy().into_owned(),
        args: vec![entry.to_string_lossy().into_owned(), "stdio".to_owned()],
        env: [("NODE_OPTIONS".to_owned(), node_options())]
            .into_iter()
            .collect(),
        cwd: None,
    })
}

/// One of the TypeScript SDK's example servers (`@modelcontextprotocol/sdk`,
/// `dist/esm/examples/server/<script>`) over stdio, as a spec like
/// [`server_everything_stdio_command`]'s.
pub fn sdk_example_stdio_command(script: &str) -> Result<StdioSpec, PeerError> {
    let entry = existing(
        package_dir(SDK)
            .join("dist/esm/examples/server")
            .join(script),
        SDK,
        NPM_FIX,
    )?;
    let node = system_node()?;
    Ok(StdioSpec {
        command: node.to_string_lossy().into_owned(),
        args: vec![entry.to_string_lossy().into_owned()],
        env: [("NODE_OPTIONS".to_owned(), node_options())]
            .into_iter()
            .collect(),
        cwd: None,
    })
}

/// The `mcpServers` entry (Claude Desktop format) for a stdio spec, for tests that write an
/// `mcp.json` and run the `coyote` binary.
pub fn mcp_json_entry(spec: &StdioSpec) -> serde_json::Value {
    serde_json::json!({ "command": spec.command, "args": spec.args, "env": spec.env })
}

pub(crate) fn package_dir(package: &str) -> PathBuf {
    repo_root().join("node_modules").join(package)
}

pub(crate) fn existing(
    path: PathBuf,
    peer: &'static str,
    fix: &'static str,
) -> Result<PathBuf, PeerError> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(PeerError::NotInstalled { peer, path, fix })
    }
}

/// A port that was free a moment ago on 127.0.0.1 (the listener is closed before returning;
/// the caller retries when another process wins the race).
/// Whether something listens on `addr`. A probe of a port in the ephemeral range with nothing
/// listening can connect to itself (Linux TCP simultaneous open: the kernel picks the same
/// port as the probe's source), which looks like a listener and then holds the port so the
/// real server cannot bind it. A connection whose two ends are one address is no listener.
pub(crate) fn accepts_connections(addr: &SocketAddr, timeout: Duration) -> bool {
    match TcpStream::connect_timeout(addr, timeout) {
        Ok(stream) => match (stream.local_addr(), stream.peer_addr()) {
            (Ok(local), Ok(peer)) => local != peer,
            _ => false,
        },
        Err(_) => false,
    }
}

pub(crate) fn free_port() -> io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

/// SIGKILL the process group led by `pgid` (the child was spawned with `process_group(0)`).
#[expect(unsafe_code)]
pub(crate) fn kill_process_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    // SAFETY: kill(2) takes plain integers and touches no memory of ours; a negative pid
    // addresses the process group, which only contains the child we spawned and its children.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

#[cfg(test)]
#[path = "peers_tests.rs"]
mod tests;
