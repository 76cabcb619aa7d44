use super::*;

fn opts(look: Look) -> RenderOptions {
    RenderOptions {
        look,
        theme: Theme::Dark,
        truecolor: true,
        hyperlinks: false,
        width: Some(60),
        sanitize: true,
    }
}

fn render(look: Look, deltas: &[&str]) -> String {
    let mut r = StreamRenderer::new(opts(look));
    let mut out: String = deltas.iter().map(|d| r.push(d)).collect();
    out.push_str(&r.finish_line());
    out
}

const ANSWER: &str = "# Title\n\nSome **bold** and *it* and `code` and [docs](https://example.com/d).\n\n\
- one\n- two\n\n> quoted\n\n| name | n |\n|------|--:|\n| a | 1 |\n| bb | 22 |\n\n\
```rust\nfn main() {}\n```\nafter\n";

#[test]
fn raw_passes_the_text_through_unbuffered() {
    let mut r = StreamRenderer::new(RenderOptions::raw(false));
    assert_eq!(r.push("# Ti"), "# Ti");
    assert_eq!(r.push("tle\n**b**"), "tle\n**b**");
    assert_eq!(r.finish_line(), "\n");
    assert_eq!(r.finish_line(), "");
    // On a terminal, raw text is still sanitized.
    let mut r = StreamRenderer::new(RenderOptions::raw(true));
    assert_eq!(r.push("a\x1b[2Jb"), "a\\x1b[2Jb");
}

#[test]
fn plain_renders_the_layout_without_markdown_syntax_or_escapes() {
    let out = render(Look::Plain, &[ANSWER]);
    assert!(!out.contains('\x1b'), "{out:?}");
    let expected_start = "Title\n\nSome bold and it and code and docs (https://example.com/d).\n\n\
• one\n• two\n\n│ quoted\n\n";
    assert!(out.starts_with(expected_start), "{out}");
    for syntax in ["**", "```", "# ", "|--", "[docs]"] {
        assert!(!out.contains(syntax), "{syntax:?} left in:\n{out}");
    }
    assert!(out.contains("rust\nfn main() {}\nafter\n"), "{out}");
    // The table is aligned: the right-aligned column ends in the same place on every row.
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("│ a") || l.contains("│ bb"))
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert_eq!(
        rows[0].find("1 │"),
        rows[1].find("22 │").map(|i| i + 1),
        "{out}"
    );
}

#[test]
fn styled_output_uses_attributes_and_highlights_code() {
    let out = render(Look::Styled, &[ANSWER]);
    assert!(out.contains("\x1b[1;4mTitle\x1b[0m"), "{out:?}");
    assert!(out.contains("\x1b[1mbold\x1b[0m"), "{out:?}");
    assert!(out.contains("\x1b[3mit\x1b[0m"), "{out:?}");
    assert!(out.contains("\x1b[36mcode\x1b[0m"), "{out:?}");
    assert!(out.contains("\x1b[38;2;"), "24-bit code colours: {out:?}");
    assert!(
        !out.contains("\x1b]8;"),
        "no OSC 8 without hyperlink support: {out:?}"
    );
    let mut with_links = opts(Look::Styled);
    with_links.hyperlinks = true;
    with_links.truecolor = false;
    let out = StreamRenderer::render_all(with_links, ANSWER);
    assert!(
        out.contains("\x1b]8;;https://example.com/d\x1b\\\x1b[4mdocs\x1b[0m\x1b]8;;\x1b\\"),
        "{out:?}"
    );
    assert!(!out.contains("(https://example.com/d)"), "{out:?}");
    assert!(
        out.contains("\x1b[38;5;"),
        "256-colour code without COLORTERM: {out:?}"
    );
}

#[test]
fn blocks_are_rendered_as_soon_as_they_complete() {
    let mut r = StreamRenderer::new(opts(Look::Plain));
    assert_eq!(r.push("First para"), "");
    assert_eq!(r.push("graph.\n\n"), "First paragraph.\n\n");
    // A table waits for its end.
    assert_eq!(r.push("| a | b |\n|---|---|\n| 1 | 2 |\n"), "");
    let table = r.push("\nnext\n");
    assert!(
        table.contains("│ 1 ") && table.ends_with("\nnext\n"),
        "{table}"
    );
    // Code is shown line by line.
    assert_eq!(r.push("```\nlet x = 1;\n"), "let x = 1;\n");
    assert_eq!(r.push("```\n"), "");
}

#[test]
fn prose_wraps_at_the_width_keeping_the_bullet_indent() {
    let mut o = opts(Look::Plain);
    o.width = Some(20);
    let out = StreamRenderer::render_all(o, "- alpha beta gamma delta epsilon\n");
    assert_eq!(out, "• alpha beta gamma\n  delta epsilon\n");
    let mut o = opts(Look::Plain);
    o.width = Some(12);
    let out = StreamRenderer::render_all(o, "  1. one two three four\n");
    assert_eq!(out, "  1. one two\n     three four\n");
}

#[test]
fn model_text_is_sanitized_before_it_is_styled() {
    let out = render(
        Look::Styled,
        &["see \x1b]8;;http://evil\x07here\x1b]8;;\x07 and \u{202e}x\n"],
    );
    assert!(out.contains("\\x1b]8;;http://evil\\x07here"), "{out:?}");
    assert!(out.contains("<U+202E>x"), "{out:?}");
    assert!(!out.contains("\x1b]8;;http://evil"), "{out:?}");
}

#[test]
fn ansi256_maps_to_the_cube_and_the_grey_ramp() {
    assert_eq!(code::ansi256(0, 0, 0), 16);
    assert_eq!(code::ansi256(255, 255, 255), 231);
    assert_eq!(code::ansi256(255, 0, 0), 196);
    assert_eq!(code::ansi256(128, 128, 128), 244);
}

#[test]
fn theme_detection_from_colorfgbg_and_osc11() {
    assert_eq!(theme::from_colorfgbg(Some("15;0")), Some(Theme::Dark));
    assert_eq!(theme::from_colorfgbg(Some("0;15")), Some(Theme::Light));
    assert_eq!(
        theme::from_colorfgbg(Some("0;default;7")),
        Some(Theme::Light)
    );
    assert_eq!(theme::from_colorfgbg(Some("junk")), None);
    assert_eq!(theme::from_colorfgbg(None), None);
    assert_eq!(
        theme::from_osc11("\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62c"),
        Some(Theme::Light)
    );
    assert_eq!(
        theme::from_osc11("\x1b]11;rgb:1c1c/1c1c/1c1c\x07"),
        Some(Theme::Dark)
    );
    assert_eq!(theme::from_osc11("\x1b[?62c"), None);
}

#[test]
fn a_discarded_answer_drops_what_is_pending_and_says_what_was_shown() {
    let mut md = StreamRenderer::new(RenderOptions::raw(false));
    assert_eq!(md.discard(), Discarded::NothingShown);
    assert_eq!(md.push("half an ans"), "half an ans");
    assert_eq!(md.discard(), Discarded::ShownMidLine);
    assert_eq!(md.push("line\n"), "line\n");
    assert_eq!(md.discard(), Discarded::Shown);
    // A rendered look holds the unfinished line: dropped, never shown.
    let mut md = StreamRenderer::new(opts(Look::Plain));
    assert_eq!(md.push("`mcp_invoke_x` with no newline"), "");
    assert_eq!(md.discard(), Discarded::NothingShown);
    assert_eq!(md.finish_line(), "");
}
