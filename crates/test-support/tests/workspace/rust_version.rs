//! The workspace `rust-version` is exactly the highest `rust-version` among the resolved
//! dependencies: lower would promise builds that cannot work, higher would refuse toolchains
//! that can.

use coyote_test_support::structure::RustVersion;

use super::metadata;

#[test]
fn workspace_rust_version_is_the_highest_a_dependency_needs() {
    let metadata = metadata();
    let (needed, by) = metadata
        .highest_dependency_rust_version()
        .expect("some dependency declares a rust-version");
    for member in metadata.members() {
        let declared = member.rust_version.as_deref().and_then(RustVersion::parse);
        assert_eq!(
            declared,
            Some(needed),
            "{} declares rust-version {:?}, but {} {} needs {needed}; set `rust-version` in \
             [workspace.package] of the root Cargo.toml to it",
            member.name,
            member.rust_version,
            by.name,
            by.version
        );
    }
}
