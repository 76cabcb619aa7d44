use std::fs;

use super::*;

const BUILTINS: &[&str] = &["help", "prompt", "role", "session"];

#[test]
fn loads_and_expands_positionally_with_defaults() {
    let text = "description: Review a file\nvariables:\n  - name: path\n  - name: focus\n    default: bugs\nsteps:\n  - .role reviewer\n  - 'review {{path}} for {{ focus }}'\n";
    let m = parse_macro("review", Path::new("review.yaml"), text, BUILTINS).unwrap();
    assert_eq!(
        m,
        Macro {
            name: "review".into(),
            file: "review.yaml".into(),
            description: Some("Review a file".into()),
            variables: vec![
                MacroVariable {
                    name: "path".into(),
                    default: None
                },
                MacroVariable {
                    name: "focus".into(),
                    default: Some("bugs".into())
                },
            ],
            steps: vec![
                ".role reviewer".into(),
                "review {{path}} for {{ focus }}".into()
            ],
            shadowed_by_builtin: false,
            warnings: vec![],
        }
    );
    assert_eq!(
        m.expand(&["src/a.rs".into()]).unwrap(),
        vec![
            ".role reviewer".to_owned(),
            "review src/a.rs for bugs".to_owned()
        ]
    );
    assert_eq!(
        m.expand(&["a".into(), "style".into()]).unwrap()[1],
        "review a for style"
    );
    assert_eq!(
        m.expand(&[]).unwrap_err(),
        MacroArgsError::Missing {
            name: "review".into(),
            variable: "path".into(),
            usage: ".review <path> [focus=bugs]".into()
        }
    );
    assert_eq!(
        m.expand(&["a".into(), "b".into(), "c".into()])
            .unwrap_err()
            .to_string(),
        "macro `review` takes 2 argument(s), got 3; usage: .review <path> [focus=bugs] (quote an argument containing spaces)"
    );
}

#[test]
fn a_macro_named_like_a_builtin_is_flagged_and_warned() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("prompt.yaml"), "steps: [hello]").unwrap();
    fs::write(tmp.path().join("greet.yaml"), "steps: [hello]").unwrap();
    let listing = list_macros(tmp.path(), BUILTINS);
    assert!(listing.errors.is_empty());
    let flags: Vec<(&str, bool)> = listing
        .items
        .iter()
        .map(|m| (m.name.as_str(), m.shadowed_by_builtin))
        .collect();
    assert_eq!(flags, vec![("greet", false), ("prompt", true)]);
    let warning = &listing.items[1].warnings[0];
    assert_eq!(
        warning.kind,
        DefinitionWarningKind::MacroShadowedByBuiltin {
            name: "prompt".into()
        }
    );
    assert!(
        warning.to_string().contains("run it with `.macro prompt`"),
        "{warning}"
    );
}

#[test]
fn malformed_macros_name_the_key() {
    let file = Path::new("m.yaml");
    let cases = [
        (
            "description: x",
            "m.yaml (key `steps`): a macro needs at least one step; add `steps: [\".role coder\", \"write a test\"]`",
        ),
        (
            "steps: ['{{who}}']",
            "m.yaml (key `steps[0]`): `{{who}}` is not a declared variable; declare it under `variables:` (`- name: who`) or fix the spelling",
        ),
        (
            "variables: 3\nsteps: [a]",
            "m.yaml (key `variables`): expected a list; write `variables:` then lines like `- name: path` / `  default: .`",
        ),
        (
            "variables: [{default: 1}]\nsteps: [a]",
            "m.yaml (key `variables[0].name`): missing; add `name: something`",
        ),
        (
            "variables: [{name: a, default: 1}, b]\nsteps: [a]",
            "m.yaml (key `variables[1].default`): a required variable follows one with a default, so it could never be reached positionally; give it a default or move it before the optional ones",
        ),
        (
            "steps: [[1]]",
            "m.yaml (key `steps[0]`): expected a text item; write `steps: [a, b]`",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(
            parse_macro("m", file, text, BUILTINS)
                .unwrap_err()
                .to_string(),
            message
        );
    }
}

#[test]
fn placeholder_expansion_leaves_unknown_and_unclosed_text() {
    let values = BTreeMap::from([("a".to_owned(), "1".to_owned())]);
    assert_eq!(
        expand_placeholders("{{a}}-{{b}}-{{a", &values),
        "1-{{b}}-{{a"
    );
    assert_eq!(
        placeholders("x {{a}} {{ b_2 }} {{not a var}}"),
        vec!["a", "b_2"]
    );
}
