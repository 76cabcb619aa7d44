//! From a crate's sources to its module graph: walks the `mod` declarations from the crate
//! root (honouring `#[path]` and inline `mod name { … }` blocks), and turns every `crate::…`,
//! `super::…` and `self::…` path — in a `use` tree or written inline — into an edge between
//! sibling modules: top-level modules of the crate ([`scan_crate`]), and the children of every
//! folder module ([`scan_folders`]).
//!
//! Excluded: files named `*_tests.rs`, and every item under `#[cfg(test)]` (so a test module
//! and the file it declares are never read). A path that resolves to the crate root's own items
//! counts when the root re-exports that name from a module (`crate::Name` with `pub use
//! foo::Name` in `lib.rs` is an edge to `foo`), and likewise a name a folder's own file
//! re-exports from one of its children; glob re-exports cannot be resolved and are not
//! followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::graph::{EdgeSite, ModuleGraph};
use super::items::{ALIAS, Child, ChildBody, ModFile, RawPath, scan_file};
use super::tokens::tokenize;
use super::{ScanError, SourceTree};

/// Builds the module graph of the crate whose root file is `root` (`src/lib.rs`, `src/main.rs`):
/// its top-level modules and the imports between them.
pub fn scan_crate(tree: &dyn SourceTree, root: &Path) -> Result<ModuleGraph, ScanError> {
    Ok(scan_folders(tree, root)?.remove("").unwrap_or_default())
}

/// The module graph of every module that has child modules, keyed by its path (`""` for the
/// crate root, `connect::auth` for a folder): the children are the nodes, and an edge `a → b`
/// is an import written in child `a` (or below it) that resolves into sibling `b`. The root's
/// graph is [`scan_crate`]'s.
pub fn scan_folders(
    tree: &dyn SourceTree,
    root: &Path,
) -> Result<BTreeMap<String, ModuleGraph>, ScanError> {
    let root_dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut queue = vec![ModFile {
        path: root.to_path_buf(),
        module: Vec::new(),
        child_dir: root_dir,
    }];
    let mut modules = BTreeSet::from([Vec::new()]);
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
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
            let mut path = child.parent.clone();
            path.push(child.name.clone());
            modules.insert(path);
            children
                .entry(child.parent.clone())
                .or_default()
                .insert(child.name.clone());
            if let Some(found) = locate(tree, &file, child)? {
                queue.push(found);
            }
        }
        found.extend(scan.paths.into_iter().map(|p| (file.path.clone(), p)));
    }
    let reexports = reexports(&found, &modules);
    let mut graphs: BTreeMap<Vec<String>, ModuleGraph> = children
        .into_iter()
        .map(|(parent, names)| (parent, ModuleGraph::new(names)))
        .collect();
    graphs.entry(Vec::new()).or_default();
    for (file, raw) in found {
        let Some(to) = resolve(&raw, &modules, &reexports) else {
            continue;
        };
        // The edge belongs to the deepest module both ends are in; the crate root and a
        // folder's own file are no node of their folder.
        let common = raw
            .module
            .iter()
            .zip(&to)
            .take_while(|(a, b)| a == b)
            .count();
        let (Some(from), Some(to)) = (raw.module.get(common), to.get(common)) else {
            continue;
        };
        graphs
            .entry(raw.module[..common].to_vec())
            .or_default()
            .add_edge(
                from,
                to,
                EdgeSite {
                    file: file.clone(),
                    line: raw.line,
                    path: shown(&raw.segments),
                },
            );
    }
    Ok(graphs
        .into_iter()
        .map(|(module, graph)| (module.join("::"), graph))
        .collect())
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

/// Module → the names it imports or re-exports from a module below it (`pub use
/// foo::{A, B as C}` in `m` → `A`, `C` → `m::foo`). A name a module takes from elsewhere is not
/// followed: `crate::m::Name` stays an import of `m`. Two passes follow one re-export of a
/// re-export (`pub use a::Name` in the root, `pub use b::Name` in `a`).
fn reexports(
    found: &[(PathBuf, RawPath)],
    modules: &BTreeSet<Vec<String>>,
) -> BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> {
    let mut names: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for _ in 0..2 {
        let known = std::mem::take(&mut names);
        for (_, raw) in found {
            let Some(target) = resolve(raw, modules, &known) else {
                continue;
            };
            if target.len() <= raw.module.len() || !target.starts_with(&raw.module) {
                continue;
            }
            // Only `use` leaves carry an imported name; see `UseTree` for the alias marker.
            let name = if let Some(alias) = raw.segments.last().and_then(|s| s.strip_prefix(ALIAS))
            {
                alias
            } else if let [.., named, last] = raw.segments.as_slice()
                && last != "*"
            {
                // `use foo::{self}` imports the module's own name.
                if last == "self" {
                    named.as_str()
                } else {
                    last.as_str()
                }
            } else {
                continue;
            };
            names
                .entry(raw.module.clone())
                .or_default()
                .insert(name.to_owned(), target);
        }
    }
    names
}

/// The module `raw` points into (the deepest one its segments name), if it is ours: a path
/// from `crate`, `self` or `super`, or a bare one naming a child of the module it is written
/// in. A name the module it reaches re-exports from below continues into that module.
fn resolve(
    raw: &RawPath,
    modules: &BTreeSet<Vec<String>>,
    reexports: &BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
) -> Option<Vec<String>> {
    let mut segments = raw
        .segments
        .iter()
        .map(String::as_str)
        .filter(|s| !s.starts_with(ALIAS))
        .peekable();
    let mut base = raw.module.clone();
    match segments.peek().copied() {
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
        // A bare path means a child of the current module (or an external crate).
        Some(first) => {
            let child = [base.as_slice(), &[first.to_owned()]].concat();
            let reexported = reexports.get(&base).is_some_and(|r| r.contains_key(first));
            if !modules.contains(&child) && !reexported {
                return None;
            }
        }
        None => return None,
    }
    for segment in segments {
        if segment == "self" {
            continue;
        }
        let next = [base.as_slice(), &[segment.to_owned()]].concat();
        if modules.contains(&next) {
            base = next;
            continue;
        }
        if let Some(target) = reexports.get(&base).and_then(|r| r.get(segment)) {
            base = target.clone();
        }
        break;
    }
    Some(base)
}

#[cfg(test)]
#[path = "modules_tests.rs"]
mod tests;
