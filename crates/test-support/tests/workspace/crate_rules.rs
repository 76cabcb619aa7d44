//! The crate rules (`crates/test-support/data/crate-rules.toml`, from the architecture's
//! "Crates") hold on the resolved dependency graph.

use std::collections::BTreeSet;

use coyote_test_support::structure::{CrateRules, check_crate_rules};

use super::metadata;

fn rules() -> CrateRules {
    toml::from_str(include_str!("../../data/crate-rules.toml"))
        .unwrap_or_else(|e| panic!("data/crate-rules.toml is not a valid rules file: {e}"))
}

#[test]
fn no_crate_depends_on_one_it_must_not() {
    let graph = metadata().crate_graph().unwrap_or_else(|e| panic!("{e}"));
    let rules = rules();
    assert!(rules.rules.len() >= 10, "the rules file lost its rules");
    let found = check_crate_rules(&graph, &rules).unwrap_or_else(|e| panic!("{e}"));
    let report: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert!(
        found.is_empty(),
        "{} forbidden dependenc{} (docs/architecture.md, Crates):\n{}",
        found.len(),
        if found.len() == 1 { "y" } else { "ies" },
        report.join("\n")
    );
}

/// Each workspace crate is a library, a binary or dev-only, exactly once: a new crate is
/// placed before the rules can say anything about it.
#[test]
fn every_workspace_crate_has_exactly_one_role() {
    let rules = rules();
    let roles = ["libraries", "binaries", "dev_only"];
    let members: BTreeSet<String> = metadata()
        .members()
        .iter()
        .map(|p| p.name.clone())
        .collect();
    let mut problems = Vec::new();
    for name in &members {
        let placed: Vec<&str> = roles
            .iter()
            .copied()
            .filter(|role| rules.groups.get(*role).is_some_and(|g| g.contains(name)))
            .collect();
        if placed.len() != 1 {
            problems.push(format!(
                "{name} is in {placed:?}; put it in exactly one of {roles:?} in data/crate-rules.toml"
            ));
        }
    }
    for role in roles {
        for name in rules.groups.get(role).into_iter().flatten() {
            if !members.contains(name) {
                problems.push(format!(
                    "group {role} names {name}, which is not a workspace crate; remove it"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
