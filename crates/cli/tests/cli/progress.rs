//! Progress of long calls against the TypeScript SDK's
//! `progressExample.js` (`count` sends n notifications, one per 100 ms): a growing n/100 on a
//! terminal (tmux) in `coyote mcp call` and in the REPL, at most 11 plain lines when piped,
//! none with `mcp call --json`, and `{"type": "progress"}` events in one-shot `--json`.
//! Assertions are about what the screen and the streams show, never about timing.

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply};
use coyote_test_support::peers;
use serde_json::{Value, json};

use super::client_repl::wait_ready;
use super::common::Home;
use super::repl::write_config;
use super::terminal::{Terminal, tmux_available};

fn progress_home() -> Option<Home> {
    let spec = peers::require(peers::sdk_example_stdio_command("progressExample.js"))?;
    let home = Home::new();
    let mut entry = peers::mcp_json_entry(&spec);
    entry["autoApprove"] = json!(["count"]);
    entry["expose"] = json!("direct");
    home.write_servers(json!({ "sdk": entry }));
    Some(home)
}

/// The largest `N/100` on the screen.
fn shown_count(screen: &str) -> Option<u32> {
    screen
        .match_indices("/100 (")
        .filter_map(|(i, _)| {
            let digits: String = screen[..i]
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            digits.parse().ok()
        })
        .max()
}

#[test]
fn piped_mcp_call_prints_at_most_eleven_progress_lines_and_json_none() {
    let Some(home) = progress_home() else {
        return;
    };
    let (code, out, err) = home.run(&["mcp", "call", "sdk", "count", "n=100"]);
    assert_eq!((code, out.as_str()), (0, "Counted to 100\n"), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("/100 (")).collect();
    assert!(
        (2..=11).contains(&lines.len()),
        "{} progress lines:\n{err}",
        lines.len()
    );
    assert!(lines[0].starts_with("count: "), "{lines:?}");
    assert!(
        lines.last().unwrap().contains("100/100 (100%)"),
        "{lines:?}"
    );

    let (code, out, err) = home.run(&["mcp", "call", "sdk", "count", "n=20", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("exactly one JSON document");
    assert_eq!(doc["content"][0]["text"], "Counted to 20");
    assert!(!err.contains("/20 ("), "{err}");
}

#[tokio::test]
async fn mcp_call_on_a_terminal_shows_a_growing_count() {
    if !tmux_available() {
        return;
    }
    let Some(home) = progress_home() else {
        return;
    };
    let term = Terminal::run(&home, &["mcp", "call", "sdk", "count", "n=100"], &[]);
    let screen = term
        .wait_for("a progress count", |s| shown_count(s).is_some())
        .await;
    let first = shown_count(&screen).unwrap();
    assert!(screen.contains("count ["), "{screen}");
    let later = term
        .wait_for("a larger count", |s| {
            shown_count(s).is_some_and(|n| n > first) || s.contains("Counted to 100")
        })
        .await;
    assert!(
        later.contains("Counted to 100") || shown_count(&later).unwrap() > first,
        "{later}"
    );
    let end = term.wait_text("[coyote exited 0]").await;
    assert!(end.contains("Counted to 100"), "{end}");
}

#[tokio::test]
async fn the_repl_shows_a_growing_count_while_the_model_calls_the_tool() {
    if !tmux_available() {
        return;
    }
    let Some(home) = progress_home() else {
        return;
    };
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call("sdk__count", json!({"n": 100})),
            Reply::text("COUNTING-DONE"),
        ],
    )
    .await;
    write_config(&home, &llm);
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    wait_ready(&term, "sdk", 1).await;
    term.type_text("count to a hundred");
    term.keys(&["Enter"]);
    let screen = term
        .wait_for("a progress count", |s| shown_count(s).is_some())
        .await;
    let first = shown_count(&screen).unwrap();
    let later = term
        .wait_for("a larger count", |s| {
            shown_count(s).is_some_and(|n| n > first) || s.contains("COUNTING-DONE")
        })
        .await;
    assert!(
        later.contains("COUNTING-DONE") || shown_count(&later).unwrap() > first,
        "{later}"
    );
    term.wait_text("COUNTING-DONE").await;
}

#[tokio::test]
async fn one_shot_json_has_progress_events() {
    let Some(home) = progress_home() else {
        return;
    };
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call("sdk__count", json!({"n": 30})),
            Reply::text("DONE"),
        ],
    )
    .await;
    write_config(&home, &llm);
    let (code, out, err) = home.run_async(&["--json", "count to thirty"]).await;
    assert_eq!(code, 0, "{err}");
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let progress: Vec<&Value> = events.iter().filter(|e| e["type"] == "progress").collect();
    assert!((2..=11).contains(&progress.len()), "{progress:?}\n{out}");
    assert_eq!(progress[0]["server"], "sdk");
    assert_eq!(progress[0]["total"], json!(30.0));
    assert!(
        progress.last().unwrap()["message"]
            .as_str()
            .unwrap()
            .starts_with("Counting: ")
    );
}

/// Acceptance 5: a flood of 20,000 progress notifications (the fake's `flood` tool) is
/// rate-limited where it is shown — at most 11 plain lines on a piped stderr from
/// `coyote mcp call`, at most 11 `progress` events in one-shot `--json` — and the call still
/// answers. (That the observer keeps only the latest update, so memory stays flat, is
/// `a_flood_of_progress_is_handed_over_without_queueing` in coyote-mcp.)
#[tokio::test]
async fn a_flood_of_progress_is_shown_rate_limited() {
    use coyote_test_support::{Capabilities, Scenario, ToolBehavior};

    use super::common::{chat_async, write_fake_model_config};

    const COUNT: u64 = 20_000;
    let home = Home::new();
    let file = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("flood", ToolBehavior::ProgressFlood { count: COUNT })
        .write_to(home.path())
        .unwrap();
    let mut entry = file.mcp_json_entry();
    entry["expose"] = json!("direct");
    home.write_servers(json!({ "fake": entry }));
    let shown = format!("/{COUNT} (");

    let (code, out, err) = home.run_async(&["mcp", "call", "fake", "flood"]).await;
    assert_eq!(out, format!("flooded {COUNT}\n"), "{err}");
    assert_eq!(code, 0, "{err}");
    let lines = err.lines().filter(|l| l.contains(&shown)).count();
    assert!((1..=11).contains(&lines), "{lines} progress lines:\n{err}");

    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call("fake__flood", json!({})),
            Reply::text("FLOODED"),
        ],
    )
    .await;
    write_fake_model_config(&home, &llm.api_base(), "");
    let (code, out, err) = chat_async(&home, &["--json", "flood it"]).await;
    assert_eq!(code, 0, "{err}");
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let progress = events.iter().filter(|e| e["type"] == "progress").count();
    assert!((1..=11).contains(&progress), "{progress} progress events");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "turn_finished", "{out}");
    assert_eq!(last["stop"]["reason"], "answered", "{out}");
    assert_eq!(llm.requests().len(), 2);
}

/// A REPL turn whose tool reports progress, on a `columns`-wide terminal with `env`; the
/// screen (rows as drawn, not joined) once the answer is there.
async fn repl_count_screen(columns: u16, env: &[(&str, &str)]) -> Option<String> {
    if !tmux_available() {
        return None;
    }
    let home = progress_home()?;
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call("sdk__count", json!({"n": 60})),
            Reply::text("COUNTING-DONE"),
        ],
    )
    .await;
    write_config(&home, &llm);
    let term = Terminal::run_sized(&home, &["repl"], env, (columns, 40));
    term.wait_prompts(1).await;
    wait_ready(&term, "sdk", 1).await;
    term.type_text("count to sixty");
    term.keys(&["Enter"]);
    term.wait_text("COUNTING-DONE").await;
    Some(term.tmux(&["capture-pane", "-p", "-S", "-200", "-t", "t"]))
}

/// At 40 columns the spinner line (label, bar, n/total) is cut to the width: before, it
/// wrapped, and each frame left its first row behind (36 stale lines in 3.6 s at 80 columns).
#[tokio::test]
async fn the_repl_spinner_is_cut_to_a_narrow_terminal_and_leaves_no_stale_lines() {
    let Some(screen) = repl_count_screen(40, &[]).await else {
        return;
    };
    let stale = screen.lines().filter(|l| l.contains("sdk__count")).count();
    assert!(stale <= 2, "{stale} lines name the call:\n{screen}");
}

/// Under NO_COLOR the REPL prints progress as plain lines (as `coyote mcp call` does and
/// docs/repl.md says) instead of animating: before, it animated and the lines vanished.
#[tokio::test]
async fn under_no_color_the_repl_prints_progress_as_lines() {
    let Some(screen) = repl_count_screen(120, &[("NO_COLOR", "1")]).await else {
        return;
    };
    let lines = screen.lines().filter(|l| l.contains("/60 (")).count();
    assert!(lines >= 2, "{lines} progress lines:\n{screen}");
}
