use std::path::Path;

use super::*;
use crate::structure::{MemTree, scan_folders};

/// The cycles of a synthetic crate `demo`, top level and per folder, as the structure test
/// gathers them.
fn found(files: &[(&str, &str)]) -> Vec<FoundCycle> {
    let graphs = scan_folders(&MemTree::from_files(files), Path::new("src/lib.rs")).unwrap();
    graphs
        .into_iter()
        .flat_map(|(folder, graph)| {
            graph.cycles().into_iter().map(move |cycle| FoundCycle {
                krate: "demo".to_owned(),
                root: "src/lib.rs".to_owned(),
                folder: folder.clone(),
                cycle,
            })
        })
        .collect()
}

fn baseline(text: &str) -> CycleBaseline {
    let baseline: CycleBaseline = toml::from_str(text).unwrap();
    baseline.validate().unwrap();
    baseline
}

/// `net/` with `auth ↔ post` (through the folder's re-export) under an acyclic top level.
const KNOTTED: &[(&str, &str)] = &[
    ("src/lib.rs", "mod net;\nmod app;"),
    ("src/app.rs", "use crate::net::Client;"),
    (
        "src/net/mod.rs",
        "mod auth;\nmod post;\nmod http;\npub use post::Client;",
    ),
    (
        "src/net/auth.rs",
        "use super::Client;\nuse super::http::get;",
    ),
    ("src/net/post.rs", "use super::auth::Token;"),
    ("src/net/http.rs", ""),
];

const ENTRY: &str = r#"
[[cycle]]
name = "net-auth-post"
crate = "demo"
folder = "net"
modules = ["auth", "post"]
reason = "auth reads the client post builds; a challenge parser below both would break it"
"#;

#[test]
fn a_synthetic_folder_cycle_fails_without_a_baseline_entry() {
    let found = found(KNOTTED);
    assert_eq!(found.len(), 1, "{found:?}");
    let findings = CycleBaseline::default().compare(&found);
    assert_eq!(findings.len(), 1);
    let shown = findings[0].to_string();
    assert_eq!(
        shown,
        "demo src/lib.rs, folder net: import cycle: auth → post → auth\n  auth → post:\n    \
         src/net/auth.rs:1 `super::Client`\n  post → auth:\n    src/net/post.rs:1 \
         `super::auth::Token`\n  break it by moving the item both sides need below them; if it \
         is what is left of a baseline entry's cycle, shrink that entry to these modules"
    );
}

#[test]
fn a_named_cycle_passes_and_the_entry_fails_once_the_cycle_is_gone() {
    assert_eq!(baseline(ENTRY).compare(&found(KNOTTED)), []);
    let untied: Vec<(&str, &str)> = KNOTTED
        .iter()
        .map(|&(path, text)| {
            if path == "src/net/post.rs" {
                (path, "")
            } else {
                (path, text)
            }
        })
        .collect();
    let findings = baseline(ENTRY).compare(&found(&untied));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        matches!(&findings[0], CycleFinding::Gone(k) if k.name == "net-auth-post"),
        "{findings:?}"
    );
    assert!(
        findings[0]
            .to_string()
            .contains("remove the entry from data/module-cycles.toml"),
        "{}",
        findings[0]
    );
}

#[test]
fn a_cycle_that_grows_is_new_and_its_old_entry_stale() {
    let grown: Vec<(&str, &str)> = KNOTTED
        .iter()
        .map(|&(path, text)| {
            if path == "src/net/http.rs" {
                (path, "use super::post::Client;")
            } else {
                (path, text)
            }
        })
        .collect();
    let findings = baseline(ENTRY).compare(&found(&grown));
    assert_eq!(findings.len(), 2, "{findings:?}");
    assert!(
        matches!(&findings[0], CycleFinding::New(f)
            if f.cycle.component.iter().eq(["auth", "http", "post"])),
        "{findings:?}"
    );
    assert!(
        matches!(&findings[1], CycleFinding::Gone(_)),
        "{findings:?}"
    );
}

#[test]
fn a_top_level_cycle_is_matched_by_an_entry_without_a_folder() {
    let files = [
        ("src/lib.rs", "mod a;\nmod b;"),
        ("src/a.rs", "use crate::b::B;"),
        ("src/b.rs", "fn f() { crate::a::g(); }"),
    ];
    let entry = r#"
[[cycle]]
name = "a-b"
crate = "demo"
modules = ["a", "b"]
reason = "synthetic"
"#;
    assert_eq!(baseline(entry).compare(&found(&files)), []);
    let elsewhere = entry.replace("name = \"a-b\"", "name = \"a-b\"\nfolder = \"a\"");
    assert_eq!(baseline(&elsewhere).compare(&found(&files)).len(), 2);
}

#[test]
fn a_baseline_entry_needs_a_unique_name_a_reason_and_two_modules() {
    let twice: CycleBaseline = toml::from_str(&format!("{ENTRY}\n{ENTRY}")).unwrap();
    assert!(matches!(
        twice.validate(),
        Err(BaselineError::DuplicateName { .. })
    ));
    let unreasoned: CycleBaseline =
        toml::from_str(&ENTRY.replace("reason = \"auth", "reason = \" \"\n# \"auth")).unwrap();
    assert!(matches!(
        unreasoned.validate(),
        Err(BaselineError::NoReason { .. })
    ));
    let single: CycleBaseline =
        toml::from_str(&ENTRY.replace("[\"auth\", \"post\"]", "[\"auth\"]")).unwrap();
    assert!(matches!(
        single.validate(),
        Err(BaselineError::TooFewModules { .. })
    ));
    assert!(toml::from_str::<CycleBaseline>("[[cycle]]\nname = \"x\"\nunknown = 1").is_err());
}
