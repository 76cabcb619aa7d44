use std::path::Path;

use super::*;
use crate::env::MapEnv;

fn expand_with(env: &MapEnv, input: &str) -> Result<String, VarProblem> {
    ExpandContext {
        env,
        workspace: Path::new("/proj"),
        mode: ExpandMode::Resolve,
    }
    .expand(input)
}

fn env() -> MapEnv {
    MapEnv::new()
        .with("TOKEN", "s3cret")
        .with("EMPTY", "")
        .with("HOME", "/home/u")
}

#[test]
fn plain_text_and_lone_dollars_are_untouched() {
    assert_eq!(expand_with(&env(), "a$b$$c$").unwrap(), "a$b$$c$");
}

#[test]
fn variables_expand_in_place() {
    assert_eq!(
        expand_with(&env(), "Bearer ${TOKEN}!").unwrap(),
        "Bearer s3cret!"
    );
    assert_eq!(
        expand_with(&env(), "${TOKEN}${TOKEN}").unwrap(),
        "s3crets3cret"
    );
}

#[test]
fn cursor_spellings() {
    assert_eq!(expand_with(&env(), "${env:TOKEN}").unwrap(), "s3cret");
    assert_eq!(expand_with(&env(), "${userHome}/x").unwrap(), "/home/u/x");
    assert_eq!(
        expand_with(&env(), "${workspaceFolder}/x").unwrap(),
        "/proj/x"
    );
}

#[test]
fn defaults_apply_when_unset_or_empty() {
    assert_eq!(expand_with(&env(), "${NOPE:-dflt}").unwrap(), "dflt");
    assert_eq!(expand_with(&env(), "${EMPTY:-dflt}").unwrap(), "dflt");
    assert_eq!(expand_with(&env(), "${TOKEN:-dflt}").unwrap(), "s3cret");
    assert_eq!(expand_with(&env(), "${NOPE:-}").unwrap(), "");
}

#[test]
fn empty_variable_without_default_is_empty() {
    assert_eq!(expand_with(&env(), "<${EMPTY}>").unwrap(), "<>");
}

#[test]
fn escape_gives_literal() {
    assert_eq!(expand_with(&env(), "$${TOKEN}").unwrap(), "${TOKEN}");
}

#[test]
fn unset_variable_is_named() {
    assert_eq!(
        expand_with(&env(), "x ${GITHUB_TOKEN} y"),
        Err(VarProblem::Unset {
            var: "GITHUB_TOKEN".into()
        })
    );
    assert_eq!(
        expand_with(&env(), "${env:GH}"),
        Err(VarProblem::Unset { var: "GH".into() })
    );
    assert_eq!(
        expand_with(&MapEnv::new(), "${userHome}"),
        Err(VarProblem::Unset { var: "HOME".into() })
    );
}

#[test]
fn syntax_errors() {
    assert_eq!(
        expand_with(&env(), "${TOKEN"),
        Err(VarProblem::Unterminated)
    );
    assert_eq!(
        expand_with(&env(), "${1X}"),
        Err(VarProblem::BadName { name: "1X".into() })
    );
    assert_eq!(
        expand_with(&env(), "${}"),
        Err(VarProblem::BadName { name: "".into() })
    );
    assert_eq!(
        expand_with(&env(), "${input:pat}"),
        Err(VarProblem::BadName {
            name: "input:pat".into()
        })
    );
}

#[test]
fn syntax_only_mode_keeps_the_text_and_ignores_unset() {
    let env = MapEnv::new();
    let cx = ExpandContext {
        env: &env,
        workspace: Path::new("/p"),
        mode: ExpandMode::SyntaxOnly,
    };
    assert_eq!(
        cx.expand("${UNSET_X} and $${lit}").unwrap(),
        "${UNSET_X} and $${lit}"
    );
    assert_eq!(
        cx.expand("${bad name}"),
        Err(VarProblem::BadName {
            name: "bad name".into()
        })
    );
}
