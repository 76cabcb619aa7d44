use std::time::{Duration, Instant};

use coyote_mcp::{McpLogLevel, ServerLogMessage};

use super::*;
use crate::ui::screen::{HeldLines, MAX_HELD_LOG_LINES};

#[test]
fn a_burst_then_a_steady_rate_with_the_skipped_counted() {
    let mut throttle = LogThrottle::default();
    let t0 = Instant::now();
    for _ in 0..10 {
        assert_eq!(throttle.admit("a", t0), Admit::Show { skipped: 0 });
    }
    assert_eq!(throttle.admit("a", t0), Admit::Skip);
    assert_eq!(throttle.admit("a", t0), Admit::Skip);
    // Another server has its own bucket.
    assert_eq!(throttle.admit("b", t0), Admit::Show { skipped: 0 });
    // Half a second later one line is allowed again, and says what was skipped.
    let later = t0 + Duration::from_millis(500);
    assert_eq!(throttle.admit("a", later), Admit::Show { skipped: 2 });
    assert_eq!(throttle.admit("a", later), Admit::Skip);
}

#[test]
fn a_flood_shows_a_bounded_number_of_lines_and_holds_no_more_than_the_cap() {
    let mut throttle = LogThrottle::default();
    let t0 = Instant::now();
    // 100 000 messages within one simulated second.
    let shown = (0..100_000u32)
        .filter(|i| {
            let now = t0 + Duration::from_micros(u64::from(*i) * 10);
            matches!(throttle.admit("flood", now), Admit::Show { .. })
        })
        .count();
    assert!(shown <= 13, "{shown} lines shown");
    assert!(shown >= 10, "{shown} lines shown");

    let mut held = HeldLines::default();
    for i in 0..10_000 {
        held.push(format!("line {i}"));
    }
    assert_eq!(held.len(), MAX_HELD_LOG_LINES);
    let lines = held.take();
    assert_eq!(lines.len(), MAX_HELD_LOG_LINES + 1);
    assert!(
        lines[0].contains("9900 server log line(s) were dropped"),
        "{}",
        lines[0]
    );
    assert_eq!(lines.last().map(String::as_str), Some("line 9999"));
    assert!(held.is_empty());
}

#[test]
fn lines_are_one_sanitized_line_with_server_level_and_logger() {
    let message = ServerLogMessage {
        server: "everything".into(),
        level: McpLogLevel::Error,
        logger: Some("db".into()),
        text: "boom\n\x1b[31mred".into(),
    };
    assert_eq!(
        format_line(&message, false),
        "[everything] error (db): boom ⏎ \\x1b[31mred"
    );
    assert_eq!(
        format_line(&message, true),
        "\x1b[2m[everything] error (db): boom ⏎ \\x1b[31mred\x1b[0m"
    );
    let long = ServerLogMessage {
        text: "x".repeat(10_000),
        logger: None,
        ..message
    };
    assert!(format_line(&long, false).chars().count() < MAX_LINE_CHARS + 40);
}
