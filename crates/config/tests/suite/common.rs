//! Shared helpers: a temp home with a git-bounded project directory.

use std::fs;
use std::path::{Path, PathBuf};

use coyote_config::{ConfigError, ConfigPaths, EnvLookup, McpConfig, McpLoader};

pub struct TestHome {
    pub tmp: tempfile::TempDir,
    pub paths: ConfigPaths,
    /// A repository root (contains `.git`).
    pub project: PathBuf,
    /// Where coyote "runs": a subdirectory of the project.
    pub cwd: PathBuf,
}

impl TestHome {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        // Bounds the project search to the temp dir even outside `project`.
        fs::create_dir_all(tmp.path().join(".git")).unwrap();
        let paths = ConfigPaths::under(&tmp.path().join("home"));
        let project = tmp.path().join("project");
        let cwd = project.join("sub");
        fs::create_dir_all(&cwd).unwrap();
        fs::create_dir_all(project.join(".git")).unwrap();
        TestHome {
            tmp,
            paths,
            project,
            cwd,
        }
    }

    pub fn user_file(&self, text: &str) -> PathBuf {
        write(&self.paths.mcp_json(), text);
        self.paths.mcp_json()
    }

    pub fn project_file(&self, text: &str) -> PathBuf {
        let path = self.project.join(".coyote/mcp.json");
        write(&path, text);
        path
    }

    /// Claude Code's `.mcp.json` at the project root.
    pub fn shared_file(&self, text: &str) -> PathBuf {
        let path = self.project.join(".mcp.json");
        write(&path, text);
        path
    }

    pub fn load(&self, env: &dyn EnvLookup) -> Result<McpConfig, ConfigError> {
        McpLoader::new(&self.paths, env, &self.cwd).load()
    }

    /// `text` with the temp dir replaced by `[TMP]`, for snapshots.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.tmp.path().display().to_string(), "[TMP]")
    }
}

pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}
