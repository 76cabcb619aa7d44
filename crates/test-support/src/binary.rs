//! The `coyote-fake-mcp` binary's logic (kept in the library so it shares the crate-private
//! server parts; `src/bin/coyote-fake-mcp.rs` only calls [`main`]).
//!
//! Usage: `coyote-fake-mcp [SCENARIO.json] [--http] [--port N] [--ready-file PATH]`; the
//! scenario path may come from `COYOTE_FAKE_SCENARIO` instead.
//! - stdio (default): stdout is the protocol; nothing else is ever written to it.
//! - `--http`: binds 127.0.0.1 (port 0 = ephemeral unless `--port`), then announces the URL
//!   `http://127.0.0.1:PORT/mcp` three ways: as the first line of stdout (stdout carries
//!   nothing else in this mode), as `listening <url>` on stderr, and — if `--ready-file` is
//!   given — in that file, written atomically (temp file + rename), so a reader never sees
//!   a partial URL. It also appears in the event log as `listening`.
//!
//! Exit codes: 0 after the client disconnects (or SIGINT in HTTP mode), 2 for a bad command
//! line or scenario, the scenario's code for `crash`/`crash_at_start`, 3 when the
//! `max_lifetime_ms` leak guard fires.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;

use crate::events::{Event, EventSink};
use crate::scenario::SCENARIO_ENV;
use crate::scenario::{Scenario, StartupMode};
use crate::server::{CrashMode, FakeServer, Shared};
use crate::transport::FakeTransport;

const DEFAULT_MAX_LIFETIME: Duration = Duration::from_secs(600);
/// After end of input, the longest wait for in-flight writes before exiting.
const EXIT_GRACE: Duration = Duration::from_millis(200);

#[derive(Debug, Default)]
struct Args {
    scenario: Option<PathBuf>,
    http: bool,
    port: u16,
    ready_file: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args::default();
    let mut it = std::env::args_os().skip(1);
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("--http") => args.http = true,
            Some("--port") => {
                let value = it
                    .next()
                    .and_then(|v| v.to_str().and_then(|s| s.parse().ok()));
                args.port = value.ok_or("--port needs a number")?;
            }
            Some("--ready-file") => {
                args.ready_file = Some(it.next().ok_or("--ready-file needs a path")?.into())
            }
            Some(flag) if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => args.scenario = Some(arg.into()),
        }
    }
    if args.scenario.is_none() {
        args.scenario = std::env::var_os(SCENARIO_ENV).map(PathBuf::from);
    }
    Ok(args)
}

fn fail(message: &str) -> i32 {
    let _ = writeln!(std::io::stderr(), "coyote-fake-mcp: {message}");
    2
}

/// Entry point of the binary.
pub fn main() -> ! {
    let code = match parse_args() {
        Err(message) => fail(&format!(
            "{message}\nusage: coyote-fake-mcp [SCENARIO.json] [--http] [--port N] [--ready-file PATH]"
        )),
        Ok(args) => match tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
        {
            Ok(rt) => rt.block_on(run(args)),
            Err(e) => fail(&format!("cannot start the tokio runtime: {e}")),
        },
    };
    // Exit without waiting for blocked stdin readers or spawned tasks.
    std::process::exit(code)
}

async fn run(args: Args) -> i32 {
    let Some(path) = args.scenario else {
        return fail(&format!(
            "no scenario: pass its path as argv[1] or set {SCENARIO_ENV}"
        ));
    };
    let scenario = match Scenario::load(&path) {
        Ok(s) => s,
        Err(e) => return fail(&e.to_string()),
    };
    let events = match EventSink::new(scenario.event_log.as_deref()) {
        Ok(sink) => Arc::new(sink),
        Err(e) => {
            return fail(&format!(
                "cannot open the event log {:?}: {e}",
                scenario.event_log
            ));
        }
    };
    events.record(Event::Started {
        pid: std::process::id(),
    });
    {
        let mut err = std::io::stderr().lock();
        for line in &scenario.startup.stderr_lines {
            let _ = writeln!(err, "{line}");
        }
    }
    if let StartupMode::CrashAtStart { stderr, exit_code } = &scenario.startup.mode {
        let _ = writeln!(std::io::stderr(), "{stderr}");
        return *exit_code;
    }
    if scenario.startup.spawn_grandchild {
        match std::process::Command::new("sleep")
            .arg("1000")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
        {
            // The child is deliberately never waited for: it is the orphan candidate.
            Ok(child) => events.record(Event::Grandchild { pid: child.id() }),
            Err(e) => return fail(&format!("cannot spawn the grandchild `sleep 1000`: {e}")),
        }
    }
    let lifetime = scenario
        .startup
        .max_lifetime_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_MAX_LIFETIME);
    std::thread::spawn(move || {
        std::thread::sleep(lifetime);
        let _ = writeln!(
            std::io::stderr(),
            "coyote-fake-mcp: max lifetime {lifetime:?} reached, exiting"
        );
        std::process::exit(3);
    });
    if scenario.startup.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(scenario.startup.delay_ms)).await;
    }
    if args.http {
        serve_http(scenario, events, args.port, args.ready_file).await
    } else {
        serve_stdio(scenario, events).await
    }
}

async fn serve_stdio(scenario: Scenario, events: Arc<EventSink>) -> i32 {
    let (read, write) = rmcp::transport::stdio_pipes();
    let transport = FakeTransport::new(read, write, events.clone());
    let raw = transport.raw_out();
    let disconnected = transport.disconnected();
    for line in &scenario.startup.stdout_lines {
        if raw.write_line(line.as_bytes()).await.is_err() {
            return 0;
        }
    }
    let server = FakeServer {
        shared: Shared::new(scenario, events, CrashMode::ExitProcess),
        raw: Some(raw),
        _session: None,
    };
    let Ok(running) = server.serve(transport).await else {
        return 0;
    };
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        _ = &mut waiting => {}
        // The service loop ends right after end of input, once its transport is closed (the
        // writer lock taken: no write is in flight any more). Wait for that, not for the
        // whole grace: a client that waits for its server to exit (coyote does) would
        // otherwise measure a fixed sleep of this fake.
        () = disconnected.cancelled() => {
            let _ = tokio::time::timeout(EXIT_GRACE, &mut waiting).await;
        }
    }
    0
}

async fn serve_http(
    scenario: Scenario,
    events: Arc<EventSink>,
    port: u16,
    ready_file: Option<PathBuf>,
) -> i32 {
    let bind = SocketAddr::from(([127, 0, 0, 1], port));
    let server = match crate::http::start_with(scenario, events, CrashMode::ExitProcess, bind).await
    {
        Ok(server) => server,
        Err(e) => return fail(&format!("cannot listen on {bind}: {e}")),
    };
    let url = server.url().to_owned();
    if let Some(path) = ready_file {
        let tmp = path.with_extension("tmp");
        if let Err(e) =
            std::fs::write(&tmp, format!("{url}\n")).and_then(|()| std::fs::rename(&tmp, &path))
        {
            return fail(&format!(
                "cannot write the ready file {}: {e}",
                path.display()
            ));
        }
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{url}");
        let _ = out.flush();
    }
    let _ = writeln!(std::io::stderr(), "listening {url}");
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown();
    0
}
