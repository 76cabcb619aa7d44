//! Plain-text tables for people and JSON for scripts. A row is always one line: cells are
//! made single-line, and when the table is wider than the output (the terminal's width when
//! stdout is one, else `$COLUMNS`, else unlimited) the flexible column — `description`, or the
//! one the table names — is cut with `…` first, then the widest others. `--wide` shows every
//! cell whole; `--json` output is complete and untruncated. Cells are sanitized for the terminal
//! before they are measured, and printed text goes through [`crate::term::for_stdout`].

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
}

impl Table {
    /// A table with these column headers (shown upper-case).
    pub fn new(headers: Vec<&'static str>) -> Self {
        let flexible = headers.iter().position(|h| *h == "description");
        Table {
            headers,
            rows: Vec::new(),
            flexible,
        }
    }

    /// Names the column that is cut first when the table is too wide.
    pub fn flexible(mut self, header: &str) -> Self {
        self.flexible = self.headers.iter().position(|h| *h == header);
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
        let widths = self.widths(fit);
        let mut out = String::new();
        let headers: Vec<String> = self.headers.iter().map(|h| h.to_uppercase()).collect();
        push_line(&mut out, &headers, &widths, bold);
        for row in &self.rows {
            push_line(&mut out, row, &widths, false);
        }
        out
    }

    /// Column widths: natural, then cut to fit.
    fn widths(&self, fit: Fit) -> Vec<usize> {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.width()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                if let Some(w) = widths.get_mut(i) {
                    *w = (*w).max(cell.width());
                }
            }
        }
        let Fit::Columns(limit) = fit else {
            return widths;
        };
        let total = |w: &[usize]| w.iter().sum::<usize>() + GAP * w.len().saturating_sub(1);
        if let Some(flex) = self.flexible {
            let over = total(&widths).saturating_sub(limit);
            widths[flex] = widths[flex]
                .saturating_sub(over)
                .max(MIN_CUT_WIDTH.min(widths[flex]));
        }
        // Still too wide: cut the widest column, one step at a time.
        while total(&widths) > limit {
            let Some((i, w)) = widths
                .iter()
                .copied()
                .enumerate()
                .max_by_key(|(_, w)| *w)
                .filter(|(_, w)| *w > MIN_CUT_WIDTH)
            else {
                break;
            };
            widths[i] = (w - (total(&widths) - limit)).max(MIN_CUT_WIDTH);
        }
        widths
    }
}

/// One line: each cell cut to its width and padded, the last one not padded.
fn push_line(out: &mut String, cells: &[String], widths: &[usize], bold: bool) {
    let last = cells.len().saturating_sub(1);
    for (i, cell) in cells.iter().enumerate() {
        let width = widths.get(i).copied().unwrap_or(0);
        let cell = clip(cell, width);
        let shown = cell.width();
        out.push_str(&term::paint(&cell, Paint::Bold, bold));
        if i < last {
            out.extend(std::iter::repeat_n(' ', width - shown.min(width) + GAP));
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
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
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

    #[test]
    fn cells_are_single_line_and_wide_characters_count_double() {
        let mut t = Table::new(vec!["d"]);
        t.row(vec!["two\nlines\there".into()]);
        assert_eq!(t.render_fit(Fit::Unlimited), "D\ntwo lines here\n");
        assert_eq!(clip("日本語テキスト", 7), "日本語…");
    }
}
