//! The workspace's module-structure rules, checked on the real sources (issue 13 item 6):
//! no import cycle between the top-level modules of `coyote-mcp` and `coolify-mcp`, and in
//! `coyote-mcp` no import from a lower floor to a higher one. The floor
//! table below is the one `docs/architecture.md` shows; a new module goes in both.
//! The checker itself is unit-tested in `coyote_test_support::structure`.

use std::path::{Path, PathBuf};

use coyote_test_support::structure::{
    AllowedUpward, Floors, FsTree, ModuleGraph, crate_roots, scan_crate,
};

/// The graph of every crate root (`lib.rs`, `main.rs`) of `crates/{name}`; sites are shown
/// relative to the workspace root.
fn graphs(name: &str) -> Vec<(PathBuf, ModuleGraph)> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tree = FsTree::new(workspace);
    let src = Path::new("crates").join(name).join("src");
    let roots = crate_roots(&tree, &src);
    assert!(
        !roots.is_empty(),
        "{} has no lib.rs or main.rs",
        src.display()
    );
    roots
        .into_iter()
        .map(|root| {
            let graph = scan_crate(&tree, &root)
                .unwrap_or_else(|e| panic!("cannot scan {}: {e}", root.display()));
            (root, graph)
        })
        .collect()
}

/// Fails with every cycle, printed with the lines that make it.
fn assert_no_module_cycles(name: &str) {
    for (root, graph) in graphs(name) {
        let edges = graph.edges().count();
        assert!(
            root.ends_with("main.rs") || edges > 0,
            "{}: no import between modules found; the scanner is not reading the sources",
            root.display()
        );
        let cycles = graph.cycles();
        let report: Vec<String> = cycles.iter().map(ToString::to_string).collect();
        assert!(
            cycles.is_empty(),
            "{}: {} import cycle(s) between top-level modules:\n{}",
            root.display(),
            cycles.len(),
            report.join("\n")
        );
    }
}

/// coyote-mcp's floors, lowest first (docs/architecture.md "Floors inside coyote-mcp").
fn coyote_mcp_floors() -> Floors {
    Floors {
        floors: vec![
            (
                "ground",
                vec![
                    "server",
                    "catalog",
                    "error",
                    "content",
                    "schema_check",
                    "browser",
                    "progress",
                ],
            ),
            (
                "transport",
                vec!["connect", "convert", "client_handler", "activity", "mrtr"],
            ),
            (
                "conversation",
                vec!["handle", "listing", "completion", "subscription"],
            ),
            ("runtime", vec!["runtime", "factory", "catalog_cache"]),
            ("policy", vec!["render", "uri_template", "prompt", "search"]),
            ("top", vec!["meta"]),
        ],
        allowed: vec![AllowedUpward {
            from: "connect",
            to: "render",
            reason: "the stdio line transport decodes a resources/read blob as it arrives into \
                     render's BlobReceiver (issue 3: a 50 MiB read never exists as base64); \
                     inverting it needs a blob sink owned below both",
        }],
    }
}

#[test]
fn coyote_mcp_has_no_module_cycles() {
    assert_no_module_cycles("mcp");
}

#[test]
fn coyote_mcp_lower_floors_never_import_higher_ones() {
    let floors = coyote_mcp_floors();
    for (root, graph) in graphs("mcp") {
        let found = graph.floor_violations(&floors);
        let report: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert!(
            found.is_empty(),
            "{}: the module floors are broken:\n{}",
            root.display(),
            report.join("\n")
        );
    }
}

#[test]
fn coolify_mcp_has_no_module_cycles() {
    assert_no_module_cycles("coolify-mcp");
}
