//! Fenced code blocks: the fence line opens a block (its language shown as a dim label, the
//! fences themselves never), each line inside is highlighted by syntect as it arrives — its
//! default syntaxes and themes, loaded on the first code block only — in 24-bit colour when
//! the terminal announces it, else mapped to the 256-colour palette.

use std::sync::OnceLock;

use syntect::easy::HighlightLines;
use syntect::highlighting::ThemeSet;
use syntect::parsing::{SyntaxReference, SyntaxSet};

use super::{Look, RenderOptions, Theme};

const RESET: &str = "\x1b[0m";
const DIM: &str = "\x1b[2m";

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn themes() -> &'static ThemeSet {
    static THEMES: OnceLock<ThemeSet> = OnceLock::new();
    THEMES.get_or_init(ThemeSet::load_defaults)
}

/// The syntect theme for a background.
fn syntect_theme(theme: Theme) -> Option<&'static syntect::highlighting::Theme> {
    let name = match theme {
        Theme::Dark => "base16-ocean.dark",
        Theme::Light => "InspiredGitHub",
    };
    let set = themes();
    set.themes.get(name).or_else(|| set.themes.values().next())
}

/// An open fenced code block.
pub struct CodeBlock {
    fence: String,
    lang: String,
    highlighter: Option<HighlightLines<'static>>,
    look: Look,
    truecolor: bool,
    theme: Theme,
}

impl CodeBlock {
    /// The block `line` opens, if it is a fence (```` ``` ```` or `~~~`, 3 or more, indented by
    /// at most 3 spaces).
    pub fn open(line: &str, opts: &RenderOptions) -> Option<CodeBlock> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            return None;
        }
        let trimmed = &line[indent..];
        let fence = fence_of(trimmed)?;
        let lang = trimmed[fence.len()..].trim().to_owned();
        if fence.starts_with('`') && lang.contains('`') {
            return None;
        }
        let highlighter = match opts.look {
            Look::Styled => syntax_for(&lang).and_then(|syntax| {
                syntect_theme(opts.theme).map(|theme| HighlightLines::new(syntax, theme))
            }),
            Look::Plain | Look::Raw => None,
        };
        Some(CodeBlock {
            fence,
            lang,
            highlighter,
            look: opts.look,
            truecolor: opts.truecolor,
            theme: opts.theme,
        })
    }

    /// What the opening fence becomes: the language as a dim label, or nothing.
    pub fn header(&self) -> String {
        let name = self.lang.split_whitespace().next().unwrap_or_default();
        match (name.is_empty(), self.look) {
            (true, _) => String::new(),
            (false, Look::Styled) => format!("{DIM}{name}{RESET}\n"),
            (false, _) => format!("{name}\n"),
        }
    }

    /// Whether `line` is this block's closing fence.
    pub fn closes(&self, line: &str) -> bool {
        let trimmed = line.trim();
        trimmed.starts_with(self.fence.as_str())
            && trimmed.chars().all(|c| self.fence.starts_with(c))
    }

    /// One line of code, highlighted; ends with a newline.
    pub fn line(&mut self, line: &str) -> String {
        if self.look != Look::Styled {
            return format!("{line}\n");
        }
        let plain_colour = match self.theme {
            Theme::Dark => "36",
            Theme::Light => "34",
        };
        let Some(highlighter) = self.highlighter.as_mut() else {
            return format!("\x1b[{plain_colour}m{line}{RESET}\n");
        };
        let with_newline = format!("{line}\n");
        match highlighter.highlight_line(&with_newline, syntaxes()) {
            Ok(ranges) => {
                let mut out = String::new();
                for (style, text) in ranges {
                    let text = text.trim_end_matches('\n');
                    if text.is_empty() {
                        continue;
                    }
                    let fg = style.foreground;
                    let colour = if self.truecolor {
                        format!("38;2;{};{};{}", fg.r, fg.g, fg.b)
                    } else {
                        format!("38;5;{}", ansi256(fg.r, fg.g, fg.b))
                    };
                    out.push_str(&format!("\x1b[{colour}m{text}"));
                }
                out.push_str(RESET);
                out.push('\n');
                out
            }
            Err(_) => format!("{line}\n"),
        }
    }
}

/// "```" / "~~~" (3 or more) at the start of `line`.
fn fence_of(line: &str) -> Option<String> {
    for mark in ['`', '~'] {
        let count = line.chars().take_while(|c| *c == mark).count();
        if count >= 3 {
            return Some(std::iter::repeat_n(mark, count).collect());
        }
    }
    None
}

fn syntax_for(lang: &str) -> Option<&'static SyntaxReference> {
    let token = lang.split_whitespace().next()?;
    let set = syntaxes();
    set.find_syntax_by_token(token)
        .or_else(|| set.find_syntax_by_extension(token))
}

/// The nearest colour of the xterm 256-colour palette: the 6×6×6 cube or the grey ramp.
pub fn ansi256(r: u8, g: u8, b: u8) -> u8 {
    let level = |v: u8| -> u8 {
        match v {
            0..=47 => 0,
            48..=114 => 1,
            _ => ((u16::from(v) - 35) / 40).min(5) as u8,
        }
    };
    let cube_value = |l: u8| if l == 0 { 0 } else { 55 + 40 * l };
    let (lr, lg, lb) = (level(r), level(g), level(b));
    let cube = 16 + 36 * lr + 6 * lg + lb;
    let distance = |(r2, g2, b2): (u8, u8, u8)| {
        let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
        d(r, r2) + d(g, g2) + d(b, b2)
    };
    let cube_rgb = (cube_value(lr), cube_value(lg), cube_value(lb));
    let average = (u16::from(r) + u16::from(g) + u16::from(b)) / 3;
    let grey_index = if average > 238 {
        23
    } else {
        (average.saturating_sub(3) / 10).min(23) as u8
    };
    let grey_value = 8 + 10 * grey_index;
    if distance((grey_value, grey_value, grey_value)) < distance(cube_rgb) {
        232 + grey_index
    } else {
        cube
    }
}
