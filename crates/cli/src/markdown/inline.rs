//! One line of prose through pulldown-cmark: a heading, a list item, a block quote, a rule or
//! paragraph text, with its inline styles (emphasis, strong, strike-through, `code`, links),
//! word-wrapped to the width with the item's prefix and indentation kept on every line.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use unicode_width::UnicodeWidthStr;

use super::{Look, RenderOptions, Theme};

/// Longest horizontal rule drawn.
const RULE_WIDTH: usize = 40;

/// Inline style of a piece of text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpanStyle {
    bold: bool,
    italic: bool,
    underline: bool,
    strike: bool,
    dim: bool,
    code: bool,
    /// The target of the link this text belongs to (OSC 8).
    link: Option<String>,
}

/// A piece of text with its style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    text: String,
    style: SpanStyle,
}

/// What the line is, beyond its spans.
#[derive(Debug, Default)]
struct Shape {
    heading: Option<HeadingLevel>,
    /// `• ` or `3. ` (and `[x] ` for tasks).
    bullet: String,
    quote_depth: usize,
    rule: bool,
}

/// Renders one line of prose; the result ends with a newline.
pub fn render_line(line: &str, opts: &RenderOptions) -> String {
    let indent = indentation(line);
    let (shape, spans) = parse(line.trim_start(), opts);
    let styled = opts.look == Look::Styled;
    if shape.rule {
        let width = opts.width.map_or(RULE_WIDTH, |w| w.min(RULE_WIDTH));
        return format!("{}\n", paint(&"─".repeat(width), &dim(), opts));
    }
    let mut prefix = " ".repeat(indent);
    let mut prefix_width = indent;
    for _ in 0..shape.quote_depth {
        prefix.push_str(&paint("│ ", &dim(), opts));
        prefix_width += 2;
    }
    let continuation = format!("{prefix}{}", " ".repeat(shape.bullet.width()));
    prefix.push_str(&shape.bullet);
    prefix_width += shape.bullet.width();
    let spans: Vec<Span> = match shape.heading {
        Some(level) if styled => spans
            .into_iter()
            .map(|mut s| {
                s.style.bold = true;
                s.style.underline |= level == HeadingLevel::H1;
                s
            })
            .collect(),
        _ => spans,
    };
    let width = opts.width.map(|w| w.saturating_sub(prefix_width).max(10));
    let mut out = String::new();
    for (i, line) in wrap(&spans, width).iter().enumerate() {
        out.push_str(if i == 0 { &prefix } else { &continuation });
        for span in line {
            out.push_str(&paint(&span.text, &span.style, opts));
        }
        out.push('\n');
    }
    if out.is_empty() {
        out.push_str(prefix.trim_end());
        out.push('\n');
    }
    out
}

/// Leading white space as columns (a tab counts 4).
fn indentation(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

fn dim() -> SpanStyle {
    SpanStyle {
        dim: true,
        ..SpanStyle::default()
    }
}

/// The shape and the styled spans of one line.
fn parse(text: &str, opts: &RenderOptions) -> (Shape, Vec<Span>) {
    let mut shape = Shape::default();
    let mut spans = Vec::new();
    let mut style = SpanStyle::default();
    let mut links: Vec<(String, usize)> = Vec::new();
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(tag) => start(tag, &mut shape, &mut style, &mut spans, &mut links),
            Event::End(tag) => end(tag, &mut style, &mut spans, &mut links, opts),
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => push(&mut spans, &t, &style),
            Event::InlineMath(t) | Event::DisplayMath(t) => push(&mut spans, &t, &style),
            Event::Code(t) => {
                let code = SpanStyle {
                    code: true,
                    ..style.clone()
                };
                push(&mut spans, &t, &code);
            }
            Event::SoftBreak => push(&mut spans, " ", &style),
            Event::HardBreak => push(&mut spans, "\n", &style),
            Event::Rule => shape.rule = true,
            Event::TaskListMarker(done) => {
                shape.bullet.push_str(if done { "[x] " } else { "[ ] " });
            }
            Event::FootnoteReference(name) => push(&mut spans, &format!("[^{name}]"), &style),
        }
    }
    (shape, spans)
}

fn start(
    tag: Tag<'_>,
    shape: &mut Shape,
    style: &mut SpanStyle,
    spans: &mut Vec<Span>,
    links: &mut Vec<(String, usize)>,
) {
    match tag {
        Tag::Heading { level, .. } => shape.heading = Some(level),
        Tag::BlockQuote(_) => shape.quote_depth += 1,
        Tag::List(first) => {
            shape.bullet = match first {
                Some(n) => format!("{n}. "),
                None => "• ".to_owned(),
            }
        }
        Tag::Emphasis => style.italic = true,
        Tag::Strong => style.bold = true,
        Tag::Strikethrough => style.strike = true,
        Tag::Link { dest_url, .. } => {
            links.push((dest_url.to_string(), spans.len()));
            style.underline = true;
            style.link = Some(dest_url.to_string());
        }
        Tag::Image { dest_url, .. } => {
            links.push((dest_url.to_string(), spans.len()));
            push(spans, "[image: ", style);
        }
        _ => {}
    }
}

fn end(
    tag: TagEnd,
    style: &mut SpanStyle,
    spans: &mut Vec<Span>,
    links: &mut Vec<(String, usize)>,
    opts: &RenderOptions,
) {
    match tag {
        TagEnd::Emphasis => style.italic = false,
        TagEnd::Strong => style.bold = false,
        TagEnd::Strikethrough => style.strike = false,
        TagEnd::Link => {
            style.underline = false;
            style.link = None;
            let Some((url, first)) = links.pop() else {
                return;
            };
            let text: String = spans[first..].iter().map(|s| s.text.as_str()).collect();
            if !opts.hyperlinks && text != url && !url.is_empty() {
                push(spans, &format!(" ({url})"), &dim());
            }
        }
        TagEnd::Image => {
            let url = links.pop().map(|(u, _)| u).unwrap_or_default();
            push(spans, &format!("] ({url})"), style);
        }
        _ => {}
    }
}

fn push(spans: &mut Vec<Span>, text: &str, style: &SpanStyle) {
    if text.is_empty() {
        return;
    }
    spans.push(Span {
        text: text.to_owned(),
        style: style.clone(),
    });
}

/// The text of spans without styles (table cells).
pub fn plain_text(text: &str, opts: &RenderOptions) -> String {
    let (_, spans) = parse(text, opts);
    spans.into_iter().map(|s| s.text).collect()
}

/// A word (pieces of text with their styles, no space between them), a space or a forced break.
enum Token {
    Word(Vec<Span>),
    Space,
    Break,
}

fn tokens(spans: &[Span]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word: Vec<Span> = Vec::new();
    for span in spans {
        if span.text == "\n" {
            if !word.is_empty() {
                out.push(Token::Word(std::mem::take(&mut word)));
            }
            out.push(Token::Break);
            continue;
        }
        for (i, piece) in span.text.split(' ').enumerate() {
            if i > 0 {
                if !word.is_empty() {
                    out.push(Token::Word(std::mem::take(&mut word)));
                }
                out.push(Token::Space);
            }
            if !piece.is_empty() {
                word.push(Span {
                    text: piece.to_owned(),
                    style: span.style.clone(),
                });
            }
        }
    }
    if !word.is_empty() {
        out.push(Token::Word(word));
    }
    out
}

/// Breaks spans into lines of at most `width` columns at spaces (a word longer than the width
/// gets a line of its own); `\n` spans force a break; runs of spaces become one.
fn wrap(spans: &[Span], width: Option<usize>) -> Vec<Vec<Span>> {
    let mut lines: Vec<Vec<Span>> = vec![Vec::new()];
    let mut used = 0usize;
    let mut space = false;
    for token in tokens(spans) {
        match token {
            Token::Space => space = used > 0,
            Token::Break => {
                lines.push(Vec::new());
                used = 0;
                space = false;
            }
            Token::Word(word) => {
                let w: usize = word.iter().map(|s| s.text.width()).sum();
                let gap = usize::from(space);
                if width.is_some_and(|limit| used > 0 && used + gap + w > limit) {
                    lines.push(Vec::new());
                    used = 0;
                } else if space && let Some(line) = lines.last_mut() {
                    line.push(Span {
                        text: " ".to_owned(),
                        style: SpanStyle::default(),
                    });
                    used += 1;
                }
                space = false;
                used += w;
                if let Some(line) = lines.last_mut() {
                    line.extend(word);
                }
            }
        }
    }
    lines
}

/// `text` in `style`: SGR attributes and an OSC 8 link when styled, else as it is.
fn paint(text: &str, style: &SpanStyle, opts: &RenderOptions) -> String {
    if opts.look != Look::Styled {
        return text.to_owned();
    }
    let mut codes: Vec<&str> = Vec::new();
    if style.bold {
        codes.push("1");
    }
    if style.dim {
        codes.push("2");
    }
    if style.italic {
        codes.push("3");
    }
    if style.underline {
        codes.push("4");
    }
    if style.strike {
        codes.push("9");
    }
    if style.code {
        codes.push(match opts.theme {
            Theme::Dark => "36",
            Theme::Light => "34",
        });
    }
    let body = if codes.is_empty() {
        text.to_owned()
    } else {
        format!("\x1b[{}m{text}\x1b[0m", codes.join(";"))
    };
    match &style.link {
        Some(url) if opts.hyperlinks => format!("\x1b]8;;{url}\x1b\\{body}\x1b]8;;\x1b\\"),
        _ => body,
    }
}
