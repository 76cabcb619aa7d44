//! The MCP servers of one coyote invocation: the user's `<config>/mcp.json`, overridden by
//! name by a trusted `.mcp.json` (Claude Code's project file), overridden in turn by a trusted
//! project-local `.coyote/mcp.json`.
//!
//! Project search: from the current directory upwards, the first `.coyote/mcp.json` and the
//! first `.mcp.json` win (each kind found on its own); the search stops at the first directory
//! that contains `.git` (the repository root) or at the filesystem root. A file that is the
//! user's own mcp.json is not a project file.
//!
//! Trust: an untrusted (or changed) project file is hashed but never parsed — a cloned repo
//! must not be able to break or steer coyote before the user agreed — and reported in
//! [`McpConfig::project`] plus a warning; the CLI asks or honours `--trust-project`, records
//! the decision in the [`TrustStore`] and loads again. The hash is taken of the same bytes that
//! are parsed, so what was trusted is what runs.

use std::path::{Path, PathBuf};

use coyote_protocol::McpServerSpec;
use indexmap::IndexMap;

use crate::env::EnvLookup;
use crate::error::{ConfigError, IoOp};
use crate::json_path::JsonPath;
use crate::mcp_json::{
    BrokenServer, DisabledServer, McpFile, McpFileContext, ServerDefaults, decode_utf8,
    load_mcp_file, parse_mcp_json,
};
use crate::paths::ConfigPaths;
use crate::trust::{ProjectFile, TrustStatus, TrustStore, sha256_hex};
use crate::warning::{ConfigWarning, WarningKind};

/// Directory and file name of project-local configuration.
pub const PROJECT_DIR: &str = ".coyote";
/// The project file's name inside [`PROJECT_DIR`].
pub const PROJECT_MCP_FILE: &str = "mcp.json";
/// Claude Code's project file at a repository root, read like `.coyote/mcp.json` but with a
/// lower precedence.
pub const SHARED_PROJECT_FILE: &str = ".mcp.json";

/// Whether project-local files are considered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProjectFiles {
    /// Search from the current directory upwards (the default).
    #[default]
    Search,
    /// Use the user's file only.
    Ignore,
}

/// The merged result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpConfig {
    /// Enabled servers: user-file order; a project entry replaces the user entry of the same
    /// name in place, new project entries follow.
    pub servers: Vec<McpServerSpec>,
    /// Entries with `"disabled": true` (after overriding).
    pub disabled: Vec<DisabledServer>,
    /// Entries that cannot be used, each disabling its server only (after overriding).
    pub broken: Vec<BrokenServer>,
    /// What was odd but usable in the files read.
    pub warnings: Vec<ConfigWarning>,
    /// The user's mcp.json (it may not exist).
    pub user_file: PathBuf,
    /// The project files found, trusted or not, lowest precedence first (`.mcp.json`, then
    /// `.coyote/mcp.json`).
    pub projects: Vec<ProjectFile>,
}

impl McpConfig {
    /// The project files found that are not (or no longer) trusted.
    pub fn untrusted_projects(&self) -> impl Iterator<Item = &ProjectFile> {
        self.projects.iter().filter(|p| !p.is_trusted())
    }
}

/// Loads the MCP configuration (builder; nothing is read until [`McpLoader::load`]).
pub struct McpLoader<'a> {
    paths: &'a ConfigPaths,
    env: &'a dyn EnvLookup,
    cwd: PathBuf,
    project_files: ProjectFiles,
    defaults: ServerDefaults,
}

impl<'a> McpLoader<'a> {
    /// `cwd` is where the project search starts (normally the process's current directory).
    pub fn new(paths: &'a ConfigPaths, env: &'a dyn EnvLookup, cwd: impl Into<PathBuf>) -> Self {
        McpLoader {
            paths,
            env,
            cwd: cwd.into(),
            project_files: ProjectFiles::Search,
            defaults: ServerDefaults::default(),
        }
    }

    /// Whether project-local files are considered (default: searched for).
    pub fn project_files(mut self, project_files: ProjectFiles) -> Self {
        self.project_files = project_files;
        self
    }

    /// Values for keys an entry leaves out (from config.yaml).
    pub fn defaults(mut self, defaults: ServerDefaults) -> Self {
        self.defaults = defaults;
        self
    }

    /// Reads the user's file and the trusted project files, and merges them.
    pub fn load(&self) -> Result<McpConfig, ConfigError> {
        let user_file = self.paths.mcp_json();
        let found: Vec<(PathBuf, PathBuf)> = match self.project_files {
            ProjectFiles::Search => find_project_files(&self.cwd)
                .into_iter()
                .filter(|(_, file)| !same_file(file, &user_file))
                .collect(),
            ProjectFiles::Ignore => Vec::new(),
        };
        // `${workspaceFolder}` of the user's file: the nearest project's root.
        let workspace = found
            .last()
            .map_or(self.cwd.clone(), |(root, _)| root.clone());
        let user_cx = McpFileContext::new(self.env, self.paths.config_dir())
            .workspace(workspace)
            .defaults(self.defaults)
            .per_server_errors();
        let user = load_mcp_file(&user_file, &user_cx)?;
        let mut warnings = Vec::new();
        let mut projects = Vec::new();
        let mut merged: IndexMap<String, Slot> = IndexMap::new();
        let mut all_warnings = user.warnings.clone();
        add_file(&mut merged, user);
        for (root, file) in found {
            let (project, parsed) = self.load_project(root, file, &mut warnings)?;
            projects.push(project);
            if let Some(parsed) = parsed {
                all_warnings.extend(parsed.warnings.iter().cloned());
                add_file(&mut merged, parsed);
            }
        }
        all_warnings.extend(warnings);
        let mut servers = Vec::new();
        let mut disabled = Vec::new();
        let mut broken = Vec::new();
        for (name, slot) in merged {
            match slot {
                Slot::Enabled(spec) => servers.push(*spec),
                Slot::Disabled(source) => disabled.push(DisabledServer { name, source }),
                Slot::Broken(server) => broken.push(server),
            }
        }
        Ok(McpConfig {
            servers,
            disabled,
            broken,
            warnings: all_warnings,
            user_file,
            projects,
        })
    }

    fn load_project(
        &self,
        root: PathBuf,
        file: PathBuf,
        warnings: &mut Vec<ConfigWarning>,
    ) -> Result<(ProjectFile, Option<McpFile>), ConfigError> {
        let bytes = crate::bounded::read_bounded(&file, crate::bounded::FileClass::Config)
            .map_err(|source| ConfigError::Io {
                path: file.clone(),
                op: IoOp::Read,
                source,
            })?;
        let sha256 = sha256_hex(&bytes);
        let store = TrustStore::new(self.paths);
        let status = store.status(&file, &sha256).unwrap_or_else(|reason| {
            warnings.push(ConfigWarning {
                file: store.path().to_owned(),
                path: JsonPath::root(),
                kind: WarningKind::TrustStoreUnreadable { reason },
            });
            TrustStatus::Untrusted
        });
        let project = ProjectFile {
            path: file.clone(),
            root: root.clone(),
            sha256,
            status,
        };
        if !project.is_trusted() {
            warnings.push(ConfigWarning {
                file,
                path: JsonPath::root(),
                kind: WarningKind::ProjectNotTrusted { status },
            });
            return Ok((project, None));
        }
        let cx = McpFileContext::new(self.env, root.clone())
            .default_cwd(root)
            .defaults(self.defaults)
            .per_server_errors();
        let parsed = parse_mcp_json(decode_utf8(&file, &bytes)?, &file, &cx)?;
        Ok((project, Some(parsed)))
    }
}

enum Slot {
    Enabled(Box<McpServerSpec>),
    Disabled(PathBuf),
    Broken(BrokenServer),
}

/// Adds a file's entries; an existing name keeps its position and takes the new value.
fn add_file(merged: &mut IndexMap<String, Slot>, file: McpFile) {
    for spec in file.servers {
        merged.insert(spec.name.clone(), Slot::Enabled(Box::new(spec)));
    }
    for server in file.disabled {
        merged.insert(server.name, Slot::Disabled(server.source));
    }
    for server in file.broken {
        merged.insert(server.name.clone(), Slot::Broken(server));
    }
}

/// `(project root, <root>/.coyote/mcp.json)` of the nearest project file, searching from
/// `start` upwards and stopping at the first directory holding `.git`.
pub fn find_project_file(start: &Path) -> Option<(PathBuf, PathBuf)> {
    find_project_files(start)
        .into_iter()
        .find(|(root, file)| *file == root.join(PROJECT_DIR).join(PROJECT_MCP_FILE))
}

/// `(project root, file)` of the nearest `.mcp.json` and the nearest `.coyote/mcp.json`, each
/// searched from `start` upwards and stopping at the first directory holding `.git`; lowest
/// precedence first (`.mcp.json`).
pub fn find_project_files(start: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut shared = None;
    let mut own = None;
    for dir in start.ancestors() {
        let file = dir.join(PROJECT_DIR).join(PROJECT_MCP_FILE);
        if own.is_none() && file.is_file() {
            own = Some((dir.to_owned(), file));
        }
        let file = dir.join(SHARED_PROJECT_FILE);
        if shared.is_none() && file.is_file() {
            shared = Some((dir.to_owned(), file));
        }
        if (own.is_some() && shared.is_some()) || dir.join(".git").exists() {
            break;
        }
    }
    shared.into_iter().chain(own).collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
#[path = "loader_tests.rs"]
mod tests;
