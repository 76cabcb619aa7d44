//! `cargo metadata --format-version 1`, read into what the workspace checks need: the packages
//! (name, `rust-version`, declared dependencies, targets), which of them are workspace members,
//! and the resolved dependency graph ([`Metadata::crate_graph`]).
//!
//! Invariant: nothing here guesses. A field cargo did not send is `None`/empty, and a missing
//! `resolve` section (cargo was asked with `--no-deps`) is an error, not an empty graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

/// Dependency edges by package name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrateGraph {
    /// The workspace members (package names).
    pub workspace: BTreeSet<String>,
    /// Package name → the packages it depends on, one edge per manifest section.
    pub edges: BTreeMap<String, Vec<CrateEdge>>,
}

/// One dependency of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateEdge {
    /// The depended-on package.
    pub to: String,
    /// The manifest section declaring it.
    pub kind: DepKind,
}

impl CrateGraph {
    /// Adds `from → to` declared in section `kind` (once).
    pub fn add(&mut self, from: &str, to: &str, kind: DepKind) {
        let edges = self.edges.entry(from.to_owned()).or_default();
        let edge = CrateEdge {
            to: to.to_owned(),
            kind,
        };
        if !edges.contains(&edge) {
            edges.push(edge);
        }
    }

    pub(super) fn edges_of(&self, name: &str) -> &[CrateEdge] {
        self.edges.get(name).map_or(&[], Vec::as_slice)
    }
}

/// Which section of a manifest a dependency is declared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DepKind {
    /// `[dependencies]` (cargo sends `null`).
    Normal,
    /// `[dev-dependencies]`.
    Dev,
    /// `[build-dependencies]`.
    Build,
}

impl DepKind {
    /// The kind as cargo names it (`normal` for `null`).
    pub fn as_str(self) -> &'static str {
        match self {
            DepKind::Normal => "normal",
            DepKind::Dev => "dev",
            DepKind::Build => "build",
        }
    }
}

impl fmt::Display for DepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// cargo writes the normal kind as `null`.
fn kind_or_normal<'de, D: serde::Deserializer<'de>>(d: D) -> Result<DepKind, D::Error> {
    Ok(Option::<DepKind>::deserialize(d)?.unwrap_or(DepKind::Normal))
}

/// The parts of `cargo metadata` output the checks read.
#[derive(Debug, Clone, Deserialize)]
pub struct Metadata {
    /// The directory of the workspace's root manifest.
    pub workspace_root: PathBuf,
    /// Package ids of the workspace members.
    pub workspace_members: Vec<String>,
    /// Every package of the resolved graph, members and dependencies alike.
    pub packages: Vec<Package>,
    /// The resolved graph; `None` when cargo ran with `--no-deps`.
    pub resolve: Option<Resolve>,
}

/// One package.
#[derive(Debug, Clone, Deserialize)]
pub struct Package {
    /// The package id, unique in the graph.
    pub id: String,
    /// The package name (`coyote-mcp`), shared by every version of it.
    pub name: String,
    /// The package version.
    pub version: String,
    /// Its `rust-version`, if the manifest declares one.
    pub rust_version: Option<String>,
    /// Path of its `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// Dependencies as declared in the manifest.
    #[serde(default)]
    pub dependencies: Vec<Dependency>,
    /// Its targets (lib, bins, tests, benches, examples, build script).
    #[serde(default)]
    pub targets: Vec<Target>,
}

/// One declared dependency.
#[derive(Debug, Clone, Deserialize)]
pub struct Dependency {
    /// The depended-on package's name.
    pub name: String,
    /// `package = …` renames: the name the sources use instead of `name`.
    pub rename: Option<String>,
    /// The manifest section it is declared in.
    #[serde(deserialize_with = "kind_or_normal", default = "normal")]
    pub kind: DepKind,
    /// Declared `optional = true` (used only through a feature).
    #[serde(default)]
    pub optional: bool,
    /// The `cfg(…)` or target triple it is restricted to, if any.
    pub target: Option<String>,
}

fn normal() -> DepKind {
    DepKind::Normal
}

impl Dependency {
    /// The crate name the sources write: the rename if any, else the package name with `-`
    /// read as `_`.
    pub fn crate_name(&self) -> String {
        self.rename
            .as_deref()
            .unwrap_or(&self.name)
            .replace('-', "_")
    }
}

/// One target of a package.
#[derive(Debug, Clone, Deserialize)]
pub struct Target {
    /// The target's name.
    pub name: String,
    /// Its kinds (`lib`, `bin`, `test`, `bench`, `example`, `custom-build`, …).
    pub kind: Vec<String>,
    /// Its root source file.
    pub src_path: PathBuf,
}

/// The resolved dependency graph.
#[derive(Debug, Clone, Deserialize)]
pub struct Resolve {
    /// One node per package.
    pub nodes: Vec<Node>,
}

/// A package and what it resolved to depend on.
#[derive(Debug, Clone, Deserialize)]
pub struct Node {
    /// The package id.
    pub id: String,
    /// Its resolved dependencies.
    #[serde(default)]
    pub deps: Vec<NodeDep>,
}

/// One resolved dependency edge.
#[derive(Debug, Clone, Deserialize)]
pub struct NodeDep {
    /// The depended-on package id.
    pub pkg: String,
    /// The sections it is declared in (a dependency can be both normal and dev).
    #[serde(default)]
    pub dep_kinds: Vec<NodeDepKind>,
}

/// One section a resolved dependency is declared in.
#[derive(Debug, Clone, Deserialize)]
pub struct NodeDepKind {
    /// The section.
    #[serde(deserialize_with = "kind_or_normal", default = "normal")]
    pub kind: DepKind,
}

/// A `rust-version`: `1.95` and `1.95.0` are equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RustVersion {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version (0 when not written).
    pub patch: u32,
}

impl RustVersion {
    /// Parses `1.95` or `1.95.0`; `None` for anything else.
    pub fn parse(text: &str) -> Option<RustVersion> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next().map_or(Some(0), |p| p.parse().ok())?;
        let patch = parts.next().map_or(Some(0), |p| p.parse().ok())?;
        if parts.next().is_some() {
            return None;
        }
        Some(RustVersion {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for RustVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Why `cargo metadata` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MetadataError {
    /// cargo could not be started.
    #[error("cannot run `{cargo} metadata`: {source}; is cargo on PATH (or $CARGO set)?")]
    Spawn {
        /// The cargo binary tried.
        cargo: String,
        /// The spawn error.
        source: std::io::Error,
    },
    /// cargo ran and failed.
    #[error("`cargo metadata` failed ({status}): {stderr}")]
    Failed {
        /// Its exit status.
        status: std::process::ExitStatus,
        /// What it wrote to stderr.
        stderr: String,
    },
    /// The output is not the JSON this module reads.
    #[error("cannot read `cargo metadata` output: {0}")]
    Parse(#[from] serde_json::Error),
    /// The output has no `resolve` section.
    #[error("`cargo metadata` output has no resolve graph; run it without --no-deps")]
    NoResolve,
}

impl Metadata {
    /// Runs `cargo metadata --format-version 1 --locked` in `workspace` (cargo from `$CARGO`,
    /// else `cargo` on PATH) and reads its output.
    pub fn load(workspace: &Path) -> Result<Metadata, MetadataError> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let output = Command::new(&cargo)
            .args(["metadata", "--format-version", "1", "--locked"])
            .current_dir(workspace)
            .output()
            .map_err(|source| MetadataError::Spawn {
                cargo: cargo.clone(),
                source,
            })?;
        if !output.status.success() {
            return Err(MetadataError::Failed {
                status: output.status,
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            });
        }
        Ok(serde_json::from_slice(&output.stdout)?)
    }

    /// The workspace members, in `workspace_members` order.
    pub fn members(&self) -> Vec<&Package> {
        let by_id: BTreeMap<&str, &Package> =
            self.packages.iter().map(|p| (p.id.as_str(), p)).collect();
        self.workspace_members
            .iter()
            .filter_map(|id| by_id.get(id.as_str()).copied())
            .collect()
    }

    /// Every package that is not a workspace member.
    pub fn dependencies(&self) -> Vec<&Package> {
        let members: BTreeSet<&str> = self.workspace_members.iter().map(String::as_str).collect();
        self.packages
            .iter()
            .filter(|p| !members.contains(p.id.as_str()))
            .collect()
    }

    /// The highest `rust-version` declared by a package outside the workspace, with the
    /// package that declares it (the first such package when several tie).
    pub fn highest_dependency_rust_version(&self) -> Option<(RustVersion, &Package)> {
        let mut best: Option<(RustVersion, &Package)> = None;
        for package in self.dependencies() {
            let Some(version) = package.rust_version.as_deref().and_then(RustVersion::parse) else {
                continue;
            };
            if best.is_none_or(|(b, _)| version > b) {
                best = Some((version, package));
            }
        }
        best
    }

    /// The resolved graph by package name: every package's edges with the sections they are
    /// declared in, and the set of workspace members.
    pub fn crate_graph(&self) -> Result<CrateGraph, MetadataError> {
        let resolve = self.resolve.as_ref().ok_or(MetadataError::NoResolve)?;
        let names: BTreeMap<&str, &str> = self
            .packages
            .iter()
            .map(|p| (p.id.as_str(), p.name.as_str()))
            .collect();
        let name_of = |id: &str| {
            names
                .get(id)
                .map_or_else(|| id.to_owned(), |n| (*n).to_owned())
        };
        let mut graph = CrateGraph {
            workspace: self.members().iter().map(|p| p.name.clone()).collect(),
            ..CrateGraph::default()
        };
        for node in &resolve.nodes {
            let edges = graph.edges.entry(name_of(&node.id)).or_default();
            for dep in &node.deps {
                for kind in &dep.dep_kinds {
                    let edge = CrateEdge {
                        to: name_of(&dep.pkg),
                        kind: kind.kind,
                    };
                    if !edges.contains(&edge) {
                        edges.push(edge);
                    }
                }
            }
        }
        Ok(graph)
    }
}

#[cfg(test)]
#[path = "metadata_tests.rs"]
mod tests;
