//! Benchmark client for `scripts/bench toolcall`: connects to one stdio MCP server through
//! coyote-mcp's public API only, calls a tool N times in one process and prints one JSON line
//! (median/p10/p90 per call in µs, time to Ready, the process's own peak RSS).
//!
//! Usage: `bench_toolcall [--warmup W] [--calls N] [--tool echo] [--arg key=value]... -- CMD ARGS...`
//! The server's resources are not counted in `client_peak_rss_kib` (read from this process's
//! `/proc/self/status` VmHWM), which is why the client RSS is measured here and not with
//! `/usr/bin/time` (that would report the larger of client and server).

use std::error::Error;
use std::time::{Duration, Instant};

use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::{McpServerSpec, McpTransport, StdioSpec, Timeouts};
use serde_json::{Map, Value, json};

/// Parsed command line (kept as a struct so `main` reads as the measurement it is).
struct BenchArgs {
    warmup: usize,
    calls: usize,
    tool: String,
    arguments: Map<String, Value>,
    command: String,
    command_args: Vec<String>,
}

fn parse_args() -> Result<BenchArgs, Box<dyn Error>> {
    let mut parsed = BenchArgs {
        warmup: 200,
        calls: 2000,
        tool: "echo".into(),
        arguments: Map::new(),
        command: String::new(),
        command_args: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--warmup" => parsed.warmup = args.next().ok_or("--warmup needs a number")?.parse()?,
            "--calls" => parsed.calls = args.next().ok_or("--calls needs a number")?.parse()?,
            "--tool" => parsed.tool = args.next().ok_or("--tool needs a name")?,
            "--arg" => {
                let pair = args.next().ok_or("--arg needs key=value")?;
                let (key, value) = pair.split_once('=').ok_or("--arg needs key=value")?;
                parsed.arguments.insert(key.into(), json!(value));
            }
            "--" => {
                parsed.command = args.next().ok_or("missing server command after --")?;
                parsed.command_args = args.collect();
                break;
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if parsed.command.is_empty() {
        return Err(
            "usage: bench_toolcall [--calls N] [--tool T] [--arg k=v] -- CMD ARGS...".into(),
        );
    }
    if parsed.calls == 0 {
        return Err("--calls must be at least 1".into());
    }
    Ok(parsed)
}

/// Peak resident set size of this process in KiB (Linux `VmHWM`), 0 when unavailable.
fn own_peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let started = Instant::now();
    let args = parse_args()?;
    let spec = McpServerSpec {
        name: "bench".into(),
        transport: McpTransport::Stdio(StdioSpec {
            command: args.command.clone(),
            args: args.command_args.clone(),
            env: Default::default(),
            cwd: None,
        }),
        timeouts: Timeouts {
            startup: Duration::from_secs(60),
            call: Duration::from_secs(30),
        },
        approve: Default::default(),
        expose: Default::default(),
        auto_approve: Vec::new(),
        source: "bench_toolcall".into(),
    };
    let runtime = McpRuntime::new(RuntimeOptions::default());
    runtime.start_all(vec![spec]).await;
    let ready_after = started.elapsed();
    let handle = runtime.server("bench")?;
    for _ in 0..args.warmup {
        handle.call_tool(&args.tool, args.arguments.clone()).await?;
    }
    let mut samples = Vec::with_capacity(args.calls);
    for _ in 0..args.calls {
        let call_started = Instant::now();
        handle.call_tool(&args.tool, args.arguments.clone()).await?;
        samples.push(call_started.elapsed());
    }
    samples.sort();
    let at = |fraction: f64| samples[((samples.len() - 1) as f64 * fraction) as usize];
    let report = json!({
        "client": "coyote-mcp",
        "calls": args.calls,
        "median_us": micros(at(0.5)),
        "p10_us": micros(at(0.1)),
        "p90_us": micros(at(0.9)),
        "ready_ms": ready_after.as_secs_f64() * 1e3,
        "client_peak_rss_kib": own_peak_rss_kib(),
    });
    runtime.shutdown().await;
    println!("{report}");
    Ok(())
}
