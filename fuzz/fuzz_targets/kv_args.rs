//! `key=value` parsing never panics; accepted keys are valid, values survive a quote
//! round-trip.
#![no_main]

use coyote_mcp::prompt::parse_kv_args;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else { return };
    let Ok(args) = parse_kv_args(line) else { return };
    let mut quoted = String::new();
    for (key, value) in &args {
        assert!(!key.is_empty());
        assert!(key.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.')));
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        quoted.push_str(&format!("{key}=\"{escaped}\" "));
    }
    // Escapes `\n`/`\t` inside double quotes are interpreted, so only compare when absent.
    if args.values().all(|v| !v.contains('\\')) {
        assert_eq!(parse_kv_args(&quoted).expect("re-quoted line parses"), args);
    }
});
