//! End to end: a synthetic crate on disk-like sources, scanned and checked.

use std::path::Path;

use super::*;

#[test]
fn a_synthetic_crate_with_one_module_cycle_is_reported_by_name() {
    let tree = MemTree::from_files(&[
        (
            "src/lib.rs",
            "pub mod server;\npub mod handle;\npub mod listing;\npub mod error;\n\
             pub use handle::ServerHandle;",
        ),
        ("src/server.rs", "use crate::error::E;"),
        (
            "src/handle.rs",
            "use crate::{error::E, server::State};\n\nfn list(h: &ServerHandle) {\n    \
             crate::listing::list_tools(h);\n}",
        ),
        (
            "src/listing.rs",
            "// crate::handle in a comment is no import\nuse super::ServerHandle;",
        ),
        ("src/error.rs", ""),
        ("src/handle_tests.rs", "use crate::server::Whatever;"),
    ]);
    let graph = scan_crate(&tree, Path::new("src/lib.rs")).unwrap();
    let cycles = graph.cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert_eq!(
        cycles[0].to_string(),
        "import cycle: handle → listing → handle\n  handle → listing:\n    src/handle.rs:4 \
         `crate::listing::list_tools`\n  listing → handle:\n    src/listing.rs:2 \
         `super::ServerHandle`"
    );
}

#[test]
fn crate_roots_are_lib_and_main_read_under_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let tree = FsTree::new(dir.path());
    let src = Path::new("src");
    std::fs::create_dir(dir.path().join(src)).unwrap();
    assert!(crate_roots(&tree, src).is_empty());
    std::fs::write(dir.path().join("src/main.rs"), "mod cli;").unwrap();
    std::fs::write(dir.path().join("src/cli.rs"), "").unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    assert_eq!(
        crate_roots(&tree, src),
        [src.join("lib.rs"), src.join("main.rs")]
    );
    let graph = scan_crate(&tree, &src.join("main.rs")).unwrap();
    assert_eq!(graph.nodes().iter().collect::<Vec<_>>(), ["cli"]);
}
