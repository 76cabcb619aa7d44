//! Opening a URL in the user's browser, for every flow that sends the user to a web page (URL
//! elicitation; OAuth sign-in can use the same rules). `$BROWSER` is a `:`-separated list of
//! commands; each runs without a shell, split on white space, with `%s` replaced by the URL (or
//! the URL appended as the last argument when there is no `%s`); the first that starts wins.
//! Without `$BROWSER`: `xdg-open` (Linux) or `open` (macOS). A browser that does not start is
//! not an error — callers always show the URL too, so the user can open it anywhere.
//!
//! Ground floor: imports no other module of the crate.

use std::process::{Command, Stdio};

/// The commands to try, in order: `$BROWSER`'s entries (`browser_env` is its value), else the
/// platform's opener.
pub fn browser_commands(browser_env: Option<&str>) -> Vec<Vec<String>> {
    let from_env: Vec<Vec<String>> = browser_env
        .unwrap_or("")
        .split(':')
        .map(|entry| {
            entry
                .split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter(|words| !words.is_empty())
        .collect();
    if !from_env.is_empty() {
        return from_env;
    }
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    vec![vec![opener.to_owned()]]
}

/// `command` with `%s` replaced by `url`, or `url` appended.
pub fn with_url(command: &[String], url: &str) -> Vec<String> {
    let mut words: Vec<String> = command.iter().map(|w| w.replace("%s", url)).collect();
    if !command.iter().any(|w| w.contains("%s")) {
        words.push(url.to_owned());
    }
    words
}

/// Starts the first of `browsers` that starts, with `url`; returns its program, or `None`
/// when none started. The browser is never waited for (a thread reaps it).
pub fn open_with(browsers: &[Vec<String>], url: &str) -> Option<String> {
    for command in browsers {
        let words = with_url(command, url);
        let Some((program, args)) = words.split_first() else {
            continue;
        };
        let spawned = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match spawned {
            Ok(mut child) => {
                std::thread::spawn(move || {
                    let _ = child.wait();
                });
                return Some(program.clone());
            }
            Err(e) => tracing::debug!(browser = %program, error = %e, "browser did not start"),
        }
    }
    None
}

/// Opens `url` with `$BROWSER` (read now) or the platform's opener.
pub fn open(url: &str) -> Option<String> {
    let env = std::env::var("BROWSER").ok();
    open_with(&browser_commands(env.as_deref()), url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_lists_split_on_colons_and_words() {
        assert_eq!(
            browser_commands(Some("firefox --new-tab:w3m")),
            vec![
                vec!["firefox".to_owned(), "--new-tab".to_owned()],
                vec!["w3m".to_owned()]
            ]
        );
        let default = browser_commands(Some(" : "));
        assert_eq!(default.len(), 1);
        assert!(default[0][0] == "xdg-open" || default[0][0] == "open");
    }

    #[test]
    fn the_url_replaces_percent_s_or_is_appended() {
        let cmd = vec!["b".to_owned(), "--url=%s".to_owned()];
        assert_eq!(with_url(&cmd, "http://x"), vec!["b", "--url=http://x"]);
        assert_eq!(
            with_url(&["b".to_owned()], "http://x"),
            vec!["b", "http://x"]
        );
    }

    #[test]
    fn the_first_browser_that_starts_wins_and_none_is_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("opened");
        let script = format!("echo \"$1\" > {}", out.display());
        let browsers = vec![
            vec!["/nonexistent/browser".to_owned()],
            vec!["sh".to_owned(), "-c".to_owned(), script, "sh".to_owned()],
        ];
        assert_eq!(
            open_with(&browsers, "http://127.0.0.1/x").as_deref(),
            Some("sh")
        );
        for _ in 0..200 {
            if std::fs::read_to_string(&out).is_ok_and(|t| !t.is_empty()) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(
            std::fs::read_to_string(&out).unwrap().trim(),
            "http://127.0.0.1/x"
        );
        assert_eq!(
            open_with(&[vec!["/nonexistent/b".to_owned()]], "http://x"),
            None
        );
    }
}
