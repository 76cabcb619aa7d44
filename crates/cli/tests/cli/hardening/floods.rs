//! Defect 6 (outputs): a server flooding stderr is limited in coyote.log (2,000 lines or 1 MiB
//! per 10 s, the rest counted in a summary line), and coyote.log rotates at 10 MiB keeping
//! three files.

use coyote_test_support::{Scenario, ToolBehavior};
use serde_json::json;

use super::super::common::Home;
use super::{log_file, log_text};

/// The number after `key=` on `line`, if any.
fn field(line: &str, key: &str) -> Option<u64> {
    let start = line.find(&format!("{key}="))? + key.len() + 1;
    let digits: String = line[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[test]
fn a_server_flooding_stderr_is_limited_in_the_log_with_a_summary() {
    let home = Home::new();
    let lines = 20_000u64;
    let text = format!("noise {}", "n".repeat(94));
    let scenario = Scenario::builder()
        .tool(
            "flood",
            ToolBehavior::StderrNoise {
                lines: u32::try_from(lines).unwrap(),
                text: text.clone(),
            },
        )
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "noisy": scenario.mcp_json_entry() }));
    let (code, out, err) = home.run(&["mcp", "call", "noisy", "flood"]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");

    let log = log_text(&home);
    let forwarded = log.lines().filter(|l| l.contains(&text)).count() as u64;
    let summaries: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("stderr lines over the limit"))
        .collect();
    let dropped: u64 = summaries
        .iter()
        .filter_map(|l| field(l, "dropped_lines"))
        .sum();
    assert!(
        !summaries.is_empty(),
        "no summary line; {forwarded} lines forwarded"
    );
    assert!(
        summaries.iter().all(|l| l.contains("noisy")),
        "{summaries:?}"
    );
    assert_eq!(forwarded + dropped, lines, "{summaries:?}");
    assert!(forwarded < lines, "nothing was dropped");
}

#[test]
fn the_log_rotates_at_10_mib_keeping_three_files() {
    let home = Home::new();
    let log = log_file(&home);
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    let full = "old log line\n".repeat(10 * 1024 * 1024 / 13 + 1);
    std::fs::write(&log, &full).unwrap();
    let rotated = |n: u32| log.with_extension(format!("log.{n}"));
    std::fs::write(rotated(1), "older\n").unwrap();
    std::fs::write(rotated(2), "oldest\n").unwrap();
    let scenario = Scenario::builder()
        .tool("echo", ToolBehavior::Echo)
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let (code, _out, err) = home.run(&["mcp", "call", "fake", "echo", "text=hi"]);
    assert_eq!(code, 0, "{err}");

    let current = std::fs::read_to_string(&log).unwrap();
    assert!(
        !current.is_empty() && !current.contains("old log line"),
        "coyote.log was not rotated ({} bytes)",
        current.len()
    );
    assert_eq!(std::fs::read_to_string(rotated(1)).unwrap(), full);
    assert_eq!(std::fs::read_to_string(rotated(2)).unwrap(), "older\n");
    assert!(!rotated(3).exists(), "only three files are kept");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&log).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}
