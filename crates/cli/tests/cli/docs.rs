//! Every `coyote --config-dir examples …` line in docs/mcp-cli.md and README.md runs, from the
//! repository root, against examples/mcp.json (server-everything installed by `npm ci`).

use std::path::Path;

use super::common::Home;

/// Splits a shell line into words, honouring single and double quotes (no escapes needed).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

fn example_lines(doc: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut in_sh = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh" && !in_sh;
            continue;
        }
        if in_sh && line.starts_with("coyote --config-dir examples ") {
            lines.push(line.to_owned());
        }
        if in_sh && line.starts_with("cargo run -p coyote-cli -- --config-dir examples ") {
            lines.push(line.replacen("cargo run -p coyote-cli --", "coyote", 1));
        }
    }
    lines
}

#[test]
fn documented_examples_run_against_the_example_config() {
    if coyote_test_support::peers::require(coyote_test_support::peers::server_everything_entry())
        .is_none()
    {
        return;
    }
    let root = coyote_test_support::peers::repo_root();
    let mut lines = example_lines(&root.join("docs/mcp-cli.md"));
    lines.extend(example_lines(&root.join("README.md")));
    assert!(
        lines.len() >= 10,
        "expected the documented examples, found {lines:?}"
    );
    let home = Home::new();
    for line in lines {
        let words = shell_words(&line);
        let out = home
            .coyote()
            .current_dir(&root)
            .args(&words[1..])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "documented example failed: {line}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.stdout.is_empty(),
            "documented example printed nothing: {line}"
        );
    }
}
