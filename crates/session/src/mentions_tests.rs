use super::*;

fn servers(name: &str) -> bool {
    matches!(name, "everything" | "fs")
}

#[test]
fn a_mention_runs_from_the_at_sign_to_the_next_whitespace() {
    let text = "@everything:demo://resource/static/document/features.md summarize";
    let found = find_mentions(text, &servers);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].server, "everything");
    assert_eq!(found[0].uri, "demo://resource/static/document/features.md");
    assert_eq!(
        found[0].typed(text),
        "@everything:demo://resource/static/document/features.md"
    );
    assert!(found[0].arguments.is_empty());
}

#[test]
fn only_configured_servers_at_a_word_start_make_mentions() {
    // An e-mail address, an unknown server, a missing URI, an `@` inside a word.
    for text in [
        "mail bob@everything:x now",
        "ask @someone:about it",
        "@everything: alone",
        "@everything",
        "a@fs:/etc/hosts",
    ] {
        assert_eq!(find_mentions(text, &servers), Vec::new(), "{text}");
    }
    let found = find_mentions("compare @fs:/a\n@fs:/b\tand\u{a0}@fs:/c", &servers);
    let uris: Vec<&str> = found.iter().map(|m| m.uri.as_str()).collect();
    assert_eq!(uris, ["/a", "/b", "/c"]);
}

#[test]
fn template_placeholders_are_filled_inline() {
    let found = find_mentions("@everything:demo://x/{id=7}/{part=a=b}/{open} go", &servers);
    assert_eq!(found[0].uri, "demo://x/{id}/{part}/{open}");
    let arguments: Vec<(&str, &str)> = found[0]
        .arguments
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(arguments, [("id", "7"), ("part", "a=b")]);
}

#[test]
fn the_block_is_labelled_with_the_uri_and_names_the_next_page() {
    let mention = &find_mentions("@fs:/a", &servers)[0];
    let page = json!({
        "uri": "/a", "text": "first", "truncated": true, "total_bytes": 10, "next_offset": 5
    });
    let block = labelled(mention, &page, "mcp_read_fs").unwrap();
    assert_eq!(
        block,
        "<resource server=\"fs\" uri=\"/a\">\nfirst\n[cut at byte 5 of 10; the rest: mcp_read_fs \
         with {\"uri\": \"/a\", \"offset\": 5}]\n</resource>"
    );
    let spilled = json!({"uri": "/a", "path": "/cache/x.png", "mime_type": "image/png"});
    let block = labelled(mention, &spilled, "mcp_read_fs").unwrap();
    assert!(block.contains("\"path\":\"/cache/x.png\""), "{block}");
    let quoted = json!({"uri": "/a\">x", "text": "t", "truncated": false, "total_bytes": 1});
    let block = labelled(mention, &quoted, "mcp_read_fs").unwrap();
    assert!(
        block.starts_with("<resource server=\"fs\" uri=\"/a%22>x\">\n"),
        "{block}"
    );
    let broken = json!([{"uri": "/a", "error": "bad entry"}]);
    assert_eq!(
        labelled(mention, &broken, "mcp_read_fs"),
        Err("bad entry".to_owned())
    );
}
