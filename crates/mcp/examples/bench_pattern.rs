//! Benchmark driver for `scripts/bench pattern`: runs the `mcp_read_` pattern filter
//! ([`coyote_mcp::render::LineFilter`], formatted like `rg -n -C2`) over a file and writes the
//! result to stdout, so a whole process can be timed side by side with `rg -n -C2 RE FILE`.
//!
//! This measures the render code alone: a 100 MiB text cannot travel through MCP (one message
//! is capped at `MAX_MESSAGE_BYTES`, 80 MiB), so the file is read straight from disk.
//!
//! Fair comparison: both processes read the whole file. ripgrep memory-maps a single file
//! given on the command line; this driver streams it through `LineFilter::filter_reader`
//! (one reused 64 KiB buffer, like `rg --no-mmap`), validating UTF-8 as it goes — which rg
//! does not do. `--whole` instead reads the file into one `String` first and runs
//! `LineFilter::filter` on it, the path an MCP text takes (its bytes are already in memory).
//!
//! Usage: `bench_pattern [--whole] REGEX FILE`.

use std::error::Error;
use std::io::Write;

use coyote_mcp::render::LineFilter;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let whole = args.first().is_some_and(|a| a == "--whole");
    if whole {
        args.remove(0);
    }
    let [pattern, path] = args.as_slice() else {
        return Err("usage: bench_pattern [--whole] REGEX FILE".into());
    };
    let filter = LineFilter::new(pattern)?;
    let out = if whole {
        filter.filter(&std::fs::read_to_string(path)?)
    } else {
        filter.filter_reader(std::fs::File::open(path)?)?
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}
