//! The `rg -n -C2` line filter: never panics, and every output line is `N:…`, `N-…` or `--`
//! with strictly increasing line numbers.
#![no_main]

use coyote_mcp::render::LineFilter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else { return };
    let (pattern, text) = input.split_once('\n').unwrap_or((input, "a\nb\nc"));
    if pattern.len() > 64 {
        return;
    }
    let Ok(filter) = LineFilter::new(pattern) else { return };
    let out = filter.filter(text);
    let mut last = 0u64;
    for line in out.split_terminator('\n') {
        if line == "--" {
            continue;
        }
        let digits: String = line.chars().take_while(|c| c.is_ascii_digit()).collect();
        let n: u64 = digits.parse().expect("line number");
        assert!(n > last, "line numbers increase: {out:?}");
        last = n;
        assert!(matches!(line.as_bytes().get(digits.len()), Some(b':' | b'-')));
    }
});
