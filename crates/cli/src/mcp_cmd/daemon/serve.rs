//! The daemon's side: `coyote mcp session start` re-runs the binary detached with its hidden
//! `--daemon` flag, and that process serves here. It binds the config dir's socket (0600 in
//! the private directory; a socket left by a crashed daemon is replaced), starts the configured
//! servers in one [`ServerPool`], and answers one JSON request per connection: a command runs
//! with the client's terminal capabilities and its output captured; clients wait for each
//! other only while a command's servers are made ready (the pool is shared); a client that goes
//! away cancels its own command only; a server's question goes to the running command whose
//! client can ask its user (`forward.rs`). It exits on `stop`, SIGTERM/SIGINT/SIGHUP, or after
//! the idle timeout, shutting every server down and removing its socket.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tokio::io::BufReader;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{Mutex, Notify, mpsc, oneshot};

use super::forward::{Answer, Forwarder};
use super::wire::{self, Request, Response, ServerLine, Status};
use crate::args::{Cli, Command, GlobalArgs};
use crate::boxed::boxed;
use crate::exit::{CliError, CliResult};
use crate::mcp_cmd::pool::ServerPool;

struct Daemon {
    global: &'static GlobalArgs,
    paths: &'static coyote_config::ConfigPaths,
    /// The key commands must match; recomputed when a command's differs (mcp.json edited).
    key: Mutex<String>,
    pool: Mutex<ServerPool<'static>>,
    socket: PathBuf,
    idle_timeout: Duration,
    /// Milliseconds since `started` of the last finished request.
    last_ms: AtomicU64,
    busy: AtomicUsize,
    served: AtomicU64,
    started: Instant,
    stop: Notify,
    /// Where the servers' questions go: the running command that can ask its user.
    forwarder: Arc<Forwarder>,
}

/// Serves until stopped or idle; `global` and `paths` live as long as the process.
pub async fn serve(
    global: GlobalArgs,
    paths: coyote_config::ConfigPaths,
    idle: Duration,
) -> CliResult {
    let global: &'static GlobalArgs = Box::leak(Box::new(global));
    let paths: &'static coyote_config::ConfigPaths = Box::leak(Box::new(paths));
    let socket = wire::private_dir(paths)?.join(wire::socket_name(paths.config_dir()));
    let listener = bind(&socket).await?;
    let config = crate::setup::load_mcp(global, paths)?;
    let forwarder = Arc::new(Forwarder::default());
    let daemon = Arc::new(Daemon {
        global,
        paths,
        key: Mutex::new(wire::key(global, paths, &config.servers)),
        pool: Mutex::new(
            ServerPool::new(global, paths).with_askers(crate::client::Askers {
                elicitation: forwarder.clone(),
                consent: forwarder.clone(),
            }),
        ),
        socket: socket.clone(),
        idle_timeout: idle,
        last_ms: AtomicU64::new(0),
        busy: AtomicUsize::new(0),
        served: AtomicU64::new(0),
        started: Instant::now(),
        stop: Notify::new(),
        forwarder,
    });
    // The configured servers start now, before the first command waits for them.
    daemon
        .pool
        .lock()
        .await
        .ready(&config.servers, config.servers.clone())
        .await;
    daemon.touch();
    let signal = crate::signals::token();
    let tick = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
    // Connections are polled here, on the main thread (whose stack the commands need in
    // debug builds), not spawned onto the runtime's workers.
    let mut connections = FuturesUnordered::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    connections.push(boxed(|| daemon.clone().connection(stream)));
                }
            }
            Some(()) = connections.next() => {}
            () = tokio::time::sleep(tick) => {
                if daemon.idle() {
                    tracing::info!("session daemon idle for {idle:?}: exiting");
                    break;
                }
            }
            () = daemon.stop.notified() => break,
            () = signal.cancelled() => break,
        }
    }
    drop(listener);
    drop(connections);
    let _ = std::fs::remove_file(&socket);
    daemon.pool.lock().await.shutdown().await;
    Ok(())
}

/// Binds `socket`, replacing a socket nobody answers on (its daemon crashed); refuses when a
/// daemon answers there.
async fn bind(socket: &Path) -> CliResult<UnixListener> {
    if socket.exists() {
        if UnixStream::connect(socket).await.is_ok() {
            return Err(CliError::failure(format!(
                "a session daemon is already running on {}",
                socket.display()
            )));
        }
        std::fs::remove_file(socket).map_err(|e| {
            CliError::failure(format!(
                "cannot remove the stale socket {}: {e}",
                socket.display()
            ))
        })?;
    }
    let listener = UnixListener::bind(socket)
        .map_err(|e| CliError::failure(format!("cannot listen on {}: {e}", socket.display())))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| CliError::failure(format!("cannot restrict {}: {e}", socket.display())))?;
    Ok(listener)
}

impl Daemon {
    fn touch(&self) {
        let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Release);
    }

    fn idle(&self) -> bool {
        let since = Duration::from_millis(self.last_ms.load(Ordering::Acquire));
        self.busy.load(Ordering::Acquire) == 0
            && self.started.elapsed().saturating_sub(since) >= self.idle_timeout
    }

    /// One client: one request, one answer (and, while a command runs, the server questions
    /// it is asked and answers). Only this user's processes are served.
    async fn connection(self: Arc<Self>, stream: UnixStream) {
        let ours = stream
            .peer_cred()
            .is_ok_and(|c| c.uid() == rustix::process::getuid().as_raw());
        if !ours {
            return;
        }
        self.busy.fetch_add(1, Ordering::AcqRel);
        let (read, mut write) = stream.into_split();
        let mut reader = BufReader::new(read);
        let response = match wire::read::<Request>(&mut reader, wire::Bound::Request).await {
            Ok(Some(request)) => self.answer(request, reader, &mut write).await,
            Ok(None) => None,
            Err(e) => {
                tracing::warn!("a client's request was refused: {e}");
                Some(Response::Done {
                    exit: crate::exit::CODE_USAGE,
                    stdout: String::new(),
                    stderr: format!("coyote: the session daemon refused the request: {e}\n"),
                })
            }
        };
        if let Some(response) = response {
            let _ = wire::write(&mut write, &response).await;
        }
        self.touch();
        self.busy.fetch_sub(1, Ordering::AcqRel);
    }

    /// The answer to `request`; `None` when the client went away first (its command, if any,
    /// is dropped: the request in flight is cancelled).
    async fn answer(
        &self,
        request: Request,
        mut reader: BufReader<OwnedReadHalf>,
        write: &mut OwnedWriteHalf,
    ) -> Option<Response> {
        match request {
            Request::Status => Some(Response::Status(self.status().await)),
            Request::Stop => {
                self.stop.notify_one();
                Some(Response::Stopping)
            }
            Request::Answer { .. } => None,
            Request::Restart { server } => {
                self.pool.lock().await.restart(&server).await;
                tracing::info!(
                    server,
                    "restarting a server on its next use (sign-in changed)"
                );
                Some(Response::Restarted)
            }
            Request::Run { key, argv, caps } => {
                // The client's next lines are answers; its end of the stream means it left.
                let (lines_tx, mut lines) = mpsc::unbounded_channel::<Request>();
                let read_lines = tokio::spawn(async move {
                    while let Ok(Some(line)) =
                        wire::read::<Request>(&mut reader, wire::Bound::Request).await
                    {
                        if lines_tx.send(line).is_err() {
                            break;
                        }
                    }
                });
                let mut attached = caps.can_ask().then(|| self.forwarder.attach());
                let mut waiting: HashMap<u64, oneshot::Sender<Answer>> = HashMap::new();
                let mut next_id = 0u64;
                let run = self.run(key, argv, caps);
                tokio::pin!(run);
                let response = loop {
                    tokio::select! {
                        response = &mut run => break Some(response),
                        Some(ask) = async {
                            match attached.as_mut() {
                                Some(a) => a.asks.recv().await,
                                None => std::future::pending().await,
                            }
                        } => {
                            next_id += 1;
                            let question = Response::Question { id: next_id, question: ask.question };
                            if wire::write(write, &question).await.is_err() {
                                break None;
                            }
                            waiting.insert(next_id, ask.answer);
                        }
                        line = lines.recv() => match line {
                            Some(Request::Answer { id, answer }) => {
                                if let Some(waiter) = waiting.remove(&id) {
                                    let _ = waiter.send(answer);
                                }
                            }
                            // Anything else, or the end of the stream: the client left.
                            _ => break None,
                        },
                    }
                };
                drop(attached);
                read_lines.abort();
                response
            }
        }
    }

    /// Runs the client's command. The pool is held while the command's servers are made
    /// ready, not while it runs, so clients are served side by side.
    async fn run(&self, key: String, argv: Vec<String>, caps: wire::ClientCaps) -> Response {
        let Ok(Cli {
            command: Some(Command::Mcp(cmd)),
            ..
        }) = Cli::try_parse_from(argv)
        else {
            return Response::Mismatch;
        };
        let mut pool = self.pool.lock().await;
        if !self.matches(&key).await {
            return Response::Mismatch;
        }
        self.served.fetch_add(1, Ordering::AcqRel);
        let work = async move {
            let prepared = boxed(|| crate::mcp_cmd::prepare(&mut pool, cmd)).await;
            drop(pool);
            let result = match prepared {
                Ok(Some(prepared)) => {
                    boxed(|| crate::mcp_cmd::run_prepared(self.paths, prepared)).await
                }
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            };
            match result {
                Ok(()) => crate::exit::CODE_OK,
                Err(e) => e.report(),
            }
        };
        // A bug that panics in one command must not take the daemon (and every other
        // client's servers) down: it fails that command, and is logged.
        let guarded = async move {
            match futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(work)).await {
                Ok(exit) => exit,
                Err(panic) => {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    tracing::error!("a command panicked in the session daemon: {what}");
                    crate::capture::stderr_line(&format!(
                        "coyote: internal error while the session daemon ran this command \
                         ({what}); the daemon goes on — please report it with the log"
                    ));
                    crate::exit::CODE_FAILURE
                }
            }
        };
        let (exit, captured) =
            crate::capture::capture(crate::term::caps::with_caps(caps.caps(), guarded)).await;
        Response::Done {
            exit,
            stdout: String::from_utf8_lossy(&captured.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&captured.stderr).into_owned(),
        }
    }

    /// Whether a command with `key` sees the configuration the daemon serves. A different key
    /// may mean mcp.json changed since: the daemon's key is computed again (quietly) and the
    /// pool restarts its servers for the new entries on the next command.
    async fn matches(&self, key: &str) -> bool {
        let mut own = self.key.lock().await;
        if *own == key {
            return true;
        }
        let (fresh, _quiet) = crate::capture::capture(async {
            crate::setup::load_mcp(self.global, self.paths)
                .map(|config| wire::key(self.global, self.paths, &config.servers))
        })
        .await;
        if let Ok(fresh) = fresh {
            *own = fresh;
        }
        *own == key
    }

    async fn status(&self) -> Status {
        let pool = self.pool.lock().await;
        let servers = pool
            .statuses()
            .into_iter()
            .map(|(name, state)| ServerLine { name, state })
            .collect();
        Status {
            pid: std::process::id(),
            socket: self.socket.clone(),
            config_dir: self.paths.config_dir().to_owned(),
            idle_timeout_secs: self.idle_timeout.as_secs(),
            servers,
            served: self.served.load(Ordering::Acquire),
        }
    }
}
