//! Template parsing never panics; an accepted template expands with every variable set, and
//! the values appear only percent-encoded.
#![no_main]

use std::collections::BTreeMap;

use coyote_mcp::uri_template::UriTemplate;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else { return };
    let (template, value) = input.split_once('\n').unwrap_or((input, "v a/l?ue"));
    let Ok(parsed) = UriTemplate::parse(template) else { return };
    let values: BTreeMap<String, String> =
        parsed.variables().into_iter().map(|v| (v.to_string(), value.to_string())).collect();
    let expanded = parsed.expand(&values).expect("all variables given");
    if parsed.variables().is_empty() {
        assert_eq!(expanded, template);
    }
    let missing = parsed.expand(&BTreeMap::new());
    assert_eq!(missing.is_err(), !parsed.variables().is_empty());
});
