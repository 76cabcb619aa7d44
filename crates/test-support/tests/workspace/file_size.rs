//! No non-test source file is over 500 lines (docs/architecture.md, Checks; big test suites go to a
//! sibling `*_tests.rs`).
//!
//! Test code is exempt: `*_tests.rs`, everything under `tests/`, `benches/` and `examples/`,
//! and `fuzz/` (not a workspace member). `crates/test-support`'s sources (fake servers,
//! fixtures, these checkers) are code other tests build on, so the limit covers them too.

use std::path::{Path, PathBuf};

use coyote_test_support::structure::{SourceRole, package_sources};

use super::metadata;

const MAX_LINES: usize = 500;

#[test]
fn no_non_test_source_file_is_over_500_lines() {
    let root = &metadata().workspace_root;
    let mut checked = 0;
    let mut oversized = Vec::new();
    for package in metadata().members() {
        let dir = package.manifest_path.parent().unwrap_or(Path::new("."));
        let files = package_sources(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for file in files {
            if SourceRole::of(&file.path) == SourceRole::Test {
                continue;
            }
            checked += 1;
            let lines = file.text.lines().count();
            if lines > MAX_LINES {
                let shown: PathBuf = dir.join(&file.path);
                let shown = shown.strip_prefix(root).unwrap_or(&shown).to_path_buf();
                oversized.push(format!("{} ({lines} lines)", shown.display()));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} files checked; the walk is broken"
    );
    assert!(
        oversized.is_empty(),
        "non-test files over {MAX_LINES} lines; split them by responsibility (or move tests \
         to a sibling *_tests.rs):\n{}",
        oversized.join("\n")
    );
}
