use std::collections::BTreeSet;

use super::*;

fn site(file: &str, line: usize, path: &str) -> EdgeSite {
    EdgeSite {
        file: PathBuf::from(file),
        line,
        path: path.to_owned(),
    }
}

/// `edges` as `(from, to)`; each edge's site is `src/{from}.rs:1 crate::{to}`.
fn graph(nodes: &[&str], edges: &[(&str, &str)]) -> ModuleGraph {
    let mut g = ModuleGraph::new(nodes.iter().map(|n| (*n).to_owned()).collect());
    for (from, to) in edges {
        g.add_edge(
            from,
            to,
            site(&format!("src/{from}.rs"), 1, &format!("crate::{to}")),
        );
    }
    g
}

#[test]
fn one_cycle_is_reported_by_name_with_its_sites() {
    let g = graph(
        &["a", "b", "c", "d", "e"],
        &[("a", "b"), ("b", "c"), ("c", "a"), ("d", "a"), ("c", "e")],
    );
    let cycles = g.cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let cycle = &cycles[0];
    assert_eq!(cycle.modules, ["a", "b", "c"]);
    let shown = cycle.to_string();
    assert_eq!(
        shown,
        "import cycle: a → b → c → a\n  a → b:\n    src/a.rs:1 `crate::b`\n  b → c:\n    \
         src/b.rs:1 `crate::c`\n  c → a:\n    src/c.rs:1 `crate::a`"
    );
}

#[test]
fn an_acyclic_graph_has_no_cycle() {
    let g = graph(
        &["a", "b", "c", "d"],
        &[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")],
    );
    assert!(g.cycles().is_empty());
}

#[test]
fn each_tangle_is_reported_once_with_its_shortest_cycle() {
    let g = graph(
        &["a", "b", "c", "x", "y"],
        &[
            ("a", "b"),
            ("b", "c"),
            ("c", "a"),
            ("b", "a"),
            ("x", "y"),
            ("y", "x"),
        ],
    );
    let cycles = g.cycles();
    let shown: BTreeSet<Vec<String>> = cycles.iter().map(|c| c.modules.clone()).collect();
    assert_eq!(
        shown,
        BTreeSet::from([
            vec!["a".to_owned(), "b".to_owned()],
            vec!["x".to_owned(), "y".to_owned()]
        ])
    );
    let tangle = cycles.iter().find(|c| c.modules[0] == "a").unwrap();
    assert!(
        tangle
            .to_string()
            .starts_with("import cycle: a → b → a (part of a cycle through a, b, c)"),
        "{tangle}"
    );
}

fn floors() -> Floors {
    Floors {
        floors: vec![
            ("ground", vec!["base", "types"]),
            ("middle", vec!["logic"]),
            ("top", vec!["api", "ghost"]),
        ],
        allowed: vec![
            AllowedUpward {
                from: "types",
                to: "api",
                reason: "synthetic",
            },
            AllowedUpward {
                from: "base",
                to: "logic",
                reason: "no such import",
            },
        ],
    }
}

#[test]
fn an_upward_import_is_reported_by_name_and_an_allowed_one_is_not() {
    let g = graph(
        &["base", "types", "logic", "api", "stray"],
        &[
            ("logic", "base"),
            ("base", "types"),
            ("types", "base"),
            ("api", "logic"),
            ("types", "api"),
            ("base", "api"),
        ],
    );
    let found = g.floor_violations(&floors());
    assert_eq!(
        found,
        vec![
            FloorViolation::Unplaced {
                module: "stray".into()
            },
            FloorViolation::UnknownModule {
                module: "ghost".into()
            },
            FloorViolation::Upward {
                from: "base".into(),
                from_floor: "ground".into(),
                to: "api".into(),
                to_floor: "top".into(),
                sites: vec![site("src/base.rs", 1, "crate::api")],
            },
            FloorViolation::StaleAllowance {
                from: "base".into(),
                to: "logic".into(),
            },
        ]
    );
    assert!(found[2].to_string().starts_with(
        "upward import: base (ground) → api (top); a lower floor never imports a higher one"
    ));
}

#[test]
fn a_graph_within_its_floors_has_no_violation() {
    let g = graph(
        &["base", "types", "logic", "api", "ghost"],
        &[
            ("logic", "base"),
            ("types", "api"),
            ("base", "logic"),
            ("api", "types"),
        ],
    );
    assert_eq!(g.floor_violations(&floors()), vec![]);
}
