//! Where coyote keeps its files. One [`ConfigPaths`] value is resolved at start-up from the
//! environment and the CLI's `--config-dir`, then passed to whoever needs a path: there is no
//! global and no function here reads the process environment directly (see [`EnvLookup`]).
//!
//! Resolution (first match wins):
//! - config: `--config-dir` › `$COYOTE_CONFIG_DIR` › `$XDG_CONFIG_HOME/coyote` › `~/.config/coyote`
//! - state:  `$COYOTE_STATE_DIR` › `$XDG_STATE_HOME/coyote` › `~/.local/state/coyote`
//! - cache:  `$COYOTE_CACHE_DIR` › `$XDG_CACHE_HOME/coyote` › `~/.cache/coyote`
//!
//! The XDG layout is used on every platform (a CLI's dotfiles are easier to find and sync than
//! `~/Library/Application Support`). Empty variables count as unset, and relative `XDG_*`
//! values are ignored as the XDG spec requires. The three directories are independent:
//! `--config-dir` does not move the state dir (tests set all three, or `HOME`).

use std::path::{Path, PathBuf};

use crate::env::EnvLookup;
use crate::error::ConfigError;

const APP_DIR: &str = "coyote";

/// Overrides given on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathOverrides {
    /// `--config-dir DIR`; wins over `$COYOTE_CONFIG_DIR`.
    pub config_dir: Option<PathBuf>,
}

/// The resolved directories. Nothing is created here; writers create what they need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigPaths {
    config_dir: PathBuf,
    state_dir: PathBuf,
    cache_dir: PathBuf,
}

impl ConfigPaths {
    /// Resolves the three directories from `env` and the CLI overrides.
    pub fn resolve(env: &dyn EnvLookup, overrides: &PathOverrides) -> Result<Self, ConfigError> {
        let var = |name: &str| env.var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let xdg = |name: &str, fallback: &str| -> Result<PathBuf, ConfigError> {
            match var(name).filter(|p| p.is_absolute()) {
                Some(base) => Ok(base.join(APP_DIR)),
                None => Ok(home_dir(env)?.join(fallback).join(APP_DIR)),
            }
        };
        let config_dir = match overrides
            .config_dir
            .clone()
            .or_else(|| var("COYOTE_CONFIG_DIR"))
        {
            Some(dir) => dir,
            None => xdg("XDG_CONFIG_HOME", ".config")?,
        };
        let state_dir = match var("COYOTE_STATE_DIR") {
            Some(dir) => dir,
            None => xdg("XDG_STATE_HOME", ".local/state")?,
        };
        let cache_dir = match var("COYOTE_CACHE_DIR") {
            Some(dir) => dir,
            None => xdg("XDG_CACHE_HOME", ".cache")?,
        };
        Ok(ConfigPaths {
            config_dir,
            state_dir,
            cache_dir,
        })
    }

    /// Explicit directories (embedding, tests).
    pub fn new(
        config_dir: impl Into<PathBuf>,
        state_dir: impl Into<PathBuf>,
        cache_dir: impl Into<PathBuf>,
    ) -> Self {
        ConfigPaths {
            config_dir: config_dir.into(),
            state_dir: state_dir.into(),
            cache_dir: cache_dir.into(),
        }
    }

    /// `root/config`, `root/state`, `root/cache` — one temp dir per test.
    pub fn under(root: &Path) -> Self {
        ConfigPaths::new(root.join("config"), root.join("state"), root.join("cache"))
    }

    /// Where configuration lives (`config.yaml`, `mcp.json`, roles, agents, macros, sessions).
    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    /// Where state lives (REPL history, logs, the project trust store).
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// Where disposable data lives (spilled MCP resources).
    pub fn cache_dir(&self) -> &Path {
        &self.cache_dir
    }

    /// The user's `mcp.json` (what `coyote mcp add/remove` edit by default).
    pub fn mcp_json(&self) -> PathBuf {
        self.config_dir.join("mcp.json")
    }

    /// `config.yaml` (models, clients, global defaults).
    pub fn config_yaml(&self) -> PathBuf {
        self.config_dir.join("config.yaml")
    }

    /// `<config>/roles/` — one `NAME.md` per role.
    pub fn roles_dir(&self) -> PathBuf {
        self.config_dir.join("roles")
    }

    /// `<config>/agents/` — one directory per agent.
    pub fn agents_dir(&self) -> PathBuf {
        self.config_dir.join("agents")
    }

    /// `<config>/macros/` — one `NAME.yaml` per macro.
    pub fn macros_dir(&self) -> PathBuf {
        self.config_dir.join("macros")
    }

    /// `<config>/sessions/` — saved conversations.
    pub fn sessions_dir(&self) -> PathBuf {
        self.config_dir.join("sessions")
    }

    /// Remembered project-file trust decisions.
    pub fn trusted_projects(&self) -> PathBuf {
        self.state_dir.join("trusted-projects.json")
    }

    /// REPL history (mode 0600).
    pub fn history_file(&self) -> PathBuf {
        self.state_dir.join("history.txt")
    }

    /// Log files of the CLI.
    pub fn log_dir(&self) -> PathBuf {
        self.state_dir.join("logs")
    }

    /// Spilled MCP resources (`<cache>/mcp-resources/<server>/<sha256>.<ext>`).
    pub fn mcp_resources_dir(&self) -> PathBuf {
        self.cache_dir.join("mcp-resources")
    }
}

/// `$HOME`, else the platform's notion of home.
fn home_dir(env: &dyn EnvLookup) -> Result<PathBuf, ConfigError> {
    if let Some(home) = env.var("HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    etcetera::home_dir().map_err(|_| ConfigError::NoHomeDir)
}

#[cfg(test)]
#[path = "paths_tests.rs"]
mod tests;
