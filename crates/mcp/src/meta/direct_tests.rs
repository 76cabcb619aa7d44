//! Direct names: the charset and length rule, stable hashes on collision, and the round trip
//! through the one parser ([`FunctionTarget::parse`]).

use std::collections::BTreeSet;

use super::*;
use crate::meta::{FunctionTarget, MetaFunction, MetaKind, mcp_meta_function_names};

fn tools(pairs: &[(&str, &str)]) -> Vec<DirectTool> {
    pairs.iter().map(|(s, t)| DirectTool::new(*s, *t)).collect()
}

fn is_provider_safe(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_FUNCTION_NAME_BYTES
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Every tool gets a provider-safe name that parses back to exactly that tool.
fn assert_round_trip(set: &[DirectTool], names: &DirectNames) {
    assert_eq!(names.len(), set.iter().collect::<BTreeSet<_>>().len());
    for tool in set {
        let name = names
            .name_of(tool)
            .unwrap_or_else(|| panic!("{tool:?} unnamed"));
        assert!(is_provider_safe(name), "{name}");
        assert_eq!(
            FunctionTarget::parse(name, names),
            Some(FunctionTarget::Direct(tool.clone())),
            "{name}"
        );
    }
}

fn hash8(server: &str, tool: &str) -> String {
    let mut h = Sha256::new();
    h.update(format!("{server}\0{tool}").as_bytes());
    hex::encode(h.finalize())[..8].to_owned()
}

#[test]
fn plain_names_are_server_double_underscore_tool() {
    let set = tools(&[("fs", "read_file"), ("fs", "write-file"), ("git", "log")]);
    let names = DirectNames::build(&set, &BTreeSet::new());
    let all: Vec<(&str, &DirectTool)> = names.iter().collect();
    assert_eq!(
        all,
        vec![
            ("fs__read_file", &set[0]),
            ("fs__write-file", &set[1]),
            ("git__log", &set[2]),
        ]
    );
    assert_round_trip(&set, &names);
}

#[test]
fn other_characters_are_sanitised() {
    let set = tools(&[
        ("fs", "get.weather"),
        ("fs", "café au lait"),
        ("fs", "a/b:c"),
    ]);
    let names = DirectNames::build(&set, &BTreeSet::new());
    assert_eq!(names.name_of(&set[0]), Some("fs__get_weather"));
    assert_eq!(names.name_of(&set[1]), Some("fs__caf__au_lait"));
    assert_eq!(names.name_of(&set[2]), Some("fs__a_b_c"));
    assert_round_trip(&set, &names);
}

#[test]
fn sanitised_collisions_get_stable_hash_suffixes_on_both_sides() {
    let set = tools(&[("s", "a.b"), ("s", "a_b"), ("s", "other")]);
    let names = DirectNames::build(&set, &BTreeSet::new());
    assert_eq!(
        names.name_of(&set[0]).map(str::to_owned),
        Some(format!("s__a_b_{}", hash8("s", "a.b")))
    );
    assert_eq!(
        names.name_of(&set[1]).map(str::to_owned),
        Some(format!("s__a_b_{}", hash8("s", "a_b")))
    );
    // The tool without a clash keeps its plain name.
    assert_eq!(names.name_of(&set[2]), Some("s__other"));
    assert_round_trip(&set, &names);
    // Stable: the list order does not change any name.
    let reversed: Vec<DirectTool> = set.iter().rev().cloned().collect();
    assert_eq!(DirectNames::build(&reversed, &BTreeSet::new()), names);
}

#[test]
fn server_names_with_double_underscores_do_not_misroute() {
    // Both would be `x__y__z`.
    let set = tools(&[("x", "y__z"), ("x__y", "z"), ("__", "__")]);
    let names = DirectNames::build(&set, &BTreeSet::new());
    let a = names.name_of(&set[0]).unwrap();
    let b = names.name_of(&set[1]).unwrap();
    assert_ne!(a, b);
    assert!(
        a.starts_with("x__y__z_") && b.starts_with("x__y__z_"),
        "{a} {b}"
    );
    assert_eq!(names.name_of(&set[2]), Some("______"));
    assert_round_trip(&set, &names);
}

#[test]
fn long_names_are_cut_to_64_bytes_with_a_hash() {
    let server = "s".repeat(40);
    let long_a = format!("{}_alpha", "t".repeat(60));
    let long_b = format!("{}_beta", "t".repeat(60));
    let set = vec![
        DirectTool::new(&server, &long_a),
        DirectTool::new(&server, &long_b),
        DirectTool::new(&server, "short"),
    ];
    let names = DirectNames::build(&set, &BTreeSet::new());
    let a = names.name_of(&set[0]).unwrap();
    let b = names.name_of(&set[1]).unwrap();
    assert_eq!(a.len(), MAX_FUNCTION_NAME_BYTES);
    assert_eq!(b.len(), MAX_FUNCTION_NAME_BYTES);
    // Same 55-byte prefix, told apart by the hash.
    assert_eq!(a[..55], b[..55]);
    assert_ne!(a, b);
    assert_eq!(
        a.to_owned(),
        format!(
            "{}_{}",
            &format!("{server}__{long_a}")[..55],
            hash8(&server, &long_a)
        )
    );
    assert_eq!(
        names.name_of(&set[2]).map(str::to_owned),
        Some(format!("{server}__short"))
    );
    assert_round_trip(&set, &names);
}

#[test]
fn a_name_that_would_shadow_a_meta_function_is_hashed() {
    // Server `mcp_read` tool `x` is `mcp_read__x` — also mcp_read_ of a server named `_x`.
    let set = tools(&[("mcp_read", "x")]);
    let reserved: BTreeSet<String> = ["_x", "mcp_read"]
        .iter()
        .flat_map(|s| mcp_meta_function_names(s))
        .collect();
    let names = DirectNames::build(&set, &reserved);
    let name = names.name_of(&set[0]).unwrap();
    assert_eq!(name, format!("mcp_read__x_{}", hash8("mcp_read", "x")));
    assert_round_trip(&set, &names);
    // The meta-function of `_x` still parses as itself.
    assert_eq!(
        FunctionTarget::parse("mcp_read__x", &names),
        Some(FunctionTarget::Meta(MetaFunction::new(
            MetaKind::Read,
            "_x"
        )))
    );
}

#[test]
fn a_tool_literally_named_like_a_hashed_name_forces_the_long_hash() {
    let clash = format!("a_b_{}", hash8("s", "a.b"));
    let set = tools(&[("s", "a.b"), ("s", "a_b"), ("s", &clash)]);
    let names = DirectNames::build(&set, &BTreeSet::new());
    assert_eq!(
        names.name_of(&set[2]).map(str::to_owned),
        Some(format!("s__{clash}"))
    );
    assert_eq!(names.name_of(&set[0]).unwrap().len(), "s__a_b_".len() + 16);
    assert_round_trip(&set, &names);
}

#[test]
fn the_table_decides_before_meta_prefixes_and_unknown_names_are_none() {
    // Not reserved (no server `a__b` declared): the plain direct name stands.
    let set = tools(&[("mcp_invoke_a", "b")]);
    let names = DirectNames::build(&set, &BTreeSet::new());
    assert_eq!(
        FunctionTarget::parse("mcp_invoke_a__b", &names),
        Some(FunctionTarget::Direct(set[0].clone()))
    );
    assert_eq!(
        FunctionTarget::parse("mcp_invoke_a__b", &DirectNames::default()),
        Some(FunctionTarget::Meta(MetaFunction::new(
            MetaKind::Invoke,
            "a__b"
        )))
    );
    assert_eq!(FunctionTarget::parse("fs__read", &names), None);
    assert_eq!(FunctionTarget::parse("get_weather", &names), None);
}

#[test]
fn duplicate_entries_are_named_once() {
    let set = tools(&[("s", "t"), ("s", "t")]);
    let names = DirectNames::build(&set, &BTreeSet::new());
    assert_eq!(names.len(), 1);
    assert_eq!(names.name_of(&set[0]), Some("s__t"));
}
