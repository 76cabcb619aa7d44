//! The daemon behind `coyote mcp session start|stop|status`: a process that keeps the
//! configured servers running for an interactive shell ([`serve`]), and the client side every `coyote mcp` command takes
//! when one is running for its config dir ([`route`]). A command is served only when its key —
//! directories, global options, resolved server entries, git root ([`wire::key`]) — is the
//! daemon's; otherwise, or when no daemon answers, it runs alone as always. No daemon is ever
//! started implicitly.

mod forward;
mod serve;
mod wire;

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, BufReader};
use tokio::net::UnixStream;

use crate::args::{GlobalArgs, McpCommand, SessionAction};
use crate::exit::{CliError, CliResult};
use wire::{Request, Response};

/// How long `start` waits for the daemon's servers to be ready.
const START_DEADLINE: Duration = Duration::from_secs(120);

pub async fn run(
    global: &GlobalArgs,
    paths: &coyote_config::ConfigPaths,
    action: SessionAction,
) -> CliResult {
    match action {
        SessionAction::Start {
            idle_timeout,
            daemon: true,
        } => {
            crate::boxed::boxed(|| {
                serve::serve(
                    global.clone(),
                    paths.clone(),
                    Duration::from_secs(idle_timeout),
                )
            })
            .await
        }
        SessionAction::Start { .. } => start(paths).await,
        SessionAction::Stop => stop(paths).await,
        SessionAction::Status { json } => status(paths, json).await,
    }
}

/// One request to the daemon of `paths`; `None` when none answers.
async fn ask(paths: &coyote_config::ConfigPaths, request: &Request) -> Option<Response> {
    let socket = wire::socket_path(paths)?;
    let stream = UnixStream::connect(&socket).await.ok()?;
    let (read, mut write) = stream.into_split();
    wire::write(&mut write, request).await.ok()?;
    wire::read(&mut BufReader::new(read), wire::Bound::Response)
        .await
        .ok()?
}

/// Starts the daemon detached (its own process group, no terminal streams) and waits until it
/// answers with its servers started.
async fn start(paths: &coyote_config::ConfigPaths) -> CliResult {
    wire::private_dir(paths)?;
    if let Some(Response::Status(s)) = ask(paths, &Request::Status).await {
        crate::term::note_line(&format!("a session is already running (pid {})", s.pid));
        return Ok(());
    }
    let exe = std::env::current_exe()
        .map_err(|e| CliError::failure(format!("cannot find the coyote binary: {e}")))?;
    let mut child = tokio::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .arg("--daemon")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| CliError::failure(format!("cannot start the session daemon: {e}")))?;
    let deadline = tokio::time::Instant::now() + START_DEADLINE;
    loop {
        if let Some(Response::Status(s)) = ask(paths, &Request::Status).await {
            let ready = s.servers.iter().filter(|l| l.state == "ready").count();
            crate::term::note_line(&format!(
                "session started (pid {}): {ready} of {} servers ready; socket {}",
                s.pid,
                s.servers.len(),
                s.socket.display()
            ));
            return Ok(());
        }
        if let Ok(Some(exit)) = child.try_wait() {
            let mut err = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                let _ = stderr.read_to_string(&mut err).await;
            }
            return Err(CliError::failure(format!(
                "the session daemon exited ({exit}): {}",
                err.trim()
            )));
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(CliError::failure(format!(
                "the session daemon did not answer within {}s",
                START_DEADLINE.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Asks the daemon to exit and waits until it has shut its servers down.
async fn stop(paths: &coyote_config::ConfigPaths) -> CliResult {
    let Some(Response::Status(s)) = ask(paths, &Request::Status).await else {
        crate::term::note_line(&format!(
            "no session is running for {}",
            paths.config_dir().display()
        ));
        return Ok(());
    };
    ask(paths, &Request::Stop).await;
    let pid = rustix::process::Pid::from_raw(i32::try_from(s.pid).unwrap_or(i32::MAX));
    let deadline = tokio::time::Instant::now() + START_DEADLINE;
    while pid.is_some_and(running) {
        if tokio::time::Instant::now() >= deadline {
            return Err(CliError::failure(format!(
                "the session daemon (pid {}) did not exit",
                s.pid
            )));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    crate::term::note_line(&format!("session stopped (pid {})", s.pid));
    Ok(())
}

/// Whether `pid` still runs. A process that exited but was not reaped yet (a zombie: the
/// daemon's parent is init, which may take seconds to reap it) has stopped, although signals
/// can still be sent to it.
fn running(pid: rustix::process::Pid) -> bool {
    rustix::process::test_kill_process(pid).is_ok() && !zombie(pid)
}

/// Whether `/proc` says `pid` is a zombie (`false` where there is no `/proc`).
fn zombie(pid: rustix::process::Pid) -> bool {
    std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero()))
        .ok()
        .and_then(|stat| {
            // `pid (comm) S …`: the state follows the last ')'.
            stat.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// What the daemon serves; exit 1 when none is running.
async fn status(paths: &coyote_config::ConfigPaths, json: bool) -> CliResult {
    let socket = wire::socket_path(paths);
    let Some(Response::Status(s)) = ask(paths, &Request::Status).await else {
        if json {
            crate::output::print_json(&serde_json::json!({ "running": false, "socket": socket }))?;
        }
        return Err(CliError::failure(format!(
            "no session is running for {}",
            paths.config_dir().display()
        )));
    };
    if json {
        let mut doc = serde_json::to_value(&s).unwrap_or_default();
        doc["running"] = serde_json::Value::Bool(true);
        return crate::output::print_json(&doc);
    }
    let mut text = format!(
        "running (pid {}), {} commands served, idle timeout {}s\nsocket: {}\nconfig: {}\n",
        s.pid,
        s.served,
        s.idle_timeout_secs,
        s.socket.display(),
        s.config_dir.display()
    );
    for line in &s.servers {
        text.push_str(&format!("{}  {}\n", line.name, line.state));
    }
    crate::output::print(&text)
}

/// The socket of a daemon that may serve `paths`' config dir: it exists in the private
/// directory. The common case, no daemon, costs one stat.
pub fn daemon_socket(paths: &coyote_config::ConfigPaths) -> Option<std::path::PathBuf> {
    let socket = wire::socket_path(paths)?;
    (socket.exists()
        && socket
            .parent()
            .is_some_and(|dir| wire::check_private(dir).is_ok()))
    .then_some(socket)
}

/// Tells the daemon serving `paths`' config dir, if one runs, to start `server` afresh on
/// its next use (after `coyote mcp login`/`logout` changed its credentials).
pub async fn restart_in_daemon(paths: &coyote_config::ConfigPaths, server: &str) {
    if daemon_socket(paths).is_none() {
        return;
    }
    let request = Request::Restart {
        server: server.to_owned(),
    };
    if let Some(Response::Restarted) = ask(paths, &request).await {
        crate::term::note_line(&format!(
            "the session daemon will start '{server}' again with the new sign-in"
        ));
    }
}

/// Runs `cmd` in the daemon serving its config dir, when one is running and its key matches:
/// its output is printed and its exit code returned. `None`: run it alone.
pub async fn route(
    global: &GlobalArgs,
    paths: &coyote_config::ConfigPaths,
    cmd: &McpCommand,
) -> Option<CliResult> {
    let argv = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    route_argv(global, paths, cmd, argv).await
}

/// [`route`] for a command of a batch: `words` are what follows `coyote mcp` (the batch's
/// global options are the daemon's, or the key would not match).
pub async fn route_words(
    global: &GlobalArgs,
    paths: &coyote_config::ConfigPaths,
    cmd: &McpCommand,
    words: Vec<String>,
) -> Option<CliResult> {
    let argv = ["coyote".to_owned(), "mcp".to_owned()]
        .into_iter()
        .chain(words)
        .collect();
    route_argv(global, paths, cmd, argv).await
}

async fn route_argv(
    global: &GlobalArgs,
    paths: &coyote_config::ConfigPaths,
    cmd: &McpCommand,
    argv: Vec<String>,
) -> Option<CliResult> {
    if !served(cmd) {
        return None;
    }
    let socket = daemon_socket(paths)?;
    let stream = UnixStream::connect(&socket).await.ok()?;
    // The key of this command's configuration, loaded quietly: the daemon prints its warnings.
    let (config, _quiet) =
        crate::capture::capture(async { crate::setup::load_mcp(global, paths) }).await;
    let key = wire::key(global, paths, &config.ok()?.servers);
    let request = Request::Run {
        key,
        argv,
        caps: wire::ClientCaps::here(),
    };
    let (read, mut write) = stream.into_split();
    wire::write(&mut write, &request).await.ok()?;
    // From here the daemon may be running the command: never run it a second time.
    let answer = super::until_signal(async {
        let mut reader = BufReader::new(read);
        loop {
            match wire::read(&mut reader, wire::Bound::Response).await {
                // A server asks during the command: this terminal asks the user.
                Ok(Some(Response::Question { id, question })) => {
                    let answer = forward::ask_here(question).await;
                    let _ = wire::write(&mut write, &Request::Answer { id, answer }).await;
                }
                Ok(Some(response)) => return Ok(response),
                _ => {
                    return Err(CliError::failure(
                        "the session daemon went away while it ran the command",
                    ));
                }
            }
        }
    })
    .await;
    match answer {
        Ok(Response::Done {
            exit,
            stdout,
            stderr,
        }) => {
            crate::capture::write_stderr(stderr.as_bytes());
            if let Err(e) = crate::capture::write_stdout(stdout.as_bytes())
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                return Some(Err(CliError::failure(format!(
                    "cannot write to stdout: {e}"
                ))));
            }
            Some(match exit {
                crate::exit::CODE_OK => Ok(()),
                code => Err(CliError::exit(code)),
            })
        }
        Ok(Response::Mismatch) => None,
        Ok(_) => Some(Err(CliError::failure(
            "the session daemon gave an unexpected answer",
        ))),
        Err(e) => Some(Err(e)),
    }
}

/// The commands a daemon runs: those that talk to servers and end by themselves.
fn served(cmd: &McpCommand) -> bool {
    match cmd {
        McpCommand::Servers { names, .. } => !names,
        McpCommand::Tools { .. }
        | McpCommand::Resources { .. }
        | McpCommand::Templates { .. }
        | McpCommand::Prompts { .. }
        | McpCommand::Skills { .. }
        | McpCommand::Search { .. }
        | McpCommand::Retrieve { .. }
        | McpCommand::Describe { .. }
        | McpCommand::Call { .. }
        | McpCommand::Tasks { .. }
        | McpCommand::Read { .. }
        | McpCommand::Prompt { .. }
        | McpCommand::Complete { .. }
        | McpCommand::Meta { .. } => true,
        McpCommand::Watch { .. }
        | McpCommand::Add { .. }
        | McpCommand::Import { .. }
        | McpCommand::Remove { .. }
        | McpCommand::Login { .. }
        | McpCommand::Logout { .. }
        | McpCommand::Cache { .. }
        | McpCommand::Batch { .. }
        | McpCommand::Session { .. } => false,
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
