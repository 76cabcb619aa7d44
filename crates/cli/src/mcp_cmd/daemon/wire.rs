//! What the daemon and its clients share: where the socket is (one per config dir, in a
//! private directory), the key a command must match to be served (a hash of everything its
//! output depends on), and the messages — one JSON object per line each way; while a command
//! runs, the daemon may send questions and the client answers them.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::args::GlobalArgs;
use crate::exit::{CliError, CliResult};
use crate::term::caps::{Caps, Ttys};

/// The file in the state dir that records the socket directory made when there is no
/// `$XDG_RUNTIME_DIR` (a fresh, randomly named directory under `$TMPDIR` or `/tmp`, so no other
/// user can create it first).
const RECORD: &str = "session-dir";

/// The directory holding the sockets, when one is known: `$XDG_RUNTIME_DIR/coyote`, else the
/// directory recorded in the state dir by the first `session start`.
pub fn socket_dir(state_dir: &Path) -> Option<PathBuf> {
    socket_dir_for(&|name| std::env::var_os(name), state_dir)
}

/// [`socket_dir`] for an environment lookup (pure but for reading the record).
fn socket_dir_for(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    state_dir: &Path,
) -> Option<PathBuf> {
    if let Some(runtime) = env("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(runtime).join("coyote"));
    }
    let recorded = std::fs::read_to_string(state_dir.join(RECORD)).ok()?;
    Some(PathBuf::from(recorded.trim_end_matches('\n'))).filter(|p| p.is_absolute())
}

/// The socket of the daemon serving `paths`' config dir, when a socket directory is known.
pub fn socket_path(paths: &coyote_config::ConfigPaths) -> Option<PathBuf> {
    socket_dir(paths.state_dir()).map(|dir| dir.join(socket_name(paths.config_dir())))
}

/// The socket's file name: a hash of the canonical config dir.
pub fn socket_name(config_dir: &Path) -> String {
    let dir = std::fs::canonicalize(config_dir).unwrap_or_else(|_| config_dir.to_owned());
    let digest = Sha256::digest(dir.as_os_str().as_encoded_bytes());
    format!("{}.sock", &hex(&digest)[..24])
}

/// The socket directory, made if needed, and checked to be ours and private.
/// `$XDG_RUNTIME_DIR/coyote` is created 0700 (the runtime dir is the user's own); without it,
/// the recorded directory is used while it is private to us, else a fresh one is made with a
/// name nobody can guess or take first (`create` fails on an existing path) and recorded.
pub fn private_dir(paths: &coyote_config::ConfigPaths) -> CliResult<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(runtime) = env("XDG_RUNTIME_DIR") {
        let dir = PathBuf::from(runtime).join("coyote");
        if let Err(e) = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
        {
            return Err(CliError::failure(format!(
                "cannot create {}: {e}",
                dir.display()
            )));
        }
        check_private(&dir)?;
        return Ok(dir);
    }
    if let Some(dir) = socket_dir_for(&|_| None, paths.state_dir()) {
        match check_private(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if dir.exists() => crate::term::warning_line(&format!(
                "{}; using a new directory for the session socket",
                e
            )),
            Err(_) => {}
        }
    }
    let tmp = env("TMPDIR").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    let dir = fresh_dir(&tmp)?;
    let state = paths.state_dir();
    let recorded = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(state)
        .and_then(|()| std::fs::write(state.join(RECORD), dir.as_os_str().as_encoded_bytes()));
    if let Err(e) = recorded {
        let _ = std::fs::remove_dir(&dir);
        return Err(CliError::failure(format!(
            "cannot record the session directory in {}: {e}",
            state.display()
        )));
    }
    Ok(dir)
}

/// A new 0700 directory `coyote-UID-RANDOM` under `tmp` that did not exist before.
fn fresh_dir(tmp: &Path) -> CliResult<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    for attempt in 0u32..16 {
        let seed = format!(
            "{}:{:?}:{attempt}:{:p}",
            std::process::id(),
            std::time::SystemTime::now(),
            &attempt
        );
        let random = &hex(&Sha256::digest(seed.as_bytes()))[..12];
        let dir = tmp.join(format!("coyote-{uid}-{random}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {
                check_private(&dir)?;
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(CliError::failure(format!(
                    "cannot create a directory for the session socket in {}: {e}; set \
                     XDG_RUNTIME_DIR or TMPDIR to a directory of yours",
                    tmp.display()
                )));
            }
        }
    }
    Err(CliError::failure(format!(
        "cannot create a directory for the session socket in {}: every name tried exists",
        tmp.display()
    )))
}

/// `path` is owned by this user and nobody else may enter or read it.
pub fn check_private(path: &Path) -> CliResult {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|e| CliError::failure(format!("cannot read {}: {e}", path.display())))?;
    let uid = rustix::process::getuid().as_raw();
    if meta.uid() != uid || meta.permissions().mode() & 0o077 != 0 {
        return Err(CliError::failure(format!(
            "{} is not private to you (owner {}, mode {:o}); remove it or fix its permissions",
            path.display(),
            meta.uid(),
            meta.permissions().mode() & 0o777
        )));
    }
    Ok(())
}

/// Everything a command's output depends on besides its words: the directories, the global
/// options, the resolved server entries (project files included) and the root the servers are
/// given (the working directory's git root, else the working directory).
pub fn key(
    global: &GlobalArgs,
    paths: &coyote_config::ConfigPaths,
    servers: &[impl Serialize],
) -> String {
    let mut global = global.clone();
    global.config_dir = None;
    let cwd = std::env::current_dir().unwrap_or_default();
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&cwd)
        .to_owned();
    let text = serde_json::json!({
        "paths": format!("{paths:?}"),
        "global": format!("{global:?}"),
        "servers": serde_json::to_value(servers).unwrap_or_default(),
        "root": root,
        "protocol": std::env::var(crate::client::PROTOCOL_ENV).ok(),
    });
    hex(&Sha256::digest(text.to_string().as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The terminal a client's output is made for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientCaps {
    stdin: bool,
    stdout: bool,
    stderr: bool,
    color_stdout: bool,
    color_stderr: bool,
    truecolor: bool,
    hyperlinks: bool,
    dumb: bool,
    width: Option<usize>,
}

impl ClientCaps {
    /// This process's terminal.
    pub fn here() -> Self {
        let caps = crate::term::caps();
        ClientCaps {
            stdin: caps.ttys.stdin,
            stdout: caps.ttys.stdout,
            stderr: caps.ttys.stderr,
            color_stdout: caps.color_stdout,
            color_stderr: caps.color_stderr,
            truecolor: caps.truecolor,
            hyperlinks: caps.hyperlinks,
            dumb: caps.dumb,
            width: caps.stdout_width(),
        }
    }

    /// Whether the client can ask its user (stdin and stderr are terminals).
    pub fn can_ask(&self) -> bool {
        self.stdin && self.stderr
    }

    /// The capabilities the daemon prints with: the client's, its width as `$COLUMNS` (the
    /// daemon's stdout has no size to ask).
    pub fn caps(&self) -> Caps {
        Caps {
            ttys: Ttys {
                stdin: self.stdin,
                stdout: self.stdout,
                stderr: self.stderr,
            },
            color_stdout: self.color_stdout,
            color_stderr: self.color_stderr,
            truecolor: self.truecolor,
            hyperlinks: self.hyperlinks,
            dumb: self.dumb,
            columns_env: self.width,
        }
    }
}

/// A client's request.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Run `coyote ARGV…` (the client's own arguments) if `key` is the daemon's.
    Run {
        key: String,
        argv: Vec<String>,
        caps: ClientCaps,
    },
    /// What the daemon is serving.
    Status,
    /// Shut the servers down and exit.
    Stop,
    /// Start `server` afresh on its next use (its sign-in changed).
    Restart { server: String },
    /// The user's answer to the [`Response::Question`] `id` (while a command runs).
    Answer {
        id: u64,
        answer: super::forward::Answer,
    },
}

/// The daemon's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    /// The command ran: what it printed and its exit code.
    Done {
        exit: u8,
        stdout: String,
        stderr: String,
    },
    /// The command's configuration is not the daemon's: run it alone.
    Mismatch,
    /// The daemon's state.
    Status(Status),
    /// The daemon is going away.
    Stopping,
    /// The server will start afresh on its next use.
    Restarted,
    /// A server asked a question while the command ran: ask the user, send a
    /// [`Request::Answer`] with `id`, and read on.
    Question {
        id: u64,
        question: super::forward::Question,
    },
}

/// `coyote mcp session status --json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Status {
    pub pid: u32,
    pub socket: PathBuf,
    pub config_dir: PathBuf,
    pub idle_timeout_secs: u64,
    /// Servers started so far, with their state.
    pub servers: Vec<ServerLine>,
    /// Commands served.
    pub served: u64,
}

/// One server of [`Status`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerLine {
    pub name: String,
    pub state: String,
}

/// How long a message may be.
#[derive(Debug, Clone, Copy)]
pub enum Bound {
    /// A client's request or answer, read by the daemon: at most
    /// [`crate::line_reader::MAX_LINE_BYTES`] (a command line, a form's answer).
    Request,
    /// The daemon's response, read by the client: a command's whole output (this user's own
    /// daemon, so only the memory it already holds bounds it).
    Response,
}

/// Reads one JSON line of at most `bound`; `None` at the end of the stream. A longer line is
/// skipped without being held and is an `InvalidData` error.
pub async fn read<T: serde::de::DeserializeOwned>(
    reader: &mut (impl tokio::io::AsyncBufRead + Unpin),
    bound: Bound,
) -> std::io::Result<Option<T>> {
    use crate::line_reader::{Line, MAX_LINE_BYTES, next_line};
    let invalid = |message: String| std::io::Error::new(std::io::ErrorKind::InvalidData, message);
    let max = match bound {
        Bound::Request => MAX_LINE_BYTES,
        Bound::Response => usize::MAX,
    };
    match next_line(reader, max).await? {
        None => Ok(None),
        Some(Line::Text(line)) => serde_json::from_str(&line)
            .map(Some)
            .map_err(|e| invalid(e.to_string())),
        Some(Line::TooLong { bytes }) => Err(invalid(format!(
            "a message of {bytes} bytes is longer than the {max}-byte limit"
        ))),
        Some(Line::NotUtf8) => Err(invalid("a message that is not UTF-8".to_owned())),
    }
}

/// Writes one JSON line.
pub async fn write<T: Serialize>(
    writer: &mut (impl tokio::io::AsyncWrite + Unpin),
    message: &T,
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    let mut text = serde_json::to_string(message)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    text.push('\n');
    writer.write_all(text.as_bytes()).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_dir_is_the_runtime_dir_else_the_recorded_one() {
        let state = tempfile_dir();
        let runtime = |name: &str| {
            (name == "XDG_RUNTIME_DIR").then(|| std::ffi::OsString::from("/run/user/7"))
        };
        assert_eq!(
            socket_dir_for(&runtime, &state),
            Some(PathBuf::from("/run/user/7/coyote"))
        );
        let none = |_: &str| None;
        assert_eq!(socket_dir_for(&none, &state), None, "nothing recorded yet");
        std::fs::write(state.join(RECORD), "/tmp/coyote-7-abc").unwrap();
        assert_eq!(
            socket_dir_for(&none, &state),
            Some(PathBuf::from("/tmp/coyote-7-abc"))
        );
        std::fs::write(state.join(RECORD), "relative").unwrap();
        assert_eq!(socket_dir_for(&none, &state), None, "only absolute paths");
        let _ = std::fs::remove_dir_all(&state);
    }

    #[test]
    fn a_fresh_dir_is_new_private_and_never_one_that_exists() {
        let tmp = tempfile_dir();
        let a = fresh_dir(&tmp).unwrap();
        let b = fresh_dir(&tmp).unwrap();
        assert_ne!(a, b);
        let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let _ = std::fs::remove_dir_all(&tmp);
    }

    fn tempfile_dir() -> PathBuf {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("coyote-wire-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_socket_is_named_by_its_config_dir() {
        let a = socket_name(Path::new("/nonexistent/a"));
        assert_eq!(a, socket_name(Path::new("/nonexistent/a")));
        assert_ne!(a, socket_name(Path::new("/nonexistent/b")));
        assert!(a.ends_with(".sock") && a.len() == 29, "{a}");
    }
}
