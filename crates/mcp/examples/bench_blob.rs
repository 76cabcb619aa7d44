//! Client-side benchmark for `scripts/bench blob`: connects to one stdio MCP server through
//! coyote-mcp's public API, then N times reads one blob resource and renders it (decode,
//! sha256, spill — exactly what `coyote mcp read --json` does), timing each read from the
//! request to the rendered spill object. Prints one JSON line: median/min/max in ms, this
//! process's own CPU time per read (user+sys from `/proc/self/stat`, averaged over the runs:
//! robust on a loaded machine where wall time is not) and its peak RSS (`VmHWM`; the
//! server's time and memory are not counted).
//!
//! The wall time includes the server producing the blob; the CPU time is the client's alone:
//! receive, parse, decode, sha256, spill. Each run spills into a fresh directory, so the file
//! is really written every time (no dedup hit); with `--same-dir` every run spills into the
//! same directory, so from the second run on the file exists and is not rewritten (what
//! `coyote mcp read` does when the blob was read before).
//!
//! Usage: `bench_blob [--runs N] [--same-dir] URI -- CMD ARGS...`
#![expect(
    clippy::print_stdout,
    reason = "a benchmark driver run by scripts/bench: stdout carries its result line"
)]

use std::error::Error;
use std::time::{Duration, Instant};

use coyote_mcp::render::{ReadOptions, render_resource_contents};
use coyote_mcp::{McpRuntime, MetaKind, RenderContext, RuntimeOptions, SpillStore};
use coyote_protocol::{McpServerSpec, McpTransport, StdioSpec, Timeouts};
use serde_json::json;

/// Peak resident set size of this process in KiB (Linux `VmHWM`), 0 when unavailable.
fn own_peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Minor page faults of this process so far (`/proc/self/stat` field 10).
fn own_minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    stat.rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .nth(7)
        .and_then(|f| f.parse().ok())
        .unwrap_or(0)
}

/// User+sys CPU time of this process so far, in seconds (`/proc/self/stat` clock ticks).
fn own_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the `(comm)`: state is field 3, utime 14 and stime 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1).peekable();
    let mut runs = 5usize;
    let mut same_dir = false;
    loop {
        match args.peek().map(String::as_str) {
            Some("--runs") => {
                args.next();
                runs = args.next().ok_or("--runs needs a number")?.parse()?;
            }
            Some("--same-dir") => {
                args.next();
                same_dir = true;
            }
            _ => break,
        }
    }
    let uri = args
        .next()
        .ok_or("usage: bench_blob [--runs N] [--same-dir] URI -- CMD ARGS...")?;
    if args.next().as_deref() != Some("--") {
        return Err("usage: bench_blob [--runs N] [--same-dir] URI -- CMD ARGS...".into());
    }
    let command = args.next().ok_or("missing server command after --")?;
    let spec = McpServerSpec {
        name: "bench".into(),
        transport: McpTransport::Stdio(StdioSpec {
            command,
            args: args.collect(),
            env: Default::default(),
            cwd: None,
        }),
        timeouts: Timeouts {
            startup: Duration::from_secs(60),
            call: Duration::from_secs(60),
        },
        approve: Default::default(),
        expose: Default::default(),
        retrieve: Default::default(),
        auto_approve: Vec::new(),
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        source: "bench_blob".into(),
    };
    let scratch = tempfile::tempdir()?;
    // As the CLI runs: the blob is written to a spill store while it arrives (a store of its
    // own here, so each run's render still starts from the run's fresh directory).
    let runtime = McpRuntime::new(RuntimeOptions {
        blob_dir: Some(scratch.path().join("incoming")),
        ..RuntimeOptions::default()
    });
    runtime.start_all(vec![spec]).await;
    let handle = runtime.server("bench")?;
    let mut samples = Vec::with_capacity(runs);
    let mut last = serde_json::Value::Null;
    let cpu_before = own_cpu_seconds();
    let mut faults = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    for run in 0..runs {
        let faults_before = own_minor_faults();
        let cpu_run_before = own_cpu_seconds();
        let dir = if same_dir { 0 } else { run };
        let store = SpillStore::new(scratch.path().join(format!("run{dir}")));
        let started = Instant::now();
        let contents = handle.read_resource(&uri).await?;
        let ctx = RenderContext {
            server: "bench",
            spill: &store,
            read_function: &MetaKind::Read.function_name("bench"),
            max_result_bytes: coyote_mcp::render::MAX_RESULT_BYTES,
        };
        last = render_resource_contents(contents, &ReadOptions::default(), &ctx);
        samples.push(started.elapsed());
        faults.push(own_minor_faults() - faults_before);
        cpu.push((own_cpu_seconds() - cpu_run_before) * 1e3);
        if last.get("spilled") != Some(&json!(true)) {
            return Err(format!("the blob did not spill: {last}").into());
        }
    }
    let cpu_per_read_ms = (own_cpu_seconds() - cpu_before) * 1e3 / runs as f64;
    let in_order: Vec<f64> = samples.iter().copied().map(millis).collect();
    samples.sort();
    let report = json!({
        "runs": runs,
        "median_ms": millis(samples[samples.len() / 2]),
        "min_ms": millis(samples[0]),
        "max_ms": millis(samples[samples.len() - 1]),
        "first_ms": in_order.first(),
        "last_ms": in_order.last(),
        "samples_ms": in_order,
        "minor_faults": faults,
        "cpu_ms": cpu,
        "cpu_per_read_ms": cpu_per_read_ms,
        "client_peak_rss_kib": own_peak_rss_kib(),
        "sha256": last["sha256"],
        "size_bytes": last["size_bytes"],
    });
    runtime.shutdown().await;
    println!("{report}");
    Ok(())
}
