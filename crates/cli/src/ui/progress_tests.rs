use super::*;

fn update(progress: f64, total: Option<f64>, message: Option<&str>) -> ProgressUpdate {
    ProgressUpdate {
        server: "srv".into(),
        progress,
        total,
        message: message.map(str::to_owned),
    }
}

#[test]
fn an_update_reads_as_count_total_percent_and_a_safe_message() {
    assert_eq!(
        describe(&update(45.0, Some(100.0), Some("Step 45"))),
        "45/100 (45%) Step 45"
    );
    assert_eq!(describe(&update(3.0, None, None)), "3");
    assert_eq!(describe(&update(0.5, Some(2.0), None)), "0.5/2 (25%)");
    // A message with escape sequences and new lines stays on one harmless line.
    let shown = describe(&update(1.0, Some(4.0), Some("a\x1b[2Jb\nc")));
    assert!(
        !shown.contains('\x1b') && !shown.contains('\n'),
        "{shown:?}"
    );
    assert_eq!(bar(0.5).chars().filter(|c| *c == '█').count(), 10);
}

/// A flood of 100,000 notifications with a total prints at most 11 lines (0 %, 10 %, …, 100 %).
#[test]
fn a_flood_with_a_total_gives_at_most_one_line_per_tenth() {
    let mut limiter = PlainLimiter::default();
    let now = Instant::now();
    let admitted = (1..=100_000)
        .filter(|n| limiter.admit(&update(*n as f64, Some(100_000.0), None), now))
        .count();
    assert_eq!(admitted, 11);
    let mut limiter = PlainLimiter::default();
    let admitted = (0..=100)
        .filter(|n| limiter.admit(&update(*n as f64, Some(100.0), None), now))
        .count();
    assert_eq!(admitted, 11);
}

/// Without a total: one line, then none until 5 s have passed.
#[test]
fn a_flood_without_a_total_gives_one_line_per_five_seconds() {
    let mut limiter = PlainLimiter::default();
    let start = Instant::now();
    let admitted = (1..=100_000)
        .filter(|n| limiter.admit(&update(*n as f64, None, None), start))
        .count();
    assert_eq!(admitted, 1);
    assert!(!limiter.admit(&update(1.0, None, None), start + Duration::from_secs(4)));
    assert!(limiter.admit(&update(1.0, None, None), start + PLAIN_QUIET));
}

#[test]
fn the_terminal_line_has_the_bar_the_numbers_and_the_elapsed_time() {
    let state = Shared {
        label: "count".into(),
        latest: Some(update(30.0, Some(100.0), Some("Step 30"))),
        limiter: PlainLimiter::default(),
        started: Instant::now(),
        frame: 0,
        drawn: false,
    };
    let text = line(&state);
    assert!(text.contains("count [██████"), "{text}");
    assert!(text.contains("30/100 (30%) Step 30 · 0s"), "{text}");
    let waiting = Shared {
        latest: None,
        ..state
    };
    assert!(line(&waiting).ends_with("count · 0s"), "{}", line(&waiting));
}
