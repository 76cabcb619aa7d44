//! Narrow terminals: every listing fits the width it is given. Before, README's first demo
//! command (`mcp servers`) exited 101 below ~130 columns ("attempt to subtract with
//! overflow" in the table fitter), and `models`, `mcp cache` and `mcp resources` crashed the
//! same way at narrower widths; where nothing crashed, lines came out wider than the terminal.

use std::time::Duration;

use unicode_width::UnicodeWidthStr;

use super::common::{Home, everything_entry};
use super::terminal::{Terminal, tmux_available};

/// The listings a newcomer runs first, with server-everything configured as `everything`.
const LISTINGS: [&[&str]; 7] = [
    &["mcp", "servers"],
    &["mcp", "tools", "everything"],
    &["mcp", "resources", "everything"],
    &["mcp", "prompts", "everything"],
    &["mcp", "tools"],
    &["mcp", "cache"],
    &["models"],
];

fn widest(text: &str) -> usize {
    text.lines().map(UnicodeWidthStr::width).max().unwrap_or(0)
}

#[test]
fn every_listing_fits_20_40_80_and_120_columns() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(serde_json::json!({ "everything": entry }));
    for width in [20_usize, 40, 80, 120] {
        for args in LISTINGS {
            let out = home
                .coyote()
                .args(args)
                .env("COLUMNS", width.to_string())
                .output()
                .unwrap();
            let (stdout, stderr) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert_eq!(
                out.status.code(),
                Some(0),
                "COLUMNS={width} coyote {args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}"
            );
            for (stream, text) in [("stdout", &stdout), ("stderr", &stderr)] {
                assert!(
                    widest(text) <= width,
                    "COLUMNS={width} coyote {args:?}: a {stream} line is {} wide:\n{text}",
                    widest(text)
                );
            }
        }
    }
}

/// README's demo listings in a real 80x24 terminal (a pty: the width comes from the terminal,
/// not `$COLUMNS`), default environment; wrapped lines are joined before they are measured.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readme_listings_fit_an_80_column_terminal() {
    if !tmux_available() {
        return;
    }
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(serde_json::json!({ "everything": entry }));
    for args in &LISTINGS[..4] {
        let term = Terminal::run_sized(&home, args, &[], (80, 24));
        let screen = term
            .wait_for("the command to end", |s| s.contains("[coyote exited"))
            .await;
        assert!(
            screen.contains("[coyote exited 0]"),
            "coyote {args:?} at 80x24:\n{screen}"
        );
        let width = screen
            .lines()
            .map(|l| l.trim_end().width())
            .max()
            .unwrap_or(0);
        assert!(
            width <= 80,
            "coyote {args:?}: a line is {width} wide:\n{screen}"
        );
        drop(term);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
