//! `coolify-mcp`: parse the configuration, then serve over stdio or streamable HTTP.
//! stdout belongs to the protocol: diagnostics go to stderr only.
#![deny(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use coolify_mcp::config::{self, Command, Transport};
use coolify_mcp::{BackendFactory, CoolifyServer, ServerOptions};
use rmcp::ServiceExt;

/// stderr for diagnostics; a closed stderr must never take a request down with it, so
/// write errors are swallowed.
struct QuietStderr;

impl Write for QuietStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().write_all(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

fn main() -> ExitCode {
    let env: BTreeMap<String, String> = std::env::vars().collect();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut stderr = std::io::stderr();
    if args.first().map(String::as_str) == Some("doctor") {
        return doctor(&env, &args[1..]);
    }
    let config = match config::parse(&env, &args) {
        Ok(Command::Run(c)) => c,
        Ok(Command::Help) => {
            // Asked for: the answer goes to stdout (no protocol runs).
            let mut stdout = std::io::stdout();
            let _ = stdout.write_all(config::USAGE.as_bytes());
            let _ = stdout.flush();
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            let _ = writeln!(
                std::io::stdout(),
                "coolify-mcp {}",
                coolify_mcp::MCP_SERVER_VERSION
            );
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let _ = writeln!(stderr, "{e}");
            return ExitCode::from(1);
        }
    };
    for w in &config.warnings {
        let _ = writeln!(stderr, "coolify-mcp: warning: {w}");
    }
    // A plain level filter (no EnvFilter): no regex work at boot, and the formatter's code is
    // only touched when something is actually logged.
    let level = match std::env::var("COOLIFY_MCP_LOG").as_deref().map(str::trim) {
        Ok("off") => None,
        Ok("error") => Some(tracing::Level::ERROR),
        Ok("info") => Some(tracing::Level::INFO),
        Ok("debug") => Some(tracing::Level::DEBUG),
        Ok("trace") => Some(tracing::Level::TRACE),
        _ => Some(tracing::Level::WARN),
    };
    if let Some(level) = level {
        tracing_subscriber::fmt()
            // Every event is masked: rmcp logs whole requests and results at debug/trace.
            .with_writer(|| coolify_mcp::log_mask::MaskingWriter(QuietStderr))
            .with_ansi(false)
            .with_max_level(level)
            .init();
    }
    let factory: BackendFactory = Arc::new(coolify_mcp::backend_impl::make_backend);
    let server = match CoolifyServer::new(ServerOptions::from_config(&config, factory)) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(stderr, "{e}");
            return ExitCode::from(1);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(stderr, "coolify-mcp cannot start:\n  - tokio runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async move {
        match &config.transport {
            Transport::Stdio => {
                // Pipes (how MCP clients launch servers) go through the reactor on private
                // non-blocking file descriptions; anything else falls back to tokio's
                // blocking stdio. No blocking-pool thread per read or write: fewer threads
                // (each with a stack and a malloc arena) and no hand-off per message.
                let served = server
                    .serve(coolify_mcp::wire::outgoing(rmcp::transport::stdio_pipes()))
                    .await;
                let running = match served {
                    Ok(running) => running,
                    // The client went away before the handshake finished (stdin closed): an
                    // ordinary end of the session, not a failure.
                    Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
                        return Ok(());
                    }
                    Err(e) => return Err(e.to_string()),
                };
                running.waiting().await.map_err(|e| e.to_string())?;
                Ok::<(), String>(())
            }
            Transport::Http(spec) => {
                // A state store that does not answer stops the start, naming the setting.
                if let Some(url) = &config.state_url {
                    let store = coolify_mcp::oauth::redis_store::RedisState::open(url)
                        .map_err(|e| e.to_string())?;
                    store.ping().await.map_err(|e| e.to_string())?;
                }
                let handle = coolify_mcp::http::start(server, spec)
                    .await
                    .map_err(|e| format!("cannot bind {}: {e}", spec.bind))?;
                let _ = writeln!(
                    std::io::stderr(),
                    "coolify-mcp: listening on http://{}/mcp",
                    handle.addr
                );
                let shutdown = handle.shutdown.clone();
                tokio::select! {
                    r = handle.task => r.map_err(|e| e.to_string())?.map_err(|e| e.to_string()),
                    _ = tokio::signal::ctrl_c() => { shutdown.cancel(); Ok(()) }
                }
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "Fatal error: {e}");
            ExitCode::from(1)
        }
    }
}

/// `coolify-mcp doctor …`: the report goes to stdout (this command owns it; no protocol runs).
fn doctor(env: &BTreeMap<String, String>, args: &[String]) -> ExitCode {
    use coolify_mcp::doctor::{self, DoctorCommand};
    let mut stdout = std::io::stdout();
    let (format, headers) = match doctor::parse_args(args) {
        DoctorCommand::Usage(code) => {
            let _ = stdout.write_all(doctor::USAGE.as_bytes());
            return ExitCode::from(code);
        }
        DoctorCommand::Run { json, headers } => (json, headers),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "coolify-mcp doctor: tokio runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let report = runtime.block_on(doctor::run(env, &headers));
    let _ = stdout.write_all(report.render(format).as_bytes());
    let _ = stdout.flush();
    ExitCode::from(report.exit_code())
}
