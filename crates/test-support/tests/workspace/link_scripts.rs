//! The start-up linker scripts `link/build.rs` hands to release links (`link/<package>.ld`,
//! written by `scripts/link-order`): every package that names `link/build.rs` as its build
//! script has one, and each is exactly the generated shape — one output section before
//! `.text` holding function sections by name (`*(.text._ZN…17h<hash>E)`, then hash-free
//! globs `*(.text._ZN…17h*)`) — so a hand edit that could move or drop other sections, or a
//! script for a package that no longer exists, fails here rather than in a user's
//! `cargo install`.

use super::{metadata, workspace_root};

const OPEN: &str = "SECTIONS {\n  .text.startup_order : {\n";
const CLOSE: &str = "  }\n}\nINSERT BEFORE .text;\n";

#[test]
fn every_release_link_script_is_a_list_of_function_sections() {
    let link = workspace_root().join("link");
    let users: Vec<String> = metadata()
        .members()
        .iter()
        .filter(|m| {
            let manifest = std::fs::read_to_string(&m.manifest_path).unwrap_or_default();
            manifest.contains("build = \"../../link/build.rs\"")
        })
        .map(|m| m.name.clone())
        .collect();
    assert!(
        users.len() >= 2,
        "coyote-cli and coolify-mcp build with link/build.rs: {users:?}"
    );
    let mut scripts: Vec<String> = std::fs::read_dir(&link)
        .expect("link/ exists")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".ld").map(str::to_string)
        })
        .collect();
    scripts.sort();
    let mut expected = users.clone();
    expected.sort();
    assert_eq!(
        scripts, expected,
        "one link/<package>.ld per package built with link/build.rs (run scripts/link-order)"
    );
    for package in users {
        let path = link.join(format!("{package}.ld"));
        let text = std::fs::read_to_string(&path).expect("readable");
        let body_start = text
            .find(OPEN)
            .unwrap_or_else(|| panic!("{}: no `.text.startup_order` section", path.display()))
            + OPEN.len();
        let body = text[body_start..]
            .strip_suffix(CLOSE)
            .unwrap_or_else(|| panic!("{}: does not end with INSERT BEFORE .text", path.display()));
        let lines: Vec<&str> = body.lines().collect();
        let globs = lines.iter().filter(|l| l.ends_with("17h*)")).count();
        assert!(
            lines.len() - globs > 100 && globs > 100,
            "{}: {} exact sections and {globs} globs",
            path.display(),
            lines.len() - globs
        );
        for line in lines {
            let inner = line
                .strip_prefix("    *(.text.")
                .and_then(|g| g.strip_suffix(')'))
                .unwrap_or_else(|| panic!("{}: not a text section line: {line}", path.display()));
            // A name or a glob whose only wildcard is the trailing hash or ThinLTO's
            // `.llvm.<module hash>` suffix: nothing that could match a non-function section.
            let name = inner
                .strip_suffix("17h*")
                .or_else(|| inner.strip_suffix(".llvm.*"))
                .unwrap_or(inner);
            assert!(
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')),
                "{}: unexpected characters in {line}",
                path.display()
            );
        }
    }
}
