//! Structure checks of a crate's sources, for the workspace's structure tests
//! (docs/architecture.md: no import cycle between top-level modules, and lower floors never
//! import higher ones).
//!
//! - A **node** is a top-level module of the crate: a child of `lib.rs`/`main.rs` (`foo/` and
//!   `foo.rs` count as `foo`); inside a folder module, each of its children is a node of the
//!   folder's own graph (siblings as nodes).
//! - An **edge** `a → b` is any `crate::b…` or `super::…` path (or `use self::…` tree) written
//!   in module `a` or one of its submodules that resolves into `b`, in a `use` tree or inline
//!   (`$crate::` in macros too); a name the crate root re-exports from `b` counts as `b`.
//! - `*_tests.rs` files and `#[cfg(test)]` items are left out.
//!
//! [`scan_crate`] builds the [`ModuleGraph`] of the top-level modules, [`scan_folders`] that
//! and one per folder module; [`ModuleGraph::cycles`] and [`ModuleGraph::floor_violations`]
//! report, by name and source line, what breaks the rules. The cycles that exist are data
//! (`data/module-cycles.toml`, a [`CycleBaseline`]): [`CycleBaseline::compare`] reports a cycle
//! the baseline does not name and an entry whose cycle is gone, so the baseline only shrinks.
//! A plain tokenizer ([`tokens`]) reads the sources: comments and literals are never mistaken
//! for paths.
//!
//! Across crates, from `cargo metadata` ([`Metadata`]): [`check_crate_rules`] reports every
//! dependency a crate must not have (the rules are data, `data/crate-rules.toml`), and
//! [`unused_dependencies`] every declared dependency no source names.

mod crate_rules;
mod cycle_baseline;
mod deps;
mod graph;
mod items;
mod metadata;
mod modules;
pub mod tokens;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate_rules::{CrateRule, CrateRules, Reach, RuleViolation, RulesError, check_crate_rules};
pub use cycle_baseline::{BaselineError, CycleBaseline, CycleFinding, FoundCycle, KnownCycle};
pub use deps::{
    SourceFile, SourceRole, UnusedDependency, package_sources, path_roots, unused_dependencies,
};
pub use graph::{AllowedUpward, Cycle, CycleEdge, EdgeSite, FloorViolation, Floors, ModuleGraph};
pub use metadata::{
    CrateEdge, CrateGraph, DepKind, Dependency, Metadata, MetadataError, Node, NodeDep,
    NodeDepKind, Package, Resolve, RustVersion, Target,
};
pub use modules::{scan_crate, scan_folders};

/// Where the sources are read from: the file system, or memory for synthetic crates.
pub trait SourceTree {
    /// The file's text, or `None` when there is no such file.
    fn read(&self, path: &Path) -> Option<String>;
}

/// Sources on disk, under `base`; paths (and so the reported sites) are relative to it.
#[derive(Debug, Clone, Default)]
pub struct FsTree {
    /// The directory the relative paths start from (the workspace root in the tests).
    pub base: PathBuf,
}

impl FsTree {
    /// A tree rooted at `base`.
    pub fn new(base: impl Into<PathBuf>) -> Self {
        FsTree { base: base.into() }
    }
}

impl SourceTree for FsTree {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(self.base.join(path)).ok()
    }
}

/// Sources in memory, keyed by path (`src/lib.rs`, `src/foo/bar.rs`).
#[derive(Debug, Clone, Default)]
pub struct MemTree(pub BTreeMap<PathBuf, String>);

impl MemTree {
    /// `[("src/lib.rs", "mod a;"), …]`.
    pub fn from_files(files: &[(&str, &str)]) -> Self {
        MemTree(
            files
                .iter()
                .map(|(path, text)| (PathBuf::from(path), (*text).to_owned()))
                .collect(),
        )
    }
}

impl SourceTree for MemTree {
    fn read(&self, path: &Path) -> Option<String> {
        self.0.get(path).cloned()
    }
}

/// Why a crate could not be scanned.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// A file could not be read.
    #[error("cannot read {}; is the crate root path right?", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
    },
    /// A `mod` declaration has no file.
    #[error(
        "`mod {module}` is declared in {} but none of {} exists",
        declared_in.display(),
        tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    MissingModule {
        /// The file with the declaration.
        declared_in: PathBuf,
        /// The module declared.
        module: String,
        /// The files looked for.
        tried: Vec<PathBuf>,
    },
}

/// The crate roots in `src` (`lib.rs`, `main.rs`; `src` relative to `tree`), each its own
/// module tree.
pub fn crate_roots(tree: &dyn SourceTree, src: &Path) -> Vec<PathBuf> {
    ["lib.rs", "main.rs"]
        .iter()
        .map(|name| src.join(name))
        .filter(|path| tree.read(path).is_some())
        .collect()
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
