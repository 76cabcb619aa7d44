use super::*;

fn names(list: &[&str]) -> ServerList {
    ServerList::Names(list.iter().map(|s| (*s).to_owned()).collect())
}

fn only(list: &[&str]) -> Selection {
    Selection::Only(list.iter().map(|s| (*s).to_owned()).collect())
}

fn mapping() -> BTreeMap<String, Vec<String>> {
    BTreeMap::from([
        (
            "git".to_owned(),
            vec!["github".to_owned(), "gitlab".to_owned()],
        ),
        ("code".to_owned(), vec!["git".to_owned(), "fs".to_owned()]),
        ("loop".to_owned(), vec!["loop".to_owned(), "fs".to_owned()]),
    ])
}

#[test]
fn precedence_matrix_most_specific_wins() {
    let config = Some(names(&["fs"]));
    let role = Some(names(&["docs"]));
    let agent = Some(names(&["kb"]));
    let session = Some(names(&["git"]));
    let cases = [
        (
            None,
            None,
            None,
            None,
            Selection::All,
            SelectionSource::Default,
        ),
        (
            config.clone(),
            None,
            None,
            None,
            only(&["fs"]),
            SelectionSource::Config,
        ),
        (
            config.clone(),
            role.clone(),
            None,
            None,
            only(&["docs"]),
            SelectionSource::Role,
        ),
        (
            None,
            role.clone(),
            agent.clone(),
            None,
            only(&["kb"]),
            SelectionSource::Agent,
        ),
        (
            config.clone(),
            role.clone(),
            agent.clone(),
            None,
            only(&["kb"]),
            SelectionSource::Agent,
        ),
        (
            config.clone(),
            role.clone(),
            agent.clone(),
            session.clone(),
            only(&["github", "gitlab"]),
            SelectionSource::Session,
        ),
        (
            None,
            None,
            None,
            session,
            only(&["github", "gitlab"]),
            SelectionSource::Session,
        ),
        // A role that says `all` overrides a restrictive config.
        (
            config,
            Some(ServerList::All),
            None,
            None,
            Selection::All,
            SelectionSource::Role,
        ),
    ];
    for (config, role, agent, session, selection, source) in cases {
        let layers = SelectionLayers {
            config,
            role,
            agent,
            session,
        };
        assert_eq!(
            resolve_selection(&layers, &mapping()),
            ResolvedSelection { selection, source },
            "{layers:?}"
        );
    }
}

#[test]
fn empty_list_disables_all_even_over_a_wider_layer() {
    let layers = SelectionLayers {
        config: Some(ServerList::All),
        role: Some(names(&["fs"])),
        agent: None,
        session: Some(names(&[])),
    };
    let resolved = resolve_selection(&layers, &mapping());
    assert_eq!(resolved.selection, only(&[]));
    let available = vec!["fs".to_owned(), "github".to_owned()];
    assert_eq!(
        resolved.selection.select_names(&available),
        Vec::<String>::new()
    );
}

#[test]
fn aliases_expand_nested_deduplicated_and_cycles_are_cut() {
    assert_eq!(
        expand_server_list(&names(&["code", "github", "docs"]), &mapping()),
        only(&["github", "gitlab", "fs", "docs"])
    );
    assert_eq!(
        expand_server_list(&names(&["loop"]), &mapping()),
        only(&["loop", "fs"])
    );
    assert_eq!(
        expand_server_list(&names(&["fs", "all"]), &mapping()),
        Selection::All
    );
}

#[test]
fn select_keeps_items_whole_and_in_input_order() {
    #[derive(Debug, Clone, PartialEq)]
    struct Features {
        name: String,
        tools: bool,
        resources: bool,
        prompts: bool,
    }
    let f = |name: &str, tools, resources, prompts| Features {
        name: name.to_owned(),
        tools,
        resources,
        prompts,
    };
    // A resources-only and a prompts-only server are selected by name like any other:
    // nothing here looks at which functions they would emit.
    let all = vec![
        f("tools_srv", true, false, false),
        f("docs", false, true, false),
        f("templates", false, false, true),
    ];
    let selection = expand_server_list(&names(&["templates", "docs"]), &mapping());
    assert_eq!(
        selection.select(&all, |x| &x.name),
        vec![
            f("docs", false, true, false),
            f("templates", false, false, true)
        ]
    );
    assert_eq!(Selection::All.select(&all, |x| &x.name), all);
}

#[test]
fn unknown_names_are_reported() {
    let available = vec!["fs".to_owned(), "github".to_owned()];
    assert_eq!(
        expand_server_list(&names(&["git", "fs", "nope"]), &mapping()).unknown_names(&available),
        vec!["gitlab".to_owned(), "nope".to_owned()]
    );
    assert!(Selection::All.unknown_names(&available).is_empty());
}

#[test]
fn toggles() {
    let available: Vec<String> = ["fs", "github", "gitlab"].map(str::to_owned).to_vec();
    let m = mapping();
    assert_eq!(
        Selection::All.toggled(&Toggle::Disable("git".into()), &available, &m),
        only(&["fs"])
    );
    assert_eq!(
        only(&["fs"]).toggled(&Toggle::Enable("github".into()), &available, &m),
        only(&["fs", "github"])
    );
    assert_eq!(
        Selection::All.toggled(&Toggle::Enable("fs".into()), &available, &m),
        Selection::All
    );
    assert_eq!(
        only(&["fs"]).toggled(&Toggle::Enable("all".into()), &available, &m),
        Selection::All
    );
}

#[test]
fn server_list_values_round_trip() {
    let cases = [
        ("all", ServerList::All),
        ("fs, github", names(&["fs", "github"])),
        ("[fs]", names(&["fs"])),
        ("[]", names(&[])),
        ("''", names(&[])),
    ];
    for (yaml, expected) in cases {
        let value: ServerListValue = serde_yaml_ng::from_str(yaml).unwrap();
        assert_eq!(ServerList::from(value), expected, "{yaml}");
        let back = ServerList::from(ServerListValue::from(&expected));
        assert_eq!(back, expected);
    }
}
