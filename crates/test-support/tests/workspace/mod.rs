//! Workspace-wide rules, checked on `cargo metadata` and the sources:
//! - `crate_rules`: no crate depends on one it must not (`data/crate-rules.toml`);
//! - `dependencies`: every declared dependency is named by a source of its section;
//! - `rust_version`: the workspace `rust-version` is the highest any dependency needs;
//! - `file_size`: no non-test source file is over 500 lines;
//! - `link_scripts`: the release start-up linker scripts are the generated shape.
//!
//! The checkers are unit-tested in `coyote_test_support::structure`; these tests apply them to
//! the real workspace. `cargo metadata` runs once per test binary.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use coyote_test_support::structure::Metadata;

mod crate_rules;
mod dependencies;
mod file_size;
mod link_scripts;
mod rust_version;

/// The workspace root (two levels above this crate's manifest).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `cargo metadata` of the workspace, read once.
pub(crate) fn metadata() -> &'static Metadata {
    static METADATA: OnceLock<Metadata> = OnceLock::new();
    METADATA.get_or_init(|| Metadata::load(&workspace_root()).unwrap_or_else(|e| panic!("{e}")))
}
