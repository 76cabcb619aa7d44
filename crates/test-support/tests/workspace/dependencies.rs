//! Every dependency a workspace crate declares is named by a source of its section
//! (`coyote_test_support::structure::unused_dependencies`): normal ones by the crate's code,
//! dev-dependencies by any source or test, build-dependencies by `build.rs`. What is used
//! without being named is allow-listed below, each with its reason.

use std::collections::BTreeSet;
use std::path::Path;

use coyote_test_support::structure::{DepKind, package_sources, unused_dependencies};

use super::metadata;

/// `(crate, dependency, section, why it is declared though no source names it)`.
const ALLOWED: &[(&str, &str, DepKind, &str)] = &[];

#[test]
fn every_declared_dependency_is_named_by_a_source() {
    let mut found = Vec::new();
    let mut allowed_seen = BTreeSet::new();
    for package in metadata().members() {
        let dir = package.manifest_path.parent().unwrap_or(Path::new("."));
        let files = package_sources(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        assert!(!files.is_empty(), "{} has no sources", package.name);
        for unused in unused_dependencies(&package.dependencies, &files) {
            let allowed = ALLOWED.iter().position(|(krate, dep, kind, _)| {
                *krate == package.name && *dep == unused.name && *kind == unused.kind
            });
            match allowed {
                Some(i) => {
                    allowed_seen.insert(i);
                }
                None => found.push(format!("{}: {unused}", package.name)),
            }
        }
    }
    for (i, (krate, dep, kind, _)) in ALLOWED.iter().enumerate() {
        if !allowed_seen.contains(&i) {
            found.push(format!(
                "{krate}: the allow-list entry for {kind} dependency `{dep}` is stale (a source \
                 names it, or it is no longer declared); remove the entry"
            ));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
