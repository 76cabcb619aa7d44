use std::path::Path;

use super::*;
use crate::structure::MemTree;

fn graph(files: &[(&str, &str)]) -> ModuleGraph {
    scan_crate(&MemTree::from_files(files), Path::new("src/lib.rs")).unwrap()
}

fn edges(graph: &ModuleGraph) -> Vec<(String, String)> {
    graph
        .edges()
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

const LIB: &str = "pub mod a;\nmod b;\npub(crate) mod c;\nmod d;\n";

#[test]
fn use_groups_nested_groups_and_visibility_prefixes() {
    let g = graph(&[
        ("src/lib.rs", LIB),
        (
            "src/a.rs",
            "use crate::{b, c::{self, Thing as Other}};\npub(crate) use crate::d::*;\nuse std::fmt;",
        ),
        ("src/b.rs", ""),
        ("src/c.rs", ""),
        ("src/d.rs", ""),
    ]);
    assert_eq!(edges(&g), pairs(&[("a", "b"), ("a", "c"), ("a", "d")]));
    assert_eq!(g.sites("a", "c")[0].line, 1);
    assert_eq!(g.sites("a", "d")[0].path, "crate::d::*");
    assert_eq!(g.nodes().len(), 4);
}

#[test]
fn super_paths_resolve_from_the_module_they_are_written_in() {
    let g = graph(&[
        ("src/lib.rs", LIB),
        // `foo/mod.rs` and `foo.rs` + `foo/` are both the node `foo`.
        ("src/a/mod.rs", "mod x;"),
        (
            "src/a/x.rs",
            "mod y;\nuse super::helper;\nuse super::super::b::B;",
        ),
        (
            "src/a/x/y.rs",
            "use super::super::super::c::C;\nuse super::super::Z;",
        ),
        ("src/b.rs", "use super::d;"),
        ("src/c.rs", ""),
        ("src/d.rs", ""),
    ]);
    assert_eq!(
        edges(&g),
        pairs(&[("a", "b"), ("a", "c"), ("b", "d")]),
        "super::helper and super::super::Z stay inside a"
    );
}

#[test]
fn inline_paths_macros_and_not_visibility_restrictions() {
    let g = graph(&[
        ("src/lib.rs", LIB),
        (
            "src/a.rs",
            "pub(in crate::b) fn f() { let _ = crate::c::make(); }\n\
             macro_rules! m { () => { $crate::d::D } }",
        ),
        ("src/b.rs", "pub(crate) struct S;"),
        ("src/c.rs", ""),
        ("src/d.rs", ""),
    ]);
    assert_eq!(edges(&g), pairs(&[("a", "c"), ("a", "d")]));
}

#[test]
fn comments_strings_and_precise_capturing_are_not_imports() {
    let g = graph(&[
        ("src/lib.rs", LIB),
        (
            "src/a.rs",
            "//! See [`crate::b`].\n/* crate::c::X */\nconst S: &str = \"crate::d::Y\";\n\
             fn f<'x>() -> impl Sized + use<'x> { 1 }\nuse crate::b::Z;",
        ),
        ("src/b.rs", ""),
        ("src/c.rs", ""),
        ("src/d.rs", ""),
    ]);
    assert_eq!(edges(&g), pairs(&[("a", "b")]));
    assert_eq!(g.sites("a", "b")[0].line, 5);
}

#[test]
fn test_code_is_left_out() {
    let g = graph(&[
        ("src/lib.rs", LIB),
        (
            "src/a.rs",
            "#[cfg(test)]\n#[path = \"a_extra.rs\"]\nmod tests;\n\
             #[cfg(test)]\nmod inline { use crate::c::C; }\n\
             #[cfg(all(test, unix))]\nuse crate::d::D;\n\
             #[cfg(test)]\nfn helper<A, B>() where A: Clone, B: Copy { crate::d::f(); }\n\
             mod checks_tests;\nuse crate::b::B;",
        ),
        // Never read: declared under #[cfg(test)].
        ("src/a_extra.rs", "use crate::c::C;"),
        // Never read: a `*_tests.rs` file, even when declared without #[cfg(test)].
        ("src/a/checks_tests.rs", "use crate::d::D;"),
        ("src/b.rs", ""),
        ("src/c.rs", ""),
        ("src/d.rs", ""),
    ]);
    assert_eq!(edges(&g), pairs(&[("a", "b")]));
}

#[test]
fn path_attributes_and_inline_modules() {
    let g = graph(&[
        (
            "src/lib.rs",
            "mod a;\nmod b;\nmod c;\nmod d { use crate::b::B; }\n",
        ),
        (
            "src/a.rs",
            "#[path = \"elsewhere/impl_a.rs\"]\npub mod imp;\n\
             mod inner {\n    use super::helper;\n    use super::super::c::C;\n    mod deeper;\n}",
        ),
        ("src/elsewhere/impl_a.rs", "use crate::b::B;"),
        ("src/a/inner/deeper.rs", "use crate::d::D;"),
        ("src/b.rs", ""),
        ("src/c.rs", ""),
    ]);
    assert_eq!(
        edges(&g),
        pairs(&[("a", "b"), ("a", "c"), ("a", "d"), ("d", "b")])
    );
    assert_eq!(
        g.sites("a", "b")[0].file,
        Path::new("src/elsewhere/impl_a.rs")
    );
}

#[test]
fn names_the_root_re_exports_resolve_to_their_module() {
    let g = graph(&[
        (
            "src/lib.rs",
            "mod a;\nmod b;\nmod c;\npub use a::{Thing, Other as Renamed};\npub use c::*;\nfn local() {}",
        ),
        ("src/a.rs", ""),
        (
            "src/b.rs",
            "use crate::Renamed;\nfn f() -> crate::Thing { crate::local(); todo!() }\nuse crate::Unknown;",
        ),
        ("src/c.rs", ""),
    ]);
    assert_eq!(edges(&g), pairs(&[("b", "a")]));
    assert_eq!(g.sites("b", "a").len(), 2);
}

#[test]
fn a_declared_module_without_a_file_is_an_error() {
    let tree = MemTree::from_files(&[("src/lib.rs", "mod gone;")]);
    let error = scan_crate(&tree, Path::new("src/lib.rs")).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`mod gone` is declared in src/lib.rs")
            && message.contains("src/gone.rs")
            && message.contains("src/gone/mod.rs"),
        "{message}"
    );
}

fn folders(files: &[(&str, &str)]) -> std::collections::BTreeMap<String, ModuleGraph> {
    scan_folders(&MemTree::from_files(files), Path::new("src/lib.rs")).unwrap()
}

#[test]
fn each_folder_module_has_its_own_graph_of_siblings() {
    let g = folders(&[
        ("src/lib.rs", "mod net;\nmod app;\npub use net::Client;"),
        (
            "src/app.rs",
            "use crate::Client;\nuse crate::net::auth::Token;",
        ),
        (
            "src/net/mod.rs",
            "mod auth;\nmod post;\nmod http;\npub use post::Client;\nuse self::http::get;",
        ),
        (
            "src/net/auth.rs",
            "use super::{Client, http::{self, get}};\nmod store;",
        ),
        (
            "src/net/auth/store.rs",
            "use super::super::post::Body;\nuse crate::app::App;",
        ),
        (
            "src/net/post.rs",
            "use crate::net::auth::Token;\nfn f() { super::super::app::g(); }",
        ),
        ("src/net/http.rs", ""),
    ]);
    assert_eq!(g.keys().collect::<Vec<_>>(), ["", "net", "net::auth"]);
    assert_eq!(
        edges(&g[""]),
        pairs(&[("app", "net"), ("net", "app")]),
        "a path into a folder is an edge of the top level only"
    );
    assert_eq!(
        edges(&g["net"]),
        pairs(&[("auth", "http"), ("auth", "post"), ("post", "auth")]),
        "`super::Client` is post's through the folder's re-export; store's import is auth's"
    );
    let mut shown: Vec<String> = g["net"]
        .sites("auth", "post")
        .iter()
        .map(ToString::to_string)
        .collect();
    shown.sort();
    assert_eq!(
        shown,
        [
            "src/net/auth.rs:1 `super::Client`",
            "src/net/auth/store.rs:1 `super::super::post::Body`"
        ]
    );
    assert_eq!(edges(&g["net::auth"]), pairs(&[]));
    assert_eq!(g["net::auth"].nodes().len(), 1);
}
