//! `coolify-fixture`: serve the fixture Coolify API on 127.0.0.1 for out-of-process runs
//! (golden capture, side-by-side measurements).
//!
//! Prints exactly one line to stdout, the base URL, then serves until stdin closes or the
//! process is killed. The request log is at `GET /__fixture__/requests` (reset with DELETE).
//!
//! Flags: `--port N` (default 0 = ephemeral), `--token T`, `--real-404`, `--hanging`,
//! `--deploy-statuses queued,in_progress,finished`, `--no-stdin` (serve until killed instead of
//! until stdin closes).

use std::io::Write;

use coolify_fixture::{Behaviour, Fixture, NotFoundMode};
use tokio::io::AsyncReadExt;

fn usage() -> ! {
    exit_with(
        "usage: coolify-fixture [--port N] [--token T] [--real-404] [--hanging] [--deploy-statuses a,b,c] [--no-stdin]",
        2,
    )
}

/// Says why on stderr and exits: stdout carries only the base URL.
#[expect(
    clippy::print_stderr,
    reason = "stderr is this binary's user interface for usage and startup errors"
)]
fn exit_with(message: &str, code: i32) -> ! {
    eprintln!("{message}");
    std::process::exit(code)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut builder = Fixture::builder();
    let mut watch_stdin = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                builder = builder.port(
                    args.next()
                        .and_then(|p| p.parse().ok())
                        .unwrap_or_else(|| usage()),
                )
            }
            "--token" => builder = builder.token(args.next().unwrap_or_else(|| usage())),
            "--real-404" => builder = builder.not_found(NotFoundMode::Real404),
            "--no-stdin" => watch_stdin = false,
            "--hanging" => builder = builder.behaviour(Behaviour::Hanging),
            "--deploy-statuses" => {
                let list = args.next().unwrap_or_else(|| usage());
                builder = builder.new_deployment_statuses(list.split(',').map(str::to_owned));
            }
            _ => usage(),
        }
    }
    let fixture = match builder.start().await {
        Ok(fixture) => fixture,
        Err(err) => exit_with(&format!("coolify-fixture: cannot bind 127.0.0.1: {err}"), 1),
    };
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{}", fixture.url());
    let _ = stdout.flush();
    if watch_stdin {
        // Serve until stdin reaches EOF (the parent closed it or exited).
        let mut sink = Vec::new();
        let _ = tokio::io::stdin().read_to_end(&mut sink).await;
    } else {
        let _ = tokio::signal::ctrl_c().await;
    }
    fixture.shutdown().await;
}
