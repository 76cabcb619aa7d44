//! `!cmd`: runs a shell command typed by the user, on the terminal, and waits for it. The
//! model never sees the command or its output. Only a line the person typed can get here
//! (`line::classify`); prompt results and model output never do.

use std::process::Command;

use crate::ui::screen::Screen;

/// Runs `command` with `$SHELL -c` (default `sh`), inheriting the terminal. Ctrl-C reaches the
/// command (the REPL itself ignores SIGINT while it waits).
pub fn run(command: &str, screen: &Screen) {
    if command.is_empty() {
        screen.line("coyote: usage: !COMMAND (runs COMMAND in your shell)");
        return;
    }
    let shell = std::env::var("SHELL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "sh".to_owned());
    match Command::new(&shell).arg("-c").arg(command).status() {
        Ok(status) if status.success() => {}
        Ok(status) => screen.line(&format!("coyote: the command {status}")),
        Err(error) => screen.line(&format!(
            "coyote: cannot run {shell}: {error}; set $SHELL to a working shell"
        )),
    }
}
