//! What a session daemon and its clients share: where the socket is (one per config dir, in a
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

/// The directory holding the sockets: `$XDG_RUNTIME_DIR/coyote`, else `$TMPDIR/coyote-$UID`,
/// else `/tmp/coyote-$UID`.
pub fn socket_dir() -> PathBuf {
    socket_dir_for(
        &|name| std::env::var_os(name),
        rustix::process::getuid().as_raw(),
    )
}

/// [`socket_dir`] for an environment lookup and a uid (pure).
fn socket_dir_for(env: &dyn Fn(&str) -> Option<std::ffi::OsString>, uid: u32) -> PathBuf {
    let var = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(runtime) = var("XDG_RUNTIME_DIR") {
        return PathBuf::from(runtime).join("coyote");
    }
    let tmp = var("TMPDIR").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    tmp.join(format!("coyote-{uid}"))
}

/// The socket of the daemon serving `config_dir`.
pub fn socket_path(config_dir: &Path) -> PathBuf {
    let dir = std::fs::canonicalize(config_dir).unwrap_or_else(|_| config_dir.to_owned());
    let digest = Sha256::digest(dir.as_os_str().as_encoded_bytes());
    socket_dir().join(format!("{}.sock", &hex(&digest)[..24]))
}

/// Creates the socket directory (0700) if needed and checks that it is ours and private.
pub fn private_dir() -> CliResult<PathBuf> {
    let dir = socket_dir();
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
    Ok(dir)
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
        "protocol": std::env::var(crate::setup::PROTOCOL_ENV).ok(),
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

/// Reads one JSON line; `None` at the end of the stream.
pub async fn read<T: serde::de::DeserializeOwned>(
    reader: &mut (impl tokio::io::AsyncBufRead + Unpin),
) -> std::io::Result<Option<T>> {
    use tokio::io::AsyncBufReadExt;
    let mut line = String::new();
    if reader.read_line(&mut line).await? == 0 {
        return Ok(None);
    }
    serde_json::from_str(&line)
        .map(Some)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
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
    fn the_socket_dir_is_the_runtime_dir_else_tmpdir_else_tmp_with_the_uid() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let both = env(&[("XDG_RUNTIME_DIR", "/run/user/7"), ("TMPDIR", "/var/tmp")]);
        assert_eq!(
            socket_dir_for(&both, 7),
            PathBuf::from("/run/user/7/coyote")
        );
        let tmpdir = env(&[("XDG_RUNTIME_DIR", ""), ("TMPDIR", "/var/tmp")]);
        assert_eq!(
            socket_dir_for(&tmpdir, 7),
            PathBuf::from("/var/tmp/coyote-7")
        );
        assert_eq!(
            socket_dir_for(&env(&[]), 1000),
            PathBuf::from("/tmp/coyote-1000")
        );
    }

    #[test]
    fn a_socket_is_named_by_its_config_dir() {
        let a = socket_path(Path::new("/nonexistent/a"));
        assert_eq!(a, socket_path(Path::new("/nonexistent/a")));
        assert_ne!(a, socket_path(Path::new("/nonexistent/b")));
        assert_eq!(a.parent(), Some(socket_dir().as_path()));
    }
}
