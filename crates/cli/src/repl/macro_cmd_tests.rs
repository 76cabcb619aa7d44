use super::*;

#[test]
fn args_split_at_whitespace_with_quotes() {
    assert_eq!(split_args("").unwrap(), Vec::<String>::new());
    assert_eq!(
        split_args(r#"a "b c" 'd e' f\g "x\"y" "" "#).unwrap(),
        vec!["a", "b c", "d e", r"f\g", "x\"y", ""]
    );
    assert_eq!(
        split_args("\"open").unwrap_err(),
        "unclosed \" quote; close it"
    );
}

#[test]
fn builtins_are_the_command_words() {
    let names = builtin_names();
    assert!(names.contains(&"prompt"));
    assert!(names.contains(&"help"));
    assert!(names.contains(&"macro"));
    assert!(!names.iter().any(|n| n.starts_with('.')));
}
