use super::*;

fn idents(src: &str) -> Vec<String> {
    tokenize(src)
        .into_iter()
        .filter_map(|t| match t.tok {
            Tok::Ident(s) => Some(s),
            _ => None,
        })
        .collect()
}

#[test]
fn comments_and_literals_hide_their_text() {
    let src = r####"
        // crate::a in a line comment
        /// crate::b in a doc comment
        /* crate::c /* nested crate::d */ still comment crate::e */
        let s = "crate::f \" crate::g";
        let r = r#"crate::h " crate::i"#;
        let b = b"crate::j";
        let br = br##"crate::k"# "##;
        let c = c"crate::l";
        visible
    "####;
    let words = idents(src);
    assert_eq!(
        words,
        [
            "let", "s", "let", "r", "let", "b", "let", "br", "let", "c", "visible"
        ]
    );
    let strings: Vec<String> = tokenize(src)
        .into_iter()
        .filter_map(|t| match t.tok {
            Tok::Str(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(
        strings,
        [
            r#"crate::f \" crate::g"#,
            r#"crate::h " crate::i"#,
            "crate::j",
            r##"crate::k"# "##,
            "crate::l"
        ]
    );
}

#[test]
fn char_literals_are_not_lifetimes_and_hide_brackets() {
    let src = "fn f<'a>(x: &'a str) -> char { let _ = b'{'; let _ = '\\''; let _ = '\\u{7b}'; '}' } after";
    let braces = tokenize(src)
        .iter()
        .filter(|t| matches!(t.tok, Tok::Punct('{' | '}')))
        .count();
    assert_eq!(braces, 2, "only the function body's braces are punctuation");
    assert_eq!(idents(src).last().map(String::as_str), Some("after"));
}

#[test]
fn path_separators_raw_identifiers_and_lines() {
    let tokens = tokenize("use crate::r#type;\n\n  super::x");
    let toks: Vec<&Tok> = tokens.iter().map(|t| &t.tok).collect();
    assert_eq!(
        toks,
        [
            &Tok::Ident("use".into()),
            &Tok::Ident("crate".into()),
            &Tok::PathSep,
            &Tok::Ident("type".into()),
            &Tok::Punct(';'),
            &Tok::Ident("super".into()),
            &Tok::PathSep,
            &Tok::Ident("x".into()),
        ]
    );
    assert_eq!(tokens[0].line, 1);
    assert_eq!(tokens[5].line, 3);
}

#[test]
fn unterminated_input_ends_cleanly() {
    assert_eq!(idents("a /* never closed crate::b"), ["a"]);
    assert_eq!(idents("a \"never closed crate::b"), ["a"]);
    assert_eq!(idents("a r#\"never closed"), ["a"]);
}
