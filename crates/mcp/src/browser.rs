//! Opening a URL in the user's browser, for every flow that sends the user to a web page (URL
//! elicitation, OAuth sign-in), with one rule for what may be opened: `https`, or plain `http`
//! to this computer (127.0.0.0/8, `::1`, `localhost`) — never `javascript:`, `file:`, `data:`,
//! custom schemes or plain http across the network ([`openable_origin`]). `$BROWSER` is a `:`-separated list of
//! commands; each runs without a shell, split on white space, with `%s` replaced by the URL (or
//! the URL appended as the last argument when there is no `%s`); the first that starts wins.
//! Without `$BROWSER`: `xdg-open` (Linux) or `open` (macOS). A browser that does not start is
//! not an error — callers always show the URL too, so the user can open it anywhere.
//!
//! Ground floor: imports no other module of the crate.

use std::process::{Command, Stdio};

/// Why a URL is not opened in a browser.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotOpenable {
    /// Not a URL at all.
    #[error("it is not a valid URL")]
    Invalid,
    /// A scheme other than http(s).
    #[error("its scheme `{0}:` is not https")]
    Scheme(String),
    /// Plain http to another computer.
    #[error(
        "it is plain http to {0}, which is not this computer (only https is opened, or http to 127.0.0.1, ::1 or localhost)"
    )]
    PlainHttp(String),
}

/// The origin (`https://example.com:8443`) of a URL that may be opened in a browser — what the
/// user should check before opening it — or why it may not be.
pub fn openable_origin(url: &str) -> Result<String, NotOpenable> {
    let parsed = reqwest::Url::parse(url).map_err(|_| NotOpenable::Invalid)?;
    let host = parsed.host();
    let loopback = match &host {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match parsed.scheme() {
        "https" if host.is_some() => {}
        "http" if loopback => {}
        "http" => {
            return Err(NotOpenable::PlainHttp(
                host.map_or_else(String::new, |h| h.to_string()),
            ));
        }
        "https" => return Err(NotOpenable::Invalid),
        other => return Err(NotOpenable::Scheme(other.to_owned())),
    }
    Ok(parsed.origin().ascii_serialization())
}

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
/// when none started or the URL may not be opened ([`openable_origin`]). The browser is never waited for (a thread reaps it).
pub fn open_with(browsers: &[Vec<String>], url: &str) -> Option<String> {
    if let Err(why) = openable_origin(url) {
        tracing::warn!("not opening a page in the browser: {why}");
        return None;
    }
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

    #[test]
    fn only_https_or_http_to_this_computer_is_opened() {
        assert_eq!(
            openable_origin("https://user:pw@pay.example.com:8443/x?y=1"),
            Ok("https://pay.example.com:8443".to_owned())
        );
        for ok in [
            "http://127.0.0.1:8080/cb",
            "http://127.1.2.3/",
            "http://localhost:3000/authorize",
            "http://[::1]:9/a",
        ] {
            assert!(openable_origin(ok).is_ok(), "{ok}");
        }
        for (bad, why) in [
            (
                "javascript:alert(1)",
                NotOpenable::Scheme("javascript".into()),
            ),
            ("file:///etc/passwd", NotOpenable::Scheme("file".into())),
            (
                "data:text/html,<b>x</b>",
                NotOpenable::Scheme("data".into()),
            ),
            ("vscode://open?x", NotOpenable::Scheme("vscode".into())),
            (
                "http://auth.example.com/authorize",
                NotOpenable::PlainHttp("auth.example.com".into()),
            ),
            (
                "http://192.168.1.10/a",
                NotOpenable::PlainHttp("192.168.1.10".into()),
            ),
            ("not a url", NotOpenable::Invalid),
        ] {
            assert_eq!(openable_origin(bad), Err(why), "{bad}");
        }
        // A refused URL is never handed to a browser.
        assert_eq!(
            open_with(&[vec!["true".to_owned()]], "file:///etc/passwd"),
            None
        );
    }
}
