//! The one Markdown renderer for the terminal (one-shot answers, the REPL, `coyote help`),
//! streamed: text arrives in deltas and every block is rendered as soon as it is complete —
//! prose line by line (headings, emphasis, lists, block quotes, links, rules), a table when its
//! last row has arrived, a fenced code block line by line with syntax highlighting. Parsing is
//! pulldown-cmark's; this module only decides where a block ends.
//!
//! The model's text passes the terminal sanitizer ([`crate::term::sanitize`]) before it is
//! parsed, so every escape sequence in the output is the renderer's own — colours, and OSC 8
//! links, which nothing else emits. Three looks ([`Look`]): styled (a terminal that allows
//! colour), plain (a terminal under `NO_COLOR`/`TERM=dumb`: the same layout, no escape
//! sequences) and raw (the model's Markdown as it is: pipes, files and `--raw`).

mod code;
mod inline;
mod table;
pub mod theme;

use self::code::CodeBlock;
pub use self::theme::{Theme, ThemeChoice};
use crate::term::sanitize::{Sanitizer, sanitize};

/// How answers look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// Rendered with colour and attributes.
    Styled,
    /// Rendered layout without any escape sequence.
    Plain,
    /// The Markdown as the model wrote it.
    Raw,
}

/// Everything the renderer needs to know about the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// Styled, plain or raw.
    pub look: Look,
    /// Colours for a dark or a light background.
    pub theme: Theme,
    /// 24-bit colour for code; else the 256-colour palette.
    pub truecolor: bool,
    /// Links as OSC 8 hyperlinks; else `text (url)`.
    pub hyperlinks: bool,
    /// Wrap prose and fit tables to this many columns.
    pub width: Option<usize>,
    /// Sanitize the text first (it goes to a terminal).
    pub sanitize: bool,
}

impl RenderOptions {
    /// The model's text as it is (sanitized when `sanitize`).
    pub fn raw(sanitize: bool) -> Self {
        RenderOptions {
            look: Look::Raw,
            theme: Theme::Dark,
            truecolor: false,
            hyperlinks: false,
            width: None,
            sanitize,
        }
    }

    /// Options for answers on this process's stdout: raw when it is no terminal (unless
    /// `CLICOLOR_FORCE`) or `raw` is asked for, plain when colour is off, else styled with the
    /// chosen theme (`auto` is resolved here, which may query the terminal).
    pub fn for_stdout(raw: bool, theme: ThemeChoice) -> Self {
        let caps = crate::term::caps();
        let sanitize = caps.ttys.stdout;
        let look = if raw {
            Look::Raw
        } else if caps.color_stdout {
            Look::Styled
        } else if caps.ttys.stdout {
            Look::Plain
        } else {
            Look::Raw
        };
        if look == Look::Raw {
            return RenderOptions::raw(sanitize);
        }
        RenderOptions {
            look,
            theme: if look == Look::Styled {
                theme::resolve(theme)
            } else {
                Theme::Dark
            },
            truecolor: caps.truecolor,
            hyperlinks: caps.hyperlinks && look == Look::Styled,
            width: caps.stdout_width(),
            sanitize,
        }
    }
}

/// The block being collected.
enum Block {
    /// Between blocks, or in prose (rendered line by line).
    Prose,
    /// Inside a fenced code block.
    Code(Box<CodeBlock>),
    /// Table rows so far (rendered when a line that is no row arrives).
    Table(Vec<String>),
}

/// Renders a stream of text deltas.
pub struct StreamRenderer {
    opts: RenderOptions,
    /// Raw look: sanitizes across delta boundaries.
    sanitizer: Sanitizer,
    /// The current line, not complete yet.
    pending: String,
    block: Block,
    /// Whether the output so far ends a line.
    at_line_start: bool,
    /// Whether anything was returned to be shown.
    wrote: bool,
}

/// What [`StreamRenderer::discard`] dropped had partly been shown already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discarded {
    /// Nothing of it was shown.
    NothingShown,
    /// Whole lines of it were shown.
    Shown,
    /// It was shown up to the middle of a line (the caller ends the line).
    ShownMidLine,
}

impl StreamRenderer {
    /// A renderer with these options.
    pub fn new(opts: RenderOptions) -> Self {
        StreamRenderer {
            opts,
            sanitizer: Sanitizer::default(),
            pending: String::new(),
            block: Block::Prose,
            at_line_start: true,
            wrote: false,
        }
    }

    /// Renders a whole document at once.
    pub fn render_all(opts: RenderOptions, text: &str) -> String {
        let mut r = StreamRenderer::new(opts);
        let mut out = r.push(text);
        out.push_str(&r.finish_line());
        out
    }

    /// Feeds a delta; returns what can be written now.
    pub fn push(&mut self, delta: &str) -> String {
        let out = if self.opts.look == Look::Raw {
            if self.opts.sanitize {
                self.sanitizer.push(delta)
            } else {
                delta.to_owned()
            }
        } else {
            self.pending.push_str(delta);
            let mut out = String::new();
            while let Some(end) = self.pending.find('\n') {
                let line: String = self.pending.drain(..=end).collect();
                out.push_str(&self.line(line.trim_end_matches(['\n', '\r'])));
            }
            out
        };
        if let Some(last) = out.chars().last() {
            self.at_line_start = last == '\n';
            self.wrote = true;
        }
        out
    }

    /// Drops what is pending and not shown yet (a line without its newline, an open table or
    /// code block): the answer it belonged to was discarded. Says what of it was already shown
    /// (the caller ends that line and says it is void), and starts a fresh answer.
    pub fn discard(&mut self) -> Discarded {
        let was = match (self.wrote, self.at_line_start) {
            (false, _) => Discarded::NothingShown,
            (true, true) => Discarded::Shown,
            (true, false) => Discarded::ShownMidLine,
        };
        *self = StreamRenderer::new(self.opts.clone());
        was
    }

    /// Renders whatever is pending (a last line without newline, an open table) and ends the
    /// line; call when the answer ends or something else is about to be shown.
    pub fn finish_line(&mut self) -> String {
        let mut out = String::new();
        if self.opts.look == Look::Raw {
            if self.opts.sanitize {
                out.push_str(&self.sanitizer.finish());
            }
        } else {
            if !self.pending.is_empty() {
                let line = std::mem::take(&mut self.pending);
                out.push_str(&self.line(line.trim_end_matches('\r')));
            }
            if let Block::Table(rows) = std::mem::replace(&mut self.block, Block::Prose) {
                out.push_str(&table::render(&rows, &self.opts));
            } else if let Block::Code(code) = std::mem::replace(&mut self.block, Block::Prose) {
                // An unterminated block stays open for text that continues after a tool call.
                self.block = Block::Code(code);
            }
        }
        if let Some(last) = out.chars().last() {
            self.at_line_start = last == '\n';
        }
        if !self.at_line_start {
            out.push('\n');
            self.at_line_start = true;
        }
        out
    }

    /// One complete line (without its newline).
    fn line(&mut self, line: &str) -> String {
        let line = if self.opts.sanitize {
            sanitize(line).into_owned()
        } else {
            line.to_owned()
        };
        match &mut self.block {
            Block::Code(code) if code.closes(&line) => {
                self.block = Block::Prose;
                String::new()
            }
            Block::Code(code) => code.line(&line),
            Block::Table(rows) if table::is_row(&line) => {
                rows.push(line);
                String::new()
            }
            Block::Table(_) => {
                let mut out = String::new();
                if let Block::Table(rows) = std::mem::replace(&mut self.block, Block::Prose) {
                    out.push_str(&table::render(&rows, &self.opts));
                }
                out.push_str(&self.prose_line(&line));
                out
            }
            Block::Prose => self.prose_line(&line),
        }
    }

    /// A line outside code and tables: it may open one.
    fn prose_line(&mut self, line: &str) -> String {
        if let Some(code) = CodeBlock::open(line, &self.opts) {
            let header = code.header();
            self.block = Block::Code(Box::new(code));
            return header;
        }
        if table::is_row(line) {
            self.block = Block::Table(vec![line.to_owned()]);
            return String::new();
        }
        if line.trim().is_empty() {
            return "\n".to_owned();
        }
        inline::render_line(line, &self.opts)
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
