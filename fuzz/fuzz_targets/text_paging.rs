//! Paging invariants: pages are whole code points, never larger than `max_bytes` (or one code
//! point when that is smaller), always advance, and walking the pages from any offset
//! reproduces the rest of the text exactly.
#![no_main]

use coyote_mcp::render::{MAX_BYTES_CLAMP, page_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let offset = usize::from(u16::from_le_bytes([data[0], data[1]]));
    let max_bytes = usize::from(u16::from_le_bytes([data[2], data[3]]));
    let text = String::from_utf8_lossy(&data[4..]);
    let limit = max_bytes.clamp(1, MAX_BYTES_CLAMP).max(4);
    let mut rebuilt = String::new();
    let mut at = offset;
    let mut first_offset = None;
    loop {
        let page = page_text(&text, at, max_bytes);
        assert!(page.text.len() <= limit);
        assert!(text.is_char_boundary(page.offset));
        first_offset.get_or_insert(page.offset);
        rebuilt.push_str(page.text);
        match page.next_offset {
            Some(next) => {
                assert!(next > at, "paging must advance");
                assert_eq!(next, page.offset + page.text.len());
                at = next;
            }
            None => {
                assert_eq!(page.offset + page.text.len(), text.len());
                break;
            }
        }
    }
    let start = first_offset.unwrap_or(0);
    assert!(start >= offset.min(text.len()) && start <= offset.min(text.len()) + 3);
    assert_eq!(rebuilt, &text[start..]);
});
