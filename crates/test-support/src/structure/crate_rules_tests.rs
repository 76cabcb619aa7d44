use super::*;

/// A workspace `a`, `b`, `c` (with `ext` outside it) and `edges` as `(from, to, kind)`.
fn graph(edges: &[(&str, &str, DepKind)]) -> CrateGraph {
    let mut g = CrateGraph {
        workspace: ["a", "b", "c"].iter().map(|s| (*s).to_owned()).collect(),
        ..CrateGraph::default()
    };
    for (from, to, kind) in edges {
        g.add(from, to, *kind);
    }
    g
}

fn rule(name: &str, from: &[&str], to: &[&str], reach: Reach) -> CrateRule {
    CrateRule {
        name: name.to_owned(),
        from: from.iter().map(|s| (*s).to_owned()).collect(),
        not_from: Vec::new(),
        to: to.iter().map(|s| (*s).to_owned()).collect(),
        not_to: Vec::new(),
        reach,
        kinds: vec![DepKind::Normal, DepKind::Dev, DepKind::Build],
        reason: format!("reason of {name}"),
    }
}

fn rules(rules: Vec<CrateRule>) -> CrateRules {
    CrateRules {
        groups: BTreeMap::new(),
        rules,
    }
}

#[test]
fn one_forbidden_edge_is_reported_by_name() {
    use DepKind::Normal;
    let g = graph(&[("a", "b", Normal), ("b", "c", Normal), ("a", "ext", Normal)]);
    let found = check_crate_rules(
        &g,
        &rules(vec![rule("b-stays-off-c", &["b"], &["c"], Reach::Direct)]),
    )
    .unwrap();
    assert_eq!(
        found,
        vec![RuleViolation {
            rule: "b-stays-off-c".into(),
            from: "b".into(),
            to: "c".into(),
            kind: Normal,
            path: vec!["b".into(), "c".into()],
            reason: "reason of b-stays-off-c".into(),
        }]
    );
    assert_eq!(
        found[0].to_string(),
        "b depends on c (normal dependency), which rule `b-stays-off-c` forbids: reason of \
         b-stays-off-c"
    );
}

#[test]
fn a_clean_graph_has_no_findings() {
    use DepKind::Normal;
    let g = graph(&[("a", "b", Normal), ("b", "ext", Normal)]);
    let found = check_crate_rules(
        &g,
        &rules(vec![
            rule("no-upward", &["b"], &["a"], Reach::Transitive),
            rule("c-alone", &["c"], &["@workspace"], Reach::Transitive),
        ]),
    )
    .unwrap();
    assert_eq!(found, Vec::new());
}

#[test]
fn transitive_reach_reports_the_chain_and_direct_reach_does_not_see_it() {
    use DepKind::Normal;
    let g = graph(&[("a", "b", Normal), ("b", "ext", Normal)]);
    let transitive = check_crate_rules(
        &g,
        &rules(vec![rule("no-ext", &["a"], &["ext"], Reach::Transitive)]),
    )
    .unwrap();
    assert_eq!(transitive.len(), 1);
    assert_eq!(transitive[0].path, ["a", "b", "ext"]);
    assert_eq!(
        transitive[0].to_string(),
        "a depends on ext (normal dependency, through a → b → ext), which rule `no-ext` \
         forbids: reason of no-ext"
    );
    let direct = check_crate_rules(
        &g,
        &rules(vec![rule("no-ext", &["a"], &["ext"], Reach::Direct)]),
    )
    .unwrap();
    assert_eq!(direct, Vec::new());
}

#[test]
fn kinds_choose_the_first_step_and_deeper_steps_follow_normal_edges_only() {
    use DepKind::{Build, Dev, Normal};
    // a —dev→ b —normal→ ext; a —normal→ c —dev→ ext (c's own dev edge brings nothing in).
    let g = graph(&[
        ("a", "b", Dev),
        ("b", "ext", Normal),
        ("a", "c", Normal),
        ("c", "ext", Dev),
    ]);
    let mut normal_only = rule("no-ext", &["a"], &["ext"], Reach::Transitive);
    normal_only.kinds = vec![Normal, Build];
    assert_eq!(
        check_crate_rules(&g, &rules(vec![normal_only])).unwrap(),
        Vec::new()
    );
    let all = check_crate_rules(
        &g,
        &rules(vec![rule("no-ext", &["a"], &["ext"], Reach::Transitive)]),
    )
    .unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(
        (all[0].kind, all[0].path.clone()),
        (Dev, vec!["a".into(), "b".into(), "ext".into()])
    );
}

#[test]
fn groups_globs_and_exceptions_expand() {
    use DepKind::Normal;
    let mut g = graph(&[("a", "ext-one", Normal), ("b", "ext-two", Normal)]);
    g.add("c", "ext-one", Normal);
    let mut r = rule("no-ext", &["@libs"], &["ext-*"], Reach::Direct);
    r.not_from = vec!["c".into()];
    r.not_to = vec!["ext-two".into()];
    let mut set = rules(vec![r]);
    set.groups
        .insert("libs".into(), vec!["a".into(), "b".into(), "c".into()]);
    let found = check_crate_rules(&g, &set).unwrap();
    let pairs: Vec<(&str, &str)> = found
        .iter()
        .map(|v| (v.from.as_str(), v.to.as_str()))
        .collect();
    assert_eq!(pairs, [("a", "ext-one")]);
}

#[test]
fn a_rule_naming_an_unknown_crate_or_group_is_an_error() {
    let g = graph(&[]);
    assert_eq!(
        check_crate_rules(
            &g,
            &rules(vec![rule("typo", &["coyote-mpc"], &["x"], Reach::Direct)])
        ),
        Err(RulesError::UnknownCrate {
            rule: "typo".into(),
            name: "coyote-mpc".into()
        })
    );
    assert_eq!(
        check_crate_rules(
            &g,
            &rules(vec![rule("typo", &["a"], &["@nope"], Reach::Direct)])
        ),
        Err(RulesError::UnknownGroup {
            rule: "typo".into(),
            group: "nope".into()
        })
    );
}

#[test]
fn rules_read_from_toml() {
    let set: CrateRules = toml::from_str(
        r#"
        [groups]
        libs = ["a", "b"]

        [[rule]]
        name = "no-c"
        from = ["@libs"]
        to = ["c"]
        reach = "transitive"
        kinds = ["normal", "build"]
        reason = "c is a binary"
        "#,
    )
    .unwrap();
    assert_eq!(set.rules[0].kinds, [DepKind::Normal, DepKind::Build]);
    let g = graph(&[("a", "b", DepKind::Normal), ("b", "c", DepKind::Normal)]);
    let found = check_crate_rules(&g, &set).unwrap();
    let pairs: Vec<(&str, &str)> = found
        .iter()
        .map(|v| (v.from.as_str(), v.to.as_str()))
        .collect();
    assert_eq!(pairs, [("a", "c"), ("b", "c")]);
}
