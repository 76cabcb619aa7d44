use super::*;

fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn level1_expands_and_percent_encodes() {
    let t = UriTemplate::parse("repo://{owner}/{name}/file?path={path}").unwrap();
    assert_eq!(t.variables(), ["owner", "name", "path"]);
    assert_eq!(
        t.expand(&vars(&[
            ("owner", "me"),
            ("name", "a b/c"),
            ("path", "x&y=é~_.-")
        ]))
        .unwrap(),
        "repo://me/a%20b%2Fc/file?path=x%26y%3D%C3%A9~_.-"
    );
    // RFC 6570 §1.2 Level 1 examples.
    let v = vars(&[("var", "value"), ("hello", "Hello World!")]);
    assert_eq!(expand("{var}", &v).unwrap(), "value");
    assert_eq!(expand("{hello}", &v).unwrap(), "Hello%20World%21");
}

#[test]
fn literals_repeats_and_extra_values() {
    assert_eq!(
        expand("test://static", &BTreeMap::new()).unwrap(),
        "test://static"
    );
    assert_eq!(
        expand("{a}-{a}", &vars(&[("a", "1"), ("unused", "x")])).unwrap(),
        "1-1"
    );
    assert_eq!(
        expand("x/{a.b}/{c%20d}", &vars(&[("a.b", "1"), ("c%20d", "2")])).unwrap(),
        "x/1/2"
    );
    assert!(!is_template("test://static"));
    assert!(is_template("test://{id}"));
}

#[test]
fn missing_variables_are_all_listed() {
    let err = expand("a/{x}/{y}/{z}", &vars(&[("y", "1"), ("q", "2")])).unwrap_err();
    assert_eq!(
        err,
        TemplateError::MissingVariables {
            template: "a/{x}/{y}/{z}".into(),
            missing: vec!["x".into(), "z".into()],
            provided: vec!["q".into(), "y".into()],
        }
    );
    assert_eq!(
        err.to_string(),
        "template \"a/{x}/{y}/{z}\" needs `x`, `z`; pass them in `arguments` (given: `q`, `y`)"
    );
}

#[test]
fn level2_and_higher_are_rejected_with_a_teaching_error() {
    for (template, feature) in [
        ("{+path}", "reserved expansion `+`"),
        ("x{#frag}", "fragment expansion `#`"),
        ("x{.ext}", "label expansion `.`"),
        ("x{/seg}", "path segment expansion `/`"),
        ("x{;p}", "path-style parameter expansion `;`"),
        ("x{?q}", "form-style query expansion `?`"),
        ("x?a=1{&b}", "form-style query continuation `&`"),
        ("{x,y}", "list of several variables"),
        ("{list*}", "explode modifier `*`"),
        ("{var:3}", "prefix modifier `:n`"),
        ("{=x}", "reserved operator"),
    ] {
        let err = UriTemplate::parse(template).unwrap_err();
        let TemplateError::Unsupported { feature: got, .. } = &err else {
            panic!("{template}: {err}")
        };
        assert_eq!(*got, feature, "{template}");
        let msg = err.to_string();
        assert!(
            msg.contains("Level 2 or higher") && msg.contains("only Level 1"),
            "{msg}"
        );
    }
}

#[test]
fn malformed_templates_are_errors() {
    assert_eq!(
        UriTemplate::parse("a{b").unwrap_err(),
        TemplateError::Unclosed {
            template: "a{b".into(),
            at: 1
        }
    );
    assert_eq!(
        UriTemplate::parse("a}b").unwrap_err(),
        TemplateError::StrayClose {
            template: "a}b".into(),
            at: 1
        }
    );
    assert_eq!(
        UriTemplate::parse("x{a{b}}").unwrap_err(),
        TemplateError::Unclosed {
            template: "x{a{b}}".into(),
            at: 1
        }
    );
    for bad in ["{}", "{a b}", "{a.}", "{a..b}", "{a%2}", "{é}"] {
        assert!(
            matches!(UriTemplate::parse(bad), Err(TemplateError::BadName { .. })),
            "{bad}"
        );
    }
}
