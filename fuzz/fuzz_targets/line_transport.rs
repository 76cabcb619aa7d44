//! Untrusted stdio bytes through every parser of the line transport: the id scanners of
//! oversized lines, the blob divert scanner, the lone-surrogate repair and the transport itself
//! over a stream cut anywhere. The checks live in `coyote_mcp::connect::line::fuzzing::check`,
//! so `cargo test` replays the checked-in corpus through the same code.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    coyote_mcp::connect::line::fuzzing::check(data);
});
