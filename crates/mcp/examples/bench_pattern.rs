//! Benchmark driver for `scripts/bench pattern`: runs the `mcp_read_` pattern filter
//! ([`coyote_mcp::render::LineFilter`], formatted like `rg -n -C2`) over a file and writes the
//! result to stdout, so a whole process can be timed side by side with `rg -n -C2 RE FILE`.
//!
//! This measures the render code alone: a 100 MiB text cannot travel through MCP (one message
//! is capped at `MAX_MESSAGE_BYTES`, 80 MiB), so the file is read straight from disk.
//! Usage: `bench_pattern REGEX FILE`.

use std::error::Error;
use std::io::Write;

use coyote_mcp::render::LineFilter;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(pattern), Some(path)) = (args.next(), args.next()) else {
        return Err("usage: bench_pattern REGEX FILE".into());
    };
    let text = std::fs::read_to_string(&path)?;
    let filter = LineFilter::new(&pattern)?;
    let out = filter.filter(&text);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}
