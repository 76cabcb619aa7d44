//! What the terminal on each standard stream can do, decided once from the environment and the
//! file descriptors: whether stdin/stdout/stderr are terminals, whether output may be styled
//! (colour, bold, OSC 8 links), 24-bit colour, hyperlinks, and the width tables and prose are
//! fitted to. The prompt, the spinner, tables, error lines and the Markdown renderer all ask
//! here instead of reading `NO_COLOR` themselves.
//!
//! Rules, in order (<https://no-color.org>, the `CLICOLOR_FORCE` convention):
//! 1. `NO_COLOR` set and non-empty: no colour anywhere — it wins over everything;
//! 2. `CLICOLOR_FORCE` set, non-empty and not `0`: colour even when the stream is no terminal;
//! 3. `TERM=dumb`: plain;
//! 4. otherwise colour exactly when the stream is a terminal.

use std::io::IsTerminal;
use std::sync::OnceLock;

/// Which standard streams are terminals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ttys {
    /// stdin is a terminal.
    pub stdin: bool,
    /// stdout is a terminal.
    pub stdout: bool,
    /// stderr is a terminal.
    pub stderr: bool,
}

impl Ttys {
    /// The real file descriptors 0, 1 and 2.
    pub fn detect() -> Self {
        Ttys {
            stdin: std::io::stdin().is_terminal(),
            stdout: std::io::stdout().is_terminal(),
            stderr: std::io::stderr().is_terminal(),
        }
    }
}

/// The capabilities of this process's terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caps {
    /// Which streams are terminals.
    pub ttys: Ttys,
    /// Styling (colour, bold, links) is allowed on stdout.
    pub color_stdout: bool,
    /// Styling is allowed on stderr (prompt, spinner, error and status lines).
    pub color_stderr: bool,
    /// The terminal announces 24-bit colour (`COLORTERM=truecolor|24bit`); else 256 colours.
    pub truecolor: bool,
    /// OSC 8 hyperlinks are understood (a known terminal, and not inside tmux/screen).
    pub hyperlinks: bool,
    /// `TERM=dumb`: no cursor movement either (the spinner does not animate).
    pub dumb: bool,
    /// `$COLUMNS` as a number, used for stdout width when stdout is no terminal.
    pub columns_env: Option<usize>,
}

impl Caps {
    /// Reads the environment and the standard streams.
    pub fn detect() -> Self {
        Caps::from_env(&|name| std::env::var(name).ok(), Ttys::detect())
    }

    /// The capabilities for an environment lookup and the terminal flags (pure; for tests).
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>, ttys: Ttys) -> Self {
        let set = |name: &str| env(name).filter(|v| !v.is_empty());
        let no_color = set("NO_COLOR").is_some();
        let forced = set("CLICOLOR_FORCE").is_some_and(|v| v != "0");
        let dumb = env("TERM").is_some_and(|t| t == "dumb");
        let allowed = |tty: bool| !no_color && (forced || (!dumb && tty));
        let colorterm = env("COLORTERM").unwrap_or_default().to_ascii_lowercase();
        Caps {
            ttys,
            color_stdout: allowed(ttys.stdout),
            color_stderr: allowed(ttys.stderr),
            truecolor: colorterm == "truecolor" || colorterm == "24bit",
            hyperlinks: hyperlinks_supported(env),
            dumb,
            columns_env: env("COLUMNS").and_then(|c| c.trim().parse().ok()),
        }
    }

    /// The width output to stdout is fitted to: the terminal's when stdout is one, else
    /// `$COLUMNS`, else `None` (unlimited).
    pub fn stdout_width(&self) -> Option<usize> {
        if self.ttys.stdout
            && let Ok(size) = rustix::termios::tcgetwinsize(std::io::stdout())
            && size.ws_col > 0
        {
            return Some(usize::from(size.ws_col));
        }
        self.columns_env.filter(|c| *c > 0)
    }

    /// The width prose on stderr is wrapped to: the terminal's when stderr is one, else
    /// `$COLUMNS`, else `None` (not wrapped: a log or a pipe keeps each message on one line).
    pub fn stderr_width(&self) -> Option<usize> {
        if self.ttys.stderr
            && let Ok(size) = rustix::termios::tcgetwinsize(std::io::stderr())
            && size.ws_col > 0
        {
            return Some(usize::from(size.ws_col));
        }
        self.columns_env.filter(|c| *c > 0)
    }

    /// Questions can be asked: stdin and stderr are terminals.
    pub fn interactive(&self) -> bool {
        self.ttys.stdin && self.ttys.stderr
    }

    /// The spinner may redraw its line (stderr is a terminal that understands it).
    pub fn animate(&self) -> bool {
        self.ttys.stderr && !self.dumb
    }
}

tokio::task_local! {
    /// Another process's capabilities, for the output made for it (`coyote mcp session`).
    static FOR_CLIENT: &'static Caps;
}

/// The capabilities detected at the first call, shared by the whole process — or, inside
/// [`with_caps`], the ones given there.
pub fn caps() -> &'static Caps {
    if let Ok(client) = FOR_CLIENT.try_with(|c| *c) {
        return client;
    }
    static CAPS: OnceLock<Caps> = OnceLock::new();
    CAPS.get_or_init(Caps::detect)
}

/// Runs `work` with `caps` in place of this process's: a session daemon makes a client's
/// output as the client's own terminal would have it (width, colours, sanitizing). Each
/// distinct value is kept for the rest of the process (there are few: one per terminal shape).
pub async fn with_caps<F: Future>(caps: Caps, work: F) -> F::Output {
    static SEEN: std::sync::Mutex<Vec<&'static Caps>> = std::sync::Mutex::new(Vec::new());
    let interned = {
        let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
        match seen.iter().find(|c| ***c == caps) {
            Some(c) => *c,
            None => {
                let c: &'static Caps = Box::leak(Box::new(caps));
                seen.push(c);
                c
            }
        }
    };
    FOR_CLIENT.scope(interned, work).await
}

/// Terminals known to render OSC 8 links; tmux and screen pass them on only when configured,
/// so inside them links are written as `text (url)`.
fn hyperlinks_supported(env: &dyn Fn(&str) -> Option<String>) -> bool {
    if env("TMUX").is_some() || env("TERM").is_some_and(|t| t.starts_with("screen")) {
        return false;
    }
    let program = env("TERM_PROGRAM").unwrap_or_default();
    let known_program = [
        "iTerm.app",
        "WezTerm",
        "vscode",
        "ghostty",
        "Hyper",
        "Tabby",
        "rio",
    ]
    .contains(&program.as_str());
    let vte = env("VTE_VERSION")
        .and_then(|v| v.parse::<u32>().ok())
        .is_some_and(|v| v >= 5000);
    let term = env("TERM").unwrap_or_default();
    known_program
        || vte
        || env("KITTY_WINDOW_ID").is_some()
        || env("WT_SESSION").is_some()
        || term.contains("kitty")
        || term.starts_with("foot")
        || term == "alacritty"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps_with(vars: &[(&str, &str)], tty: bool) -> Caps {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let env = move |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        Caps::from_env(
            &env,
            Ttys {
                stdin: tty,
                stdout: tty,
                stderr: tty,
            },
        )
    }

    #[test]
    fn colour_follows_the_terminal_by_default() {
        assert!(caps_with(&[], true).color_stdout);
        assert!(!caps_with(&[], false).color_stdout);
        assert!(!caps_with(&[], false).color_stderr);
    }

    #[test]
    fn no_color_wins_over_everything() {
        let c = caps_with(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")], true);
        assert!(!c.color_stdout && !c.color_stderr);
        // An empty NO_COLOR does not count.
        assert!(caps_with(&[("NO_COLOR", "")], true).color_stdout);
    }

    #[test]
    fn clicolor_force_enables_colour_off_a_terminal_unless_zero_or_empty() {
        assert!(caps_with(&[("CLICOLOR_FORCE", "1")], false).color_stdout);
        assert!(caps_with(&[("CLICOLOR_FORCE", "yes")], false).color_stderr);
        assert!(!caps_with(&[("CLICOLOR_FORCE", "0")], false).color_stdout);
        assert!(!caps_with(&[("CLICOLOR_FORCE", "")], false).color_stdout);
    }

    #[test]
    fn term_dumb_is_plain_and_does_not_animate() {
        let c = caps_with(&[("TERM", "dumb")], true);
        assert!(!c.color_stdout && !c.animate());
        assert!(caps_with(&[("TERM", "xterm")], true).animate());
    }

    #[test]
    fn truecolor_hyperlinks_and_columns() {
        assert!(caps_with(&[("COLORTERM", "truecolor")], true).truecolor);
        assert!(!caps_with(&[("COLORTERM", "")], true).truecolor);
        assert!(caps_with(&[("TERM_PROGRAM", "WezTerm")], true).hyperlinks);
        assert!(!caps_with(&[("TERM_PROGRAM", "WezTerm"), ("TMUX", "/tmp/x")], true).hyperlinks);
        assert!(!caps_with(&[("TERM", "xterm-256color")], true).hyperlinks);
        let c = caps_with(&[("COLUMNS", "80")], false);
        assert_eq!(c.stdout_width(), Some(80));
        assert_eq!(caps_with(&[], false).stdout_width(), None);
    }
}
