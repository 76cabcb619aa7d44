//! Benchmark client for `scripts/bench toolcall`: connects to one stdio MCP server through
//! coyote-mcp's public API only, calls a tool N times in one process and prints one JSON line
//! (median/p10/p90 per call in µs, time to Ready, the process's own peak RSS).
//!
//! Usage: `bench_toolcall [--floor] [--warmup W] [--calls N] [--tool echo] [--arg key=value]... -- CMD ARGS...`
//!
//! `--floor` measures the same calls without coyote-mcp: blocking writes of a prepared request
//! line and blocking reads of the answer line, no runtime, no parsing. That is the least any
//! client can spend against the server (its own time plus two pipe wake-ups), so the
//! difference to the normal mode is what coyote-mcp adds.
//! The server's resources are not counted in `client_peak_rss_kib` (read from this process's
//! `/proc/self/status` VmHWM), which is why the client RSS is measured here and not with
//! `/usr/bin/time` (that would report the larger of client and server).
#![expect(
    clippy::print_stdout,
    reason = "a benchmark driver run by scripts/bench: stdout carries its result line"
)]

use std::error::Error;
use std::time::{Duration, Instant};

use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::{McpServerSpec, McpTransport, StdioSpec, Timeouts};
use serde_json::{Map, Value, json};

/// Parsed command line (kept as a struct so `main` reads as the measurement it is).
struct BenchArgs {
    floor: bool,
    warmup: usize,
    calls: usize,
    tool: String,
    arguments: Map<String, Value>,
    command: String,
    command_args: Vec<String>,
}

fn parse_args() -> Result<BenchArgs, Box<dyn Error>> {
    let mut parsed = BenchArgs {
        floor: false,
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
            "--floor" => parsed.floor = true,
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

/// Median, p10 and p90 of the samples, as the JSON fields the bench script reads.
fn summary(client: &str, mut samples: Vec<Duration>) -> Value {
    samples.sort();
    let at = |fraction: f64| samples[((samples.len() - 1) as f64 * fraction) as usize];
    json!({
        "client": client,
        "calls": samples.len(),
        "median_us": micros(at(0.5)),
        "p10_us": micros(at(0.1)),
        "p90_us": micros(at(0.9)),
    })
}

/// `--floor`: the calls over plain blocking pipes (see the module docs).
fn floor(args: &BenchArgs) -> Result<Value, Box<dyn Error>> {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(&args.command)
        .args(&args.command_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut line = String::new();
    let line_of = |message: Value| {
        let mut bytes = message.to_string().into_bytes();
        bytes.push(b'\n');
        bytes
    };
    // Lines in until an answer (a line with an id and no method).
    let mut answer = || -> Result<(), Box<dyn Error>> {
        loop {
            line.clear();
            if stdout.read_line(&mut line)? == 0 {
                return Err("the server closed its stdout".into());
            }
            if line.contains("\"id\"") && !line.contains("\"method\"") {
                return Ok(());
            }
        }
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench-floor", "version": "0"}}});
    stdin.write_all(&line_of(initialize))?;
    answer()?;
    stdin.write_all(&line_of(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ))?;
    // The same request coyote-mcp sends (rmcp adds a progress token to every request).
    let request = |id: usize| {
        line_of(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": args.tool, "arguments": args.arguments, "_meta": {"progressToken": id}}}),
        )
    };
    for id in 1..=args.warmup {
        stdin.write_all(&request(id))?;
        answer()?;
    }
    let mut samples = Vec::with_capacity(args.calls);
    for id in args.warmup + 1..=args.warmup + args.calls {
        let request = request(id);
        let call_started = Instant::now();
        stdin.write_all(&request)?;
        answer()?;
        samples.push(call_started.elapsed());
    }
    drop(stdin);
    let _ = child.wait();
    Ok(summary("raw-floor", samples))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let started = Instant::now();
    let args = parse_args()?;
    if args.floor {
        println!("{}", floor(&args)?);
        return Ok(());
    }
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
        retrieve: Default::default(),
        auto_approve: Vec::new(),
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
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
    let mut report = summary("coyote-mcp", samples);
    report["ready_ms"] = json!(ready_after.as_secs_f64() * 1e3);
    report["client_peak_rss_kib"] = json!(own_peak_rss_kib());
    runtime.shutdown().await;
    println!("{report}");
    Ok(())
}
