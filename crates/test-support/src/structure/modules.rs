//! From a crate's sources to its module graph: walks the `mod` declarations from the crate
//! root (honouring `#[path]` and inline `mod name { … }` blocks), and turns every `crate::…`,
//! `super::…` and `self::…` path — in a `use` tree or written inline — into an edge between
//! top-level modules.
//!
//! Excluded: files named `*_tests.rs`, and every item under `#[cfg(test)]` (so a test module
//! and the file it declares are never read). A path that resolves to the crate root's own items
//! counts when the root re-exports that name from a module (`crate::Name` with `pub use
//! foo::Name` in `lib.rs` is an edge to `foo`); glob re-exports cannot be resolved and are
//! not followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::graph::{EdgeSite, ModuleGraph};
use super::items::{ALIAS, Child, ChildBody, ModFile, RawPath, scan_file};
use super::tokens::tokenize;
use super::{ScanError, SourceTree};

/// Builds the module graph of the crate whose root file is `root` (`src/lib.rs`, `src/main.rs`).
pub fn scan_crate(tree: &dyn SourceTree, root: &Path) -> Result<ModuleGraph, ScanError> {
    let root_dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut queue = vec![ModFile {
        path: root.to_path_buf(),
        module: Vec::new(),
        child_dir: root_dir,
    }];
    let mut nodes = BTreeSet::new();
    let mut found: Vec<(PathBuf, RawPath)> = Vec::new();
    let mut seen = BTreeSet::new();
    while let Some(file) = queue.pop() {
        if !seen.insert(file.path.clone()) {
            continue;
        }
        let source = tree.read(&file.path).ok_or_else(|| ScanError::Unreadable {
            path: file.path.clone(),
        })?;
        let scan = scan_file(&tokenize(&source), &file);
        for child in scan.children {
            if child.parent.is_empty() {
                nodes.insert(child.name.clone());
            }
            if let Some(found) = locate(tree, &file, child)? {
                queue.push(found);
            }
        }
        found.extend(scan.paths.into_iter().map(|p| (file.path.clone(), p)));
    }
    let reexports = root_reexports(&found, &nodes);
    let mut graph = ModuleGraph::new(nodes.clone());
    for (file, raw) in found {
        let Some(from) = raw.module.first() else {
            continue; // the crate root is not a node
        };
        if let Some(to) = resolve(&raw, &nodes, &reexports)
            && &to != from
        {
            graph.add_edge(
                from,
                &to,
                EdgeSite {
                    file: file.clone(),
                    line: raw.line,
                    path: shown(&raw.segments),
                },
            );
        }
    }
    Ok(graph)
}

/// The path as a reader wrote it: no alias marker, no trailing `self` of a `{self, …}` group.
fn shown(segments: &[String]) -> String {
    let mut kept: Vec<&str> = segments
        .iter()
        .map(String::as_str)
        .filter(|s| !s.starts_with(ALIAS))
        .collect();
    if kept.len() > 1 && kept.last() == Some(&"self") {
        kept.pop();
    }
    kept.join("::")
}

/// The file of the module `child` declared in `parent`; `None` for an inline module (its
/// paths are in the parent's scan) and for a `*_tests.rs` file.
fn locate(
    tree: &dyn SourceTree,
    parent: &ModFile,
    child: Child,
) -> Result<Option<ModFile>, ScanError> {
    let module = [child.parent.as_slice(), std::slice::from_ref(&child.name)].concat();
    let candidates = match child.body {
        ChildBody::Inline => return Ok(None),
        ChildBody::PathAttribute(path) => vec![path],
        ChildBody::Conventional => {
            let inline = &child.parent[parent.module.len()..];
            let dir = inline
                .iter()
                .fold(parent.child_dir.clone(), |d, m| d.join(m));
            vec![
                dir.join(format!("{}.rs", child.name)),
                dir.join(&child.name).join("mod.rs"),
            ]
        }
    };
    let Some(path) = candidates.iter().find(|p| tree.read(p).is_some()).cloned() else {
        return Err(ScanError::MissingModule {
            declared_in: parent.path.clone(),
            module: module.join("::"),
            tried: candidates,
        });
    };
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if file_name.ends_with("_tests.rs") {
        return Ok(None);
    }
    let child_dir = if file_name == "mod.rs" {
        path.parent().unwrap_or(Path::new("")).to_path_buf()
    } else {
        path.with_extension("")
    };
    Ok(Some(ModFile {
        path,
        module,
        child_dir,
    }))
}

/// Names the crate root imports or re-exports from a top-level module (`pub use foo::{A, B as
/// C}` → `A`, `C` → `foo`).
fn root_reexports(
    found: &[(PathBuf, RawPath)],
    nodes: &BTreeSet<String>,
) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for (_, raw) in found.iter().filter(|(_, raw)| raw.module.is_empty()) {
        let Some(node) = resolve(raw, nodes, &BTreeMap::new()) else {
            continue;
        };
        // Only `use` leaves carry an imported name; see `UseTree` for the alias marker.
        if let Some(alias) = raw.segments.last().and_then(|s| s.strip_prefix(ALIAS)) {
            names.insert(alias.to_owned(), node);
        } else if let [.., named, last] = raw.segments.as_slice()
            && last != "*"
        {
            // `use foo::{self}` imports the module's own name.
            let name = if last == "self" { named } else { last };
            names.insert(name.clone(), node);
        }
    }
    names
}

/// The top-level module `raw` points into, if any.
fn resolve(
    raw: &RawPath,
    nodes: &BTreeSet<String>,
    reexports: &BTreeMap<String, String>,
) -> Option<String> {
    let mut segments = raw
        .segments
        .iter()
        .filter(|s| !s.starts_with(ALIAS))
        .peekable();
    let mut base = raw.module.clone();
    match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segments.next();
            base.clear();
        }
        Some("self") => {
            segments.next();
        }
        Some("super") => {
            while segments.next_if(|s| *s == "super").is_some() {
                base.pop()?;
            }
        }
        // A bare path means a child of the current module; only the root's children are nodes.
        Some(_) if raw.module.is_empty() => {}
        _ => return None,
    }
    let first = base
        .first()
        .cloned()
        .or_else(|| segments.find(|s| *s != "self").cloned())?;
    if nodes.contains(&first) {
        Some(first)
    } else if base.is_empty() {
        reexports.get(&first).cloned()
    } else {
        None
    }
}

#[cfg(test)]
#[path = "modules_tests.rs"]
mod tests;
