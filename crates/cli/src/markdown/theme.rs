//! Which background the answer is drawn on: `--theme` / config.yaml `theme`, where `auto` reads
//! `COLORFGBG`, then asks the terminal (an OSC 11 background-colour query on `/dev/tty`, answered
//! within 100 ms or not at all), and otherwise assumes dark.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// The `--theme` / `theme:` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ThemeChoice {
    /// Detect the background (COLORFGBG, then an OSC 11 query, else dark).
    #[default]
    Auto,
    /// Colours for a dark background.
    Dark,
    /// Colours for a light background.
    Light,
}

/// The background colours are chosen for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    /// A dark background.
    Dark,
    /// A light background.
    Light,
}

/// How long the terminal may take to answer the background query.
pub const QUERY_TIMEOUT: Duration = Duration::from_millis(100);

/// The theme for `choice`; `auto` may query the terminal (once per process).
pub fn resolve(choice: ThemeChoice) -> Theme {
    match choice {
        ThemeChoice::Dark => Theme::Dark,
        ThemeChoice::Light => Theme::Light,
        ThemeChoice::Auto => {
            static DETECTED: std::sync::OnceLock<Theme> = std::sync::OnceLock::new();
            *DETECTED.get_or_init(|| {
                from_colorfgbg(std::env::var("COLORFGBG").ok().as_deref())
                    .or_else(query_background)
                    .unwrap_or(Theme::Dark)
            })
        }
    }
}

/// `COLORFGBG=fg;bg` (rxvt, Konsole, …): background 7 or 9–15 is light, the others dark.
pub fn from_colorfgbg(value: Option<&str>) -> Option<Theme> {
    let bg: u8 = value?.rsplit(';').next()?.trim().parse().ok()?;
    Some(if bg == 7 || (9..=15).contains(&bg) {
        Theme::Light
    } else {
        Theme::Dark
    })
}

/// The theme from an OSC 11 answer (`\e]11;rgb:RRRR/GGGG/BBBB` + BEL or ST).
pub fn from_osc11(answer: &str) -> Option<Theme> {
    let rgb = answer.split("rgb:").nth(1)?;
    let mut parts = rgb.split('/').map(|p| {
        let hex: String = p.chars().take_while(char::is_ascii_hexdigit).collect();
        let max = 16f64.powi(i32::try_from(hex.len()).ok()?) - 1.0;
        u32::from_str_radix(&hex, 16)
            .ok()
            .map(|v| f64::from(v) / max)
    });
    let (r, g, b) = (parts.next()??, parts.next()??, parts.next()??);
    let luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    Some(if luminance > 0.5 {
        Theme::Light
    } else {
        Theme::Dark
    })
}

/// Asks the terminal for its background colour: OSC 11, followed by a device-attributes query
/// that every terminal answers, so an unsupported OSC 11 ends the wait early. The terminal is in
/// raw mode only for the query; `None` when there is no terminal or no answer in time.
fn query_background() -> Option<Theme> {
    use rustix::termios::{OptionalActions, tcgetattr, tcsetattr};
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let saved = tcgetattr(&tty).ok()?;
    let mut raw = saved.clone();
    raw.make_raw();
    tcsetattr(&tty, OptionalActions::Now, &raw).ok()?;
    let answer = exchange(&mut tty);
    let _ = tcsetattr(&tty, OptionalActions::Now, &saved);
    from_osc11(&answer?)
}

/// Writes the queries and reads until the device-attributes answer or the timeout.
fn exchange(tty: &mut std::fs::File) -> Option<String> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    tty.write_all(b"\x1b]11;?\x1b\\\x1b[c").ok()?;
    tty.flush().ok()?;
    let deadline = Instant::now() + QUERY_TIMEOUT;
    let mut answer = Vec::new();
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        let mut fds = [PollFd::new(&*tty, PollFlags::IN)];
        if poll(&mut fds, Some(&timeout)).ok()? == 0 {
            return None;
        }
        let mut buf = [0u8; 256];
        let n = tty.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        answer.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&answer);
        // The device-attributes answer `ESC [ ? … c` comes last.
        if let Some(da) = text.find("\x1b[?")
            && text[da..].contains('c')
        {
            return Some(text.into_owned());
        }
    }
}
