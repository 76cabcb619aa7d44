use super::*;

const AWKWARD_SERVERS: &[&str] = &[
    "x",
    "github",
    "a_b",
    "a-b",
    "_",
    "-",
    "__x__",
    "mcp",
    "mcp_",
    "mcp_read",
    "mcp_read_b",
    "a_mcp_read_b",
    "mcp_invoke_mcp_search_x",
    "mcp_prompt",
    "search",
    "describe_me",
    "read",
    "0123456789012345678901234567890123456789",
];

#[test]
fn every_prefix_round_trips_for_awkward_server_names() {
    for server in AWKWARD_SERVERS {
        for kind in MetaKind::ALL {
            let name = kind.function_name(server);
            assert_eq!(
                MetaFunction::parse(&name),
                Some(MetaFunction::new(kind, *server)),
                "name {name}"
            );
            assert_eq!(MetaFunction::new(kind, *server).name(), name);
            assert!(is_mcp_meta_function(&name));
        }
    }
}

#[test]
fn names_of_a_server_parse_back_in_order() {
    for server in AWKWARD_SERVERS {
        let parsed: Vec<(MetaKind, String)> = mcp_meta_function_names(server)
            .iter()
            .map(|n| {
                let f = MetaFunction::parse(n).unwrap();
                (f.kind, f.server)
            })
            .collect();
        let expected: Vec<(MetaKind, String)> = MetaKind::ALL
            .iter()
            .map(|k| (*k, server.to_string()))
            .collect();
        assert_eq!(parsed, expected);
    }
}

#[test]
fn leading_prefix_decides_the_kind() {
    assert_eq!(
        MetaFunction::parse("mcp_search_a_mcp_read_b"),
        Some(MetaFunction::new(MetaKind::Search, "a_mcp_read_b"))
    );
    assert_eq!(
        MetaFunction::parse("mcp_read_mcp_invoke_x"),
        Some(MetaFunction::new(MetaKind::Read, "mcp_invoke_x"))
    );
}

#[test]
fn non_meta_names_are_rejected() {
    for name in [
        "mcp_bogus_x",
        "mcp_",
        "mcp_read",
        "mcp_read_",
        "mcp_readx",
        "mcp_reads_x",
        "mcp_invokex_y",
        "xmcp_read_y",
        "MCP_READ_x",
        "",
        "mcp",
        "fs_read",
        "github__create_issue",
    ] {
        assert_eq!(MetaFunction::parse(name), None, "{name}");
        assert!(!is_mcp_meta_function(name), "{name}");
    }
}

#[test]
fn prefixes_are_distinct_and_none_prefixes_another() {
    for a in MetaKind::ALL {
        for b in MetaKind::ALL {
            if a != b {
                assert!(
                    !b.prefix().starts_with(&format!("{}_", a.prefix())),
                    "{a} {b}"
                );
                assert!(!b.prefix().starts_with(a.prefix()), "{a} {b}");
            }
        }
    }
}

fn features(
    tools: bool,
    resources: bool,
    prompts: bool,
    peer_info_missing: bool,
) -> McpServerFeatures {
    McpServerFeatures {
        name: "srv".into(),
        tools,
        resources,
        prompts,
        completions: false,
        skills: false,
        peer_info_missing,
        tasks: false,
    }
}

fn declared_names(f: &McpServerFeatures) -> Vec<String> {
    declarations(f).into_iter().map(|d| d.name).collect()
}

#[test]
fn gating_matrix() {
    use MetaKind::*;
    let cases: Vec<(McpServerFeatures, Vec<MetaKind>)> = vec![
        (
            features(true, false, false, false),
            vec![Search, Describe, Invoke],
        ),
        (
            features(false, true, false, false),
            vec![Search, Describe, Read],
        ),
        (
            features(false, false, true, false),
            vec![Search, Describe, Prompt],
        ),
        (
            features(true, true, true, false),
            vec![Search, Describe, Invoke, Read, Prompt],
        ),
        (
            features(true, true, false, false),
            vec![Search, Describe, Invoke, Read],
        ),
        (features(false, false, false, false), vec![Search, Describe]),
        // Handshake result missing: invoke fails open, read/prompt stay closed.
        (
            features(false, false, false, true),
            vec![Search, Describe, Invoke],
        ),
        (
            features(false, true, false, true),
            vec![Search, Describe, Invoke, Read],
        ),
    ];
    for (f, kinds) in cases {
        assert_eq!(enabled_kinds(&f), kinds, "{f:?}");
        let expected: Vec<String> = kinds.iter().map(|k| k.function_name("srv")).collect();
        assert_eq!(declared_names(&f), expected, "{f:?}");
    }
}

#[test]
fn declarations_for_all_concatenates_per_server() {
    let mut a = features(true, false, false, false);
    a.name = "a".into();
    let mut b = features(false, true, false, false);
    b.name = "b".into();
    let names: Vec<String> = declarations_for_all(&[a, b])
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(
        names,
        [
            "mcp_search_a",
            "mcp_describe_a",
            "mcp_invoke_a",
            "mcp_search_b",
            "mcp_describe_b",
            "mcp_read_b"
        ]
    );
}

#[test]
fn every_declaration_parses_back_and_has_an_object_schema() {
    let f = features(true, true, true, false);
    for d in declarations(&f) {
        let parsed = MetaFunction::parse(&d.name).expect("declared name parses");
        assert_eq!(parsed.server, "srv");
        assert_eq!(d.parameters["type"], "object", "{}", d.name);
        let required = d.parameters["required"].as_array().expect("required list");
        for r in required {
            let key = r.as_str().unwrap();
            assert!(
                d.parameters["properties"].get(key).is_some(),
                "{} requires {key}",
                d.name
            );
        }
        assert!(d.description.contains("'srv'"), "{}", d.description);
    }
}

#[test]
fn declaration_parameters_are_the_documented_ones() {
    let f = features(true, true, true, false);
    let params: Vec<(String, Vec<String>, Vec<String>)> = declarations(&f)
        .into_iter()
        .map(|d| {
            let props = d.parameters["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            let req = d.parameters["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            (d.name, props, req)
        })
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        params,
        vec![
            (
                "mcp_search_srv".into(),
                s(&["query", "kind", "offset", "top_k"]),
                s(&["query"])
            ),
            (
                "mcp_describe_srv".into(),
                s(&["tool", "kind", "complete"]),
                s(&["tool"])
            ),
            (
                "mcp_invoke_srv".into(),
                s(&["tool", "arguments"]),
                s(&["tool"])
            ),
            (
                "mcp_read_srv".into(),
                s(&["uri", "arguments", "pattern", "offset", "max_bytes"]),
                s(&["uri"])
            ),
            (
                "mcp_prompt_srv".into(),
                s(&["prompt", "arguments"]),
                s(&["prompt"])
            ),
        ]
    );
}

#[test]
fn descriptions_only_mention_declared_siblings() {
    for f in [
        features(false, true, false, false),
        features(true, false, false, false),
        features(true, true, true, false),
    ] {
        let declared = declarations(&f);
        let names: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
        let all: String = declared.iter().map(|d| d.description.as_str()).collect();
        // Search points to describe, which every set declares beside it.
        assert!(all.contains("Then call mcp_describe_srv"), "{all}");
        for word in all.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if word.starts_with("mcp_") {
                assert!(names.contains(&word), "{f:?}: names {word}: {all}");
            }
        }
    }
    let tools_only: String = declarations(&features(true, false, false, false))
        .into_iter()
        .map(|d| d.description)
        .collect();
    assert!(!tools_only.contains("mcp_read_srv"), "{tools_only}");
    assert!(!tools_only.contains("mcp_prompt_srv"), "{tools_only}");
}

#[test]
fn kind_offers_only_the_kinds_the_server_has() {
    let kind_of = |f: &McpServerFeatures, function: &str| {
        let d = declarations(f)
            .into_iter()
            .find(|d| d.name == function)
            .unwrap();
        d.parameters["properties"].get("kind").cloned()
    };
    // Tools only: nothing to choose, in search or describe (describe's default is tool).
    let tools = features(true, false, false, false);
    assert_eq!(kind_of(&tools, "mcp_search_srv"), None);
    assert_eq!(kind_of(&tools, "mcp_describe_srv"), None);
    // Prompts only: search has nothing to choose; describe must be told it is a prompt.
    let prompts = features(false, false, true, false);
    assert_eq!(kind_of(&prompts, "mcp_search_srv"), None);
    assert_eq!(
        kind_of(&prompts, "mcp_describe_srv").unwrap()["enum"],
        serde_json::json!(["prompt"])
    );
    let tools_and_prompts = features(true, false, true, false);
    for function in ["mcp_search_srv", "mcp_describe_srv"] {
        assert_eq!(
            kind_of(&tools_and_prompts, function).unwrap()["enum"],
            serde_json::json!(["tool", "prompt"]),
            "{function}"
        );
    }
    // The search description names only the kinds there are, and `kind` only when declared.
    let search = |f: &McpServerFeatures| {
        declarations(f)
            .into_iter()
            .find(|d| d.name == "mcp_search_srv")
            .unwrap()
            .description
    };
    assert!(search(&tools).contains("by keywords (tools); an empty query lists everything."));
    assert!(!search(&tools).contains("prompt"), "{}", search(&tools));
    assert!(
        search(&tools_and_prompts)
            .contains("by keywords (tools, prompts); an empty query with `kind` lists one kind.")
    );
    // Argument values exist only for prompts and templates.
    let describe = |f: &McpServerFeatures| {
        declarations(f)
            .into_iter()
            .find(|d| d.name == "mcp_describe_srv")
            .unwrap()
    };
    assert!(
        describe(&tools).parameters["properties"]
            .get("complete")
            .is_none()
    );
    assert!(
        describe(&prompts).parameters["properties"]
            .get("complete")
            .is_some()
    );
}

#[test]
fn a_server_with_every_function_declares_at_most_600_tokens_by_the_estimate() {
    // The real-tokenizer figure (o200k_base, ≤ 600) is scripts/bench's; the bytes/4
    // estimate runs 10–15% above it, so this bound keeps the wording from creeping back.
    let declared = declarations(&features(true, true, true, false));
    let estimate = crate::meta::estimate_tokens(&declared);
    assert!(estimate <= 680, "{estimate} estimated tokens");
}

#[test]
fn limits_in_read_schema_come_from_the_render_constants() {
    let f = features(false, true, false, false);
    let read = declarations(&f)
        .into_iter()
        .find(|d| d.name == "mcp_read_srv")
        .unwrap();
    assert_eq!(
        read.parameters["properties"]["max_bytes"]["maximum"],
        crate::render::MAX_BYTES_CLAMP
    );
    assert!(
        read.description.contains(&format!(
            "max_bytes default {}",
            crate::render::DEFAULT_MAX_BYTES
        )),
        "{}",
        read.description
    );
}
