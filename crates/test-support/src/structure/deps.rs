//! Declared dependencies that no source names: [`unused_dependencies`] reads a package's
//! sources with the structure tokenizer (so comments and strings never count) and reports each
//! declared dependency whose crate name is never written as a path root (`name::…`, `use name`,
//! `extern crate name`).
//!
//! Which sources count depends on the section: a normal dependency must be named by the
//! package's own code (not `tests/`, `benches/`, `examples/`, `build.rs` or `*_tests.rs`); a
//! dev-dependency by any of its Rust files (unit tests live in `src`); a build-dependency by
//! `build.rs`. The name is the dependency's rename, else its package name with `-` read as `_`.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use super::metadata::{DepKind, Dependency};
use super::tokens::{Tok, Token, tokenize};

/// What part of a package a source file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceRole {
    /// The package's own code: the lib and bin targets, minus `*_tests.rs`.
    Code,
    /// Test code: `tests/`, `benches/`, `examples/`, `*_tests.rs`.
    Test,
    /// `build.rs`.
    Build,
}

impl SourceRole {
    /// The role of `path`, relative to the package directory.
    pub fn of(path: &Path) -> SourceRole {
        let first = path.components().next().map(|c| c.as_os_str());
        let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
        if path == Path::new("build.rs") {
            SourceRole::Build
        } else if file.ends_with("_tests.rs")
            || first.is_some_and(|f| f == "tests" || f == "benches" || f == "examples")
        {
            SourceRole::Test
        } else {
            SourceRole::Code
        }
    }

    /// Whether a dependency of section `kind` may be named from a file of this role.
    fn serves(self, kind: DepKind) -> bool {
        match kind {
            DepKind::Normal => self == SourceRole::Code,
            DepKind::Dev => self != SourceRole::Build,
            DepKind::Build => self == SourceRole::Build,
        }
    }
}

/// One Rust source file of a package.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the package directory.
    pub path: PathBuf,
    /// The file's text.
    pub text: String,
}

/// A declared dependency no source of the right role names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnusedDependency {
    /// The dependency's package name.
    pub name: String,
    /// The crate name that was looked for.
    pub crate_name: String,
    /// The manifest section it is declared in.
    pub kind: DepKind,
}

impl fmt::Display for UnusedDependency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (section, looked_in) = match self.kind {
            DepKind::Normal => ("[dependencies]", "the package's code"),
            DepKind::Dev => ("[dev-dependencies]", "any source or test"),
            DepKind::Build => ("[build-dependencies]", "build.rs"),
        };
        write!(
            f,
            "{section} declares `{}`, but no path in {looked_in} starts with `{}::` (or `use {}`); \
             remove it, move it to the section that uses it, or allow-list it with a reason",
            self.name, self.crate_name, self.crate_name
        )
    }
}

/// The dependencies of `dependencies` that no file of `files` with the right role names, in
/// declaration order. A dependency declared in two sections is checked once per section.
pub fn unused_dependencies(
    dependencies: &[Dependency],
    files: &[SourceFile],
) -> Vec<UnusedDependency> {
    let named: Vec<(SourceRole, BTreeSet<String>)> = files
        .iter()
        .map(|f| (SourceRole::of(&f.path), path_roots(&tokenize(&f.text))))
        .collect();
    dependencies
        .iter()
        .filter(|dep| {
            let crate_name = dep.crate_name();
            !named
                .iter()
                .any(|(role, roots)| role.serves(dep.kind) && roots.contains(&crate_name))
        })
        .map(|dep| UnusedDependency {
            name: dep.name.clone(),
            crate_name: dep.crate_name(),
            kind: dep.kind,
        })
        .collect()
}

/// The identifiers written as the first segment of a path (`name::`, `::name::`), or named by
/// `use name` / `extern crate name`.
pub fn path_roots(tokens: &[Token]) -> BTreeSet<String> {
    let mut roots = BTreeSet::new();
    for (i, token) in tokens.iter().enumerate() {
        let Tok::Ident(name) = &token.tok else {
            continue;
        };
        let next = tokens.get(i + 1).map(|t| &t.tok);
        let prev = i.checked_sub(1).and_then(|j| tokens.get(j)).map(|t| &t.tok);
        let before_prev = i.checked_sub(2).and_then(|j| tokens.get(j)).map(|t| &t.tok);
        let is_ident =
            |tok: Option<&Tok>, word: &str| matches!(tok, Some(Tok::Ident(w)) if w == word);
        // A segment before the separator (`a::name`, `T>::name`) makes `name` no path root;
        // `::name` alone (or `use ::name`) is one.
        let follows_segment = prev == Some(&Tok::PathSep)
            && matches!(before_prev, Some(Tok::Ident(_) | Tok::Punct('>')))
            && !is_ident(before_prev, "use");
        if (next == Some(&Tok::PathSep) && !follows_segment)
            || is_ident(prev, "use")
            || (is_ident(prev, "crate") && is_ident(before_prev, "extern"))
        {
            roots.insert(name.clone());
        }
    }
    roots
}

/// Every `.rs` file under `dir` (a package directory), skipping `target/` and hidden
/// directories; paths relative to `dir`, sorted.
pub fn package_sources(dir: &Path) -> std::io::Result<Vec<SourceFile>> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        for entry in std::fs::read_dir(dir.join(&relative))? {
            let entry = entry?;
            let name = entry.file_name();
            let path = relative.join(&name);
            if entry.file_type()?.is_dir() {
                let hidden = name.to_string_lossy().starts_with('.');
                if !hidden && name != "target" {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(dir.join(&path))?;
                files.push(SourceFile { path, text });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

#[cfg(test)]
#[path = "deps_tests.rs"]
mod tests;
