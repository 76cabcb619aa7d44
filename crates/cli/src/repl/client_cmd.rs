//! The REPL's commands for the client features: `.roots list|add DIR|remove DIR` (the
//! session's roots; a change is announced to the servers that follow them) and `.mcp log NAME
//! LEVEL` (`logging/setLevel`, and the level the server's messages are shown from).

use std::path::{Path, PathBuf};

use coyote_mcp::McpLogLevel;

use super::Repl;
use super::commands::RootsCommand;

/// `DIR` as an absolute, existing directory: `~` is the home directory, a relative path is
/// taken from the working directory.
pub fn resolve_dir(dir: &str, cwd: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
    let expanded = match (dir.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(dir),
    };
    let absolute = cwd.join(expanded);
    match std::fs::canonicalize(&absolute) {
        Ok(path) if path.is_dir() => Ok(path),
        Ok(path) => Err(format!("{} is not a directory", path.display())),
        Err(e) => Err(format!("cannot use {}: {e}", absolute.display())),
    }
}

impl Repl {
    /// `.roots …`.
    pub(super) fn roots_command(&mut self, command: &RootsCommand) {
        let runtime = self.runtime().clone();
        let Some(roots) = runtime.roots() else {
            self.screen.line(
                "coyote: this session offers no roots (the working directory could not be read)",
            );
            return;
        };
        let cwd = std::env::current_dir().unwrap_or_default();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let text = match command {
            RootsCommand::List => self.roots_list(&roots.dirs()),
            RootsCommand::Add(dir) => match resolve_dir(dir, &cwd, home.as_deref()) {
                Ok(path) => {
                    let added = self.runtime_handle.block_on(runtime.add_root(path.clone()));
                    if added {
                        format!("Added root {}; the servers were told.\n", path.display())
                    } else {
                        format!("{} is already a root.\n", path.display())
                    }
                }
                Err(e) => format!("coyote: {e}\n"),
            },
            RootsCommand::Remove(dir) => {
                // A removed directory may no longer exist: fall back to the path as typed.
                let path =
                    resolve_dir(dir, &cwd, home.as_deref()).unwrap_or_else(|_| cwd.join(dir));
                let removed = self.runtime_handle.block_on(runtime.remove_root(&path));
                if removed {
                    format!("Removed root {}; the servers were told.\n", path.display())
                } else {
                    format!(
                        "coyote: {} is not a root; see `.roots list`\n",
                        path.display()
                    )
                }
            }
        };
        self.print(&text);
    }

    fn roots_list(&self, dirs: &[PathBuf]) -> String {
        let mut text = String::from("Roots (told to every server without its own \"roots\"):\n");
        if dirs.is_empty() {
            text.push_str("  (none)\n");
        }
        for dir in dirs {
            text.push_str(&format!("  {}\n", dir.display()));
        }
        for spec in &self.specs {
            if let Some(own) = &spec.client.roots {
                let list: Vec<String> = own.iter().map(|d| d.display().to_string()).collect();
                let shown = if list.is_empty() {
                    "(none)".to_owned()
                } else {
                    list.join(", ")
                };
                text.push_str(&format!(
                    "Server `{}` has its own roots: {shown}\n",
                    spec.name
                ));
            }
        }
        text
    }

    /// `.mcp log NAME LEVEL`.
    pub(super) fn mcp_log_command(&mut self, server: &str, level: &str) {
        let level: McpLogLevel = match level.parse() {
            Ok(level) => level,
            Err(e) => return self.screen.line(&format!("coyote: {e}")),
        };
        let runtime = self.runtime().clone();
        match self
            .runtime_handle
            .block_on(runtime.set_log_level(server, level))
        {
            Ok(true) => self.print(&format!(
                "MCP server `{server}` now sends log messages at {level} and above; they are shown.\n"
            )),
            Ok(false) => self.print(&format!(
                "MCP server `{server}` does not advertise logging; messages it sends anyway are \
                 shown from {level} up.\n"
            )),
            Err(e) => self.screen.line(&format!(
                "coyote: {}",
                self.redactor.redact(&e.to_string())
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_resolve_from_home_and_cwd_and_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        std::fs::write(base.join("file"), "x").unwrap();
        assert_eq!(resolve_dir("a/b", &base, None), Ok(base.join("a/b")));
        assert_eq!(
            resolve_dir("~/a", Path::new("/"), Some(&base)),
            Ok(base.join("a"))
        );
        assert_eq!(
            resolve_dir(&base.join("a").display().to_string(), Path::new("/x"), None),
            Ok(base.join("a"))
        );
        assert!(
            resolve_dir("file", &base, None)
                .unwrap_err()
                .contains("not a directory")
        );
        assert!(
            resolve_dir("missing", &base, None)
                .unwrap_err()
                .contains("cannot use")
        );
    }
}
