//! Plain-text tables for people and JSON for scripts. A row is always one line: cells are
//! made single-line, and when the table is wider than the output (the terminal's width when
//! stdout is one, else `$COLUMNS`, else unlimited) the flexible column — `description`, or the
//! one the table names — is cut with `…` first, then the widest others. `--wide` shows every
//! cell whole; `--json` output is complete and untruncated. Cells are sanitized for the terminal
//! before they are measured, and printed text goes through [`crate::term::for_stdout`].
// Widths, counts and sizes of the terminal layout: an unchecked `-` here once panicked on an
// 80-column terminal, so every operation is checked or saturating (clippy enforces it).
#![deny(clippy::arithmetic_side_effects)]

use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use crate::exit::{CliError, CliResult};
use crate::term::{self, Paint};

/// Narrowest a cut column gets (room for a few characters and the `…`).
const MIN_CUT_WIDTH: usize = 6;
/// Spaces between columns.
const GAP: usize = 2;

/// How wide a table may get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Cut cells so that no line is wider than this many columns.
    Columns(usize),
    /// Every cell whole.
    Unlimited,
}

impl Fit {
    /// The width of stdout (see the module docs); `wide` asks for everything.
    pub fn stdout(wide: bool) -> Fit {
        match term::caps().stdout_width() {
            Some(width) if !wide => Fit::Columns(width),
            _ => Fit::Unlimited,
        }
    }
}

/// A simple left-aligned table.
pub struct Table {
    headers: Vec<&'static str>,
    rows: Vec<Vec<String>>,
    flexible: Option<usize>,
    /// Columns left out, in this order, when the table cannot fit otherwise.
    optional: Vec<usize>,
}

/// Which columns a fitted table shows, and how wide each is.
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    /// Indices of the shown columns, in table order.
    shown: Vec<usize>,
    /// Width of each column (by table index); only the shown ones are used.
    widths: Vec<usize>,
}

impl Layout {
    /// Display width of a line: the shown columns plus the gaps between them.
    fn total(&self) -> usize {
        let cells: usize = self.shown.iter().map(|&i| self.widths[i]).sum();
        cells.saturating_add(GAP.saturating_mul(self.shown.len().saturating_sub(1)))
    }

    /// How far the table is over `limit` (0 when it fits).
    fn over(&self, limit: usize) -> usize {
        self.total().saturating_sub(limit)
    }

    /// Cuts the widest shown column wider than `floor` by what is over `limit`, never below
    /// `floor`; false when no column can give more.
    fn cut_widest(&mut self, limit: usize, floor: usize) -> bool {
        let widest = self
            .shown
            .iter()
            .copied()
            .filter(|&i| self.widths[i] > floor)
            .max_by_key(|&i| self.widths[i]);
        let Some(i) = widest else {
            return false;
        };
        let over = self.over(limit);
        self.widths[i] = self.widths[i].saturating_sub(over).max(floor);
        true
    }
}

impl Table {
    /// A table with these column headers (shown upper-case).
    pub fn new(headers: Vec<&'static str>) -> Self {
        let flexible = headers.iter().position(|h| *h == "description");
        Table {
            headers,
            rows: Vec::new(),
            flexible,
            optional: Vec::new(),
        }
    }

    /// Names the column that is cut first when the table is too wide.
    pub fn flexible(mut self, header: &str) -> Self {
        self.flexible = self.headers.iter().position(|h| *h == header);
        self
    }

    /// Names columns that may be left out, first named first, when the table cannot fit the
    /// output with only the flexible column cut. A note under the table names what was left
    /// out; `--wide` and `--json` always show everything.
    pub fn optional(mut self, headers: &[&str]) -> Self {
        self.optional = headers
            .iter()
            .filter_map(|name| self.headers.iter().position(|h| h == name))
            .collect();
        self
    }

    /// Adds a row; each cell becomes one line (runs of white space become one space).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(
            cells
                .into_iter()
                .map(|c| term::for_stdout(&one_line(&c)).into_owned())
                .collect(),
        );
    }

    /// The table fitted to stdout (see [`Fit::stdout`]), without styling.
    pub fn render(&self) -> String {
        self.render_fit(Fit::stdout(false))
    }

    /// The table fitted to `fit`, without styling.
    pub fn render_fit(&self, fit: Fit) -> String {
        self.render_with(fit, false)
    }

    /// The table fitted to `fit`; `bold` headers.
    fn render_with(&self, fit: Fit, bold: bool) -> String {
        let layout = self.layout(fit);
        let mut out = String::new();
        let headers: Vec<String> = self.headers.iter().map(|h| h.to_uppercase()).collect();
        push_line(&mut out, &headers, &layout, bold);
        for row in &self.rows {
            push_line(&mut out, row, &layout, false);
        }
        let hidden: Vec<&str> = (0..self.headers.len())
            .filter(|i| !layout.shown.contains(i))
            .map(|i| self.headers[i])
            .collect();
        if let (Fit::Columns(limit), false) = (fit, hidden.is_empty()) {
            let note = format!("(not shown at this width: {})", hidden.join(", "));
            out.push_str(&clip(&note, limit));
            out.push('\n');
        }
        out
    }

    /// Natural column widths: the widest cell or header of each column.
    fn natural_widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.width()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                if let Some(w) = widths.get_mut(i) {
                    *w = (*w).max(cell.width());
                }
            }
        }
        widths
    }

    /// Which columns to show and how wide, so that no line is wider than `fit`: optional
    /// columns are left out while the table does not fit with only its flexible column cut;
    /// then the flexible column is cut, then the widest others down to [`MIN_CUT_WIDTH`];
    /// on very narrow outputs, trailing columns are then left out until the rest fits, and a
    /// lone first column is cut to the width.
    fn layout(&self, fit: Fit) -> Layout {
        let natural = self.natural_widths();
        let mut layout = Layout {
            shown: (0..natural.len()).collect(),
            widths: natural.clone(),
        };
        let Fit::Columns(limit) = fit else {
            return layout;
        };
        let limit = limit.max(1);
        let flex_floor = |i: usize| MIN_CUT_WIDTH.min(natural[i]);
        if let Some(flex) = self.flexible {
            layout.widths[flex] = flex_floor(flex);
        }
        for &drop in &self.optional {
            if layout.over(limit) == 0 || layout.shown.len() <= 1 {
                break;
            }
            layout.shown.retain(|&i| i != drop);
        }
        if let Some(flex) = self.flexible {
            // Give the flexible column back what the others leave free.
            let free = limit.saturating_sub(layout.total());
            layout.widths[flex] = natural[flex].min(flex_floor(flex).saturating_add(free));
        }
        while layout.over(limit) > 0 && layout.cut_widest(limit, MIN_CUT_WIDTH) {}
        while layout.over(limit) > 0 && layout.shown.len() > 1 {
            layout.shown.pop();
        }
        if let [only] = layout.shown[..] {
            layout.widths[only] = layout.widths[only].min(limit);
        }
        layout
    }
}

/// One line: each shown cell cut to its width and padded, the last one not padded.
fn push_line(out: &mut String, cells: &[String], layout: &Layout, bold: bool) {
    let last = layout.shown.last().copied();
    for &i in &layout.shown {
        let width = layout.widths[i];
        let cell = clip(cells.get(i).map_or("", String::as_str), width);
        let shown = cell.width();
        out.push_str(&term::paint(&cell, Paint::Bold, bold));
        if Some(i) != last {
            let pad = width.saturating_sub(shown).saturating_add(GAP);
            out.extend(std::iter::repeat_n(' ', pad));
        }
    }
    out.push('\n');
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` cut to `max` display columns, ending in `…` when cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.width() <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used: usize = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used.saturating_add(w).saturating_add(1) > max {
            break;
        }
        used = used.saturating_add(w);
        out.push(c);
    }
    out.push('…');
    out
}

/// Prints text for people, each paragraph wrapped to stdout's width (see [`Fit::stdout`]).
pub fn print_wrapped(text: &str) -> CliResult {
    let Fit::Columns(width) = Fit::stdout(false) else {
        return print(text);
    };
    let mut out = String::new();
    for (i, paragraph) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if !paragraph.trim().is_empty() {
            out.push_str(&term::wrap(paragraph, width).join("\n"));
        }
    }
    print(&out)
}

/// Prints a table fitted to stdout (`wide`: every cell whole), headers bold when colour is
/// allowed. The cells were sanitized when they were added, so the output is written as it is.
pub fn print_table(table: &Table, wide: bool) -> CliResult {
    write_stdout(&table.render_with(Fit::stdout(wide), term::caps().color_stdout))
}

/// Writes what the Markdown renderer produced (already sanitized and styled) to stdout.
pub fn print_rendered(text: &str) -> CliResult {
    write_stdout(text)
}

/// Writes text for people to stdout (sanitized on a terminal), turning a closed pipe
/// (`| head`) into a quiet success.
pub fn print(text: &str) -> CliResult {
    write_stdout(&term::for_stdout(text))
}

/// Writes `text` to stdout exactly.
fn write_stdout(text: &str) -> CliResult {
    match crate::capture::write_stdout(text.as_bytes()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::failure(format!("cannot write to stdout: {e}"))),
    }
}

/// Pretty JSON of any value, newline-terminated.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> CliResult {
    let mut s = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::failure(format!("cannot encode JSON output: {e}")))?;
    s.push('\n');
    write_stdout(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let mut t = Table::new(vec!["name", "description"]);
        t.row(vec!["a".into(), "short".into()]);
        t.row(vec!["longer-name".into(), "x".repeat(100)]);
        t
    }

    #[test]
    fn unlimited_tables_align_and_keep_every_cell_whole() {
        let r = table().render_fit(Fit::Unlimited);
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], "NAME         DESCRIPTION");
        assert_eq!(lines[1], "a            short");
        assert_eq!(lines[2], format!("longer-name  {}", "x".repeat(100)));
    }

    #[test]
    fn fitted_tables_cut_the_description_first() {
        let r = table().render_fit(Fit::Columns(40));
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[1], "a            short");
        assert_eq!(lines[2], format!("longer-name  {}…", "x".repeat(26)));
        assert!(r.lines().all(|l| l.width() <= 40), "{r}");
    }

    #[test]
    fn when_the_flexible_column_is_not_enough_the_widest_others_are_cut() {
        let mut t = Table::new(vec!["a", "b", "description"]);
        t.row(vec!["y".repeat(50), "z".repeat(30), "d".repeat(30)]);
        let r = t.render_fit(Fit::Columns(60));
        assert!(r.lines().all(|l| l.width() <= 60), "{r}");
        assert!(r.contains('…'), "{r}");
        // A named flexible column is cut first.
        let mut t = Table::new(vec!["name", "caps", "n"]).flexible("caps");
        t.row(vec![
            "srv".into(),
            "tools,resources,prompts".into(),
            "3".into(),
        ]);
        let r = t.render_fit(Fit::Columns(22));
        assert_eq!(r.lines().nth(1), Some("srv   tools,resour…  3"));
    }

    /// A small deterministic generator (xorshift), so a failing case can be replayed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next().checked_rem(n.max(1) as u64).unwrap_or(0)).unwrap_or(0)
        }
    }

    const HEADERS: [&str; 13] = [
        "name",
        "transport",
        "state",
        "protocol",
        "capabilities",
        "tools",
        "resources",
        "templates",
        "prompts",
        "exposure",
        "declared",
        "budget",
        "description",
    ];

    fn random_cell(rng: &mut Rng) -> String {
        const PIECES: [&str; 8] = ["a", "word", "日本", "…", "x-y_z", "1234567890", " ", "é"];
        (0..rng.below(12))
            .map(|_| PIECES[rng.below(PIECES.len())])
            .collect()
    }

    fn random_table(rng: &mut Rng) -> Table {
        let columns = rng.below(HEADERS.len()).saturating_add(1);
        let headers: Vec<&'static str> = HEADERS[..columns].to_vec();
        let flexible = headers[rng.below(columns)];
        let optional: Vec<&str> = headers
            .iter()
            .copied()
            .filter(|_| rng.below(2) == 0)
            .collect();
        let mut t = Table::new(headers).optional(&optional);
        if rng.below(2) == 0 {
            t = t.flexible(flexible);
        }
        for _ in 0..rng.below(6) {
            // Rows may be shorter or longer than the headers.
            let cells = columns.saturating_add(rng.below(3)).saturating_sub(1);
            t.row((0..cells).map(|_| random_cell(rng)).collect());
        }
        t
    }

    #[test]
    fn random_tables_at_every_width_never_panic_and_never_exceed_it() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..400 {
            let table = random_table(&mut rng);
            for width in 1..=300 {
                let out = table.render_fit(Fit::Columns(width));
                for line in out.lines() {
                    assert!(
                        line.width() <= width,
                        "case {case}, width {width}: {} columns in {line:?}\n{out}",
                        line.width()
                    );
                }
                assert_eq!(
                    out.lines().count(),
                    table.rows.len()
                        + 1
                        + usize::from(
                            table.layout(Fit::Columns(width)).shown.len() < table.headers.len()
                        ),
                    "case {case}, width {width}: a row was lost or split\n{out}"
                );
            }
        }
    }

    #[test]
    fn optional_columns_are_left_out_first_and_named_under_the_table() {
        let mut t =
            Table::new(vec!["name", "state", "source", "description"]).optional(&["source"]);
        t.row(vec![
            "everything".into(),
            "ready".into(),
            "/home/someone/.config/coyote/mcp.json".into(),
            "the reference server".into(),
        ]);
        assert_eq!(
            t.render_fit(Fit::Columns(40)),
            "NAME        STATE  DESCRIPTION\n\
             everything  ready  the reference server\n\
             (not shown at this width: source)\n"
        );
        // Wide enough: everything shows and no note is added.
        assert!(!t.render_fit(Fit::Columns(200)).contains("not shown"));
        assert!(t.render_fit(Fit::Unlimited).contains("mcp.json"));
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_inside_words_only_when_they_are_too_long() {
        assert_eq!(term::wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(term::wrap("abcdefghij k", 4), ["abcd", "efgh", "ij k"]);
        assert_eq!(term::wrap("", 10), [""]);
        for line in term::wrap("日本語 テキスト https://example.com/a/very/long/path", 5) {
            assert!(line.width() <= 5, "{line}");
        }
    }

    #[test]
    fn cells_are_single_line_and_wide_characters_count_double() {
        let mut t = Table::new(vec!["d"]);
        t.row(vec!["two\nlines\there".into()]);
        assert_eq!(t.render_fit(Fit::Unlimited), "D\ntwo lines here\n");
        assert_eq!(clip("日本語テキスト", 7), "日本語…");
    }
}
