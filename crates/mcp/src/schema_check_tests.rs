use serde_json::json;

use super::check;

#[test]
fn a_matching_value_has_no_problems() {
    let schema = json!({
        "type": "object",
        "properties": {
            "temperature": {"type": "number", "minimum": -100},
            "conditions": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "kind": {"enum": ["a", "b"]}
        },
        "required": ["temperature", "conditions"],
        "additionalProperties": false
    });
    let value = json!({"temperature": 21.5, "conditions": "sunny", "tags": ["x"], "kind": "a"});
    assert_eq!(check(&schema, &value), Vec::<String>::new());
}

#[test]
fn mismatches_name_the_path_and_what_was_expected() {
    let schema = json!({
        "type": "object",
        "properties": {
            "temperature": {"type": "number"},
            "items": {"type": "array", "items": {"type": "integer"}}
        },
        "required": ["temperature", "humidity"],
        "additionalProperties": false
    });
    let value = json!({"temperature": "hot", "items": [1, 2.5], "extra": true});
    let problems = check(&schema, &value);
    assert!(
        problems.contains(&"/: required property \"humidity\" is missing".to_owned()),
        "{problems:?}"
    );
    assert!(
        problems.contains(&"/temperature: expected number, got string".to_owned()),
        "{problems:?}"
    );
    assert!(
        problems.contains(&"/items/1: expected integer, got number".to_owned()),
        "{problems:?}"
    );
    assert!(
        problems.contains(&"/: property \"extra\" is not allowed".to_owned()),
        "{problems:?}"
    );
}

#[test]
fn refs_combinators_and_unknown_keywords() {
    let schema = json!({
        "$defs": {"id": {"type": "string", "minLength": 2}},
        "type": "object",
        "properties": {
            "id": {"$ref": "#/$defs/id"},
            "value": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "odd": {"type": "string", "format": "made-up", "x-custom": 1}
        }
    });
    assert!(check(&schema, &json!({"id": "ab", "value": null, "odd": "?"})).is_empty());
    let problems = check(&schema, &json!({"id": "a", "value": "no"}));
    assert_eq!(
        problems,
        vec![
            "/id: 1 characters, at least 2 expected".to_owned(),
            "/value: matches none of the anyOf alternatives".to_owned()
        ]
    );
}

#[test]
fn many_mismatches_are_counted_not_listed() {
    let schema = json!({"type": "array", "items": {"type": "string"}});
    let value = json!([1, 2, 3, 4, 5, 6, 7]);
    let problems = check(&schema, &value);
    assert_eq!(problems.len(), 6);
    assert_eq!(problems.last().map(String::as_str), Some("… and 2 more"));
}

#[test]
fn a_ref_loop_ends() {
    let schema = json!({"$ref": "#"});
    assert!(check(&schema, &json!(1)).is_empty());
}
