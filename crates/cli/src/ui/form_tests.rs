use serde_json::json;

use super::*;

#[test]
fn the_sample_schema_becomes_fields_with_defaults() {
    let schema = coyote_test_support::sample_elicitation_schema();
    let fields = parse_schema(&schema).unwrap();
    let summary: Vec<(&str, bool, Option<Value>)> = fields
        .iter()
        .map(|f| (f.name.as_str(), f.required, f.default.clone()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("name", true, Some(json!("Ada"))),
            ("count", false, Some(json!(3))),
            ("confirm", false, Some(json!(false))),
            ("color", false, Some(json!("green"))),
        ]
    );
    assert!(matches!(fields[0].kind, FieldKind::Text { .. }));
    assert!(matches!(
        fields[1].kind,
        FieldKind::Number { integer: false, .. }
    ));
    assert_eq!(fields[2].kind, FieldKind::Boolean);
    assert_eq!(fields[3].default_choice(), Some(1));
    assert_eq!(fields[1].label(), "Count (optional)");
    assert_eq!(fields[0].label(), "Name");
}

#[test]
fn titled_enums_multi_choice_and_limits() {
    let schema = json!({"type": "object", "properties": {
        "size": {"type": "string", "oneOf": [
            {"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "old": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
        "n": {"type": "integer", "minimum": 1, "maximum": 9}
    }, "required": ["n"]});
    let fields = parse_schema(&schema).unwrap();
    assert_eq!(
        fields[0].kind,
        FieldKind::Choice(vec![
            Choice {
                value: "s".into(),
                label: "Small".into()
            },
            Choice {
                value: "l".into(),
                label: "Large".into()
            },
        ])
    );
    assert_eq!(
        fields[1].kind,
        FieldKind::Choice(vec![
            Choice {
                value: "a".into(),
                label: "Alpha".into()
            },
            Choice {
                value: "b".into(),
                label: "Beta".into()
            },
        ])
    );
    assert!(matches!(&fields[2].kind, FieldKind::MultiChoice(c) if c.len() == 2));
    assert_eq!(
        fields[3].kind,
        FieldKind::Number {
            integer: true,
            minimum: Some(1.0),
            maximum: Some(9.0)
        }
    );
    assert_eq!(parse_number("3", true, Some(1.0), Some(9.0)), Ok(3.0));
    assert_eq!(
        parse_number("3.5", true, None, None),
        Err("a whole number is needed".to_owned())
    );
    assert_eq!(
        parse_number("0", true, Some(1.0), None),
        Err("at least 1".to_owned())
    );
    assert_eq!(
        parse_number("x", false, None, None),
        Err("\"x\" is not a number".to_owned())
    );
}

#[test]
fn unsupported_schemas_are_refused_whole() {
    assert_eq!(
        parse_schema(&json!({"type": "object"})),
        Err(FormError::NotAnObject)
    );
    let nested = json!({"type": "object", "properties": {"o": {"type": "object"}}});
    assert_eq!(
        parse_schema(&nested),
        Err(FormError::Unsupported {
            field: "o".into(),
            detail: "type \"object\"".into()
        })
    );
}

#[test]
fn answers_become_the_content_object() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string"}, "note": {"type": "string"},
        "count": {"type": "integer"}, "ratio": {"type": "number"},
        "ok": {"type": "boolean"}, "color": {"type": "string", "enum": ["red"]},
        "tags": {"type": "array", "items": {"enum": ["x", "y"]}}
    }});
    let fields = parse_schema(&schema).unwrap();
    let answers = vec![
        Answer::Text("Grace".into()),
        Answer::Skipped,
        Answer::Number(4.0),
        Answer::Number(0.5),
        Answer::Boolean(true),
        Answer::Choice("red".into()),
        Answer::MultiChoice(vec!["y".into()]),
    ];
    assert_eq!(
        Value::Object(content(&fields, answers)),
        json!({"name": "Grace", "count": 4, "ratio": 0.5, "ok": true, "color": "red",
               "tags": ["y"]})
    );
}
