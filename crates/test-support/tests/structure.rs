//! The workspace's module-structure rules, checked on the real sources:
//! - in every crate, no import cycle between its top-level modules, nor between the sibling
//!   modules of any folder module, except the cycles `data/module-cycles.toml` names — and
//!   each of those must still exist, so the baseline only shrinks;
//! - in `coyote-mcp` and `coyote-cli`, no import from a lower floor to a higher one. The floor
//!   tables below are the ones `docs/architecture.md` shows; a new module goes in both.
//!
//! The checkers themselves are unit-tested in `coyote_test_support::structure`.

use std::path::{Path, PathBuf};

use coyote_test_support::structure::{
    CycleBaseline, Floors, FoundCycle, FsTree, ModuleGraph, crate_roots, scan_crate, scan_folders,
};

use crate::workspace::metadata;

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

fn baseline() -> CycleBaseline {
    let baseline: CycleBaseline = toml::from_str(include_str!("../data/module-cycles.toml"))
        .unwrap_or_else(|e| panic!("data/module-cycles.toml is not a valid baseline: {e}"));
    baseline.validate().unwrap_or_else(|e| panic!("{e}"));
    baseline
}

/// Every cycle of every library and binary target of every workspace crate: among the
/// top-level modules and among the children of each folder module. Also returns how many
/// import edges were read, so a broken scanner cannot pass by seeing nothing.
fn workspace_cycles() -> (Vec<FoundCycle>, usize) {
    let root = &metadata().workspace_root;
    let tree = FsTree::new(root);
    let mut found = Vec::new();
    let mut edges = 0;
    for package in metadata().members() {
        let dir = package.manifest_path.parent().unwrap_or(Path::new("."));
        let targets = package
            .targets
            .iter()
            .filter(|t| t.kind.iter().any(|k| k == "lib" || k == "bin"));
        for target in targets {
            let path = target
                .src_path
                .strip_prefix(root)
                .unwrap_or(&target.src_path);
            let graphs = scan_folders(&tree, path)
                .unwrap_or_else(|e| panic!("cannot scan {}: {e}", path.display()));
            let shown_root = target
                .src_path
                .strip_prefix(dir)
                .unwrap_or(&target.src_path);
            for (folder, graph) in graphs {
                edges += graph.edges().count();
                found.extend(graph.cycles().into_iter().map(|cycle| FoundCycle {
                    krate: package.name.clone(),
                    root: shown_root.display().to_string(),
                    folder: folder.clone(),
                    cycle,
                }));
            }
        }
    }
    (found, edges)
}

#[test]
fn no_crate_or_folder_has_a_module_cycle_the_baseline_does_not_name() {
    let (found, edges) = workspace_cycles();
    assert!(
        edges > 300,
        "only {edges} imports between modules found; the scanner is not reading the sources"
    );
    let findings = baseline().compare(&found);
    let report: Vec<String> = findings.iter().map(ToString::to_string).collect();
    assert!(
        findings.is_empty(),
        "the module cycles differ from data/module-cycles.toml ({} found):\n{}",
        found.len(),
        report.join("\n")
    );
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
            // Ordered by what the code imports: rmcp ↔ our types, then the content policy
            // (which the stdio transport feeds a blob into as it arrives), then the transports.
            ("types", vec!["convert"]),
            ("content policy", vec!["render"]),
            (
                "transport",
                vec!["connect", "client_handler", "activity", "mrtr"],
            ),
            (
                "conversation",
                vec![
                    "handle",
                    "listing",
                    "completion",
                    "subscription",
                    "skills",
                    "tasks",
                ],
            ),
            ("runtime", vec!["runtime", "factory", "catalog_cache"]),
            ("policy", vec!["uri_template", "prompt", "search"]),
            ("top", vec!["meta"]),
        ],
        allowed: Vec::new(),
    }
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

/// coyote-cli's floors, lowest first (docs/architecture.md "Floors inside coyote-cli"): the
/// shared terminal floor `ui` sits below everything that builds a runtime, and the front ends
/// (one-shot chat, `coyote mcp …`, the REPL and the small commands) on top.
fn coyote_cli_floors() -> Floors {
    Floors {
        floors: vec![
            (
                "ground",
                vec![
                    "capture",
                    "term",
                    "exit",
                    "markdown",
                    "output",
                    "signals",
                    "logging",
                    "line_reader",
                    "coerce",
                    "args",
                    "reasoning",
                    "attach",
                    "agent",
                    "boxed",
                ],
            ),
            ("ui", vec!["ui"]),
            ("setup", vec!["client", "setup", "scope"]),
            (
                "front ends",
                vec![
                    "chat",
                    "agent_chat",
                    "mcp_cmd",
                    "repl",
                    "models_cmd",
                    "help_cmd",
                    "shell_cmd",
                    "typo",
                ],
            ),
        ],
        allowed: Vec::new(),
    }
}

#[test]
fn coyote_cli_lower_floors_never_import_higher_ones() {
    let floors = coyote_cli_floors();
    for (root, graph) in graphs("cli") {
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
