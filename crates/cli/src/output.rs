//! Plain-text tables for people and JSON for scripts. Tables never wrap: long cells are cut
//! with `…` so one row stays one line; `--json` output is complete and untruncated.

use std::io::Write;

use serde::Serialize;

use crate::exit::{CliError, CliResult};

/// Widest a free-text cell (descriptions) may get in a table.
const MAX_CELL: usize = 72;

/// A simple left-aligned table.
pub struct Table {
    headers: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: Vec<&'static str>) -> Self {
        Table {
            headers,
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(
            cells
                .into_iter()
                .map(|c| clip(&one_line(&c), MAX_CELL))
                .collect(),
        );
    }

    pub fn render(&self) -> String {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                if let Some(w) = widths.get_mut(i) {
                    *w = (*w).max(cell.chars().count());
                }
            }
        }
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            let last = cells.len().saturating_sub(1);
            for (i, cell) in cells.iter().enumerate() {
                out.push_str(cell);
                if i < last {
                    let pad = widths[i] - cell.chars().count() + 2;
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push('\n');
        };
        let headers: Vec<String> = self.headers.iter().map(|h| h.to_uppercase()).collect();
        line(&headers, &mut out);
        for row in &self.rows {
            line(row, &mut out);
        }
        out
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max - 1).collect();
    t.push('…');
    t
}

/// Writes to stdout, turning a closed pipe (`| head`) into a quiet success.
pub fn print(text: &str) -> CliResult {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
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
    print(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_and_clips() {
        let mut t = Table::new(vec!["name", "description"]);
        t.row(vec!["a".into(), "short".into()]);
        t.row(vec!["longer-name".into(), "x".repeat(100)]);
        let r = t.render();
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], "NAME         DESCRIPTION");
        assert_eq!(lines[1], "a            short");
        assert!(lines[2].ends_with('…'));
        assert_eq!(lines[2].chars().count(), 13 + MAX_CELL);
    }

    #[test]
    fn cells_are_single_line() {
        let mut t = Table::new(vec!["d"]);
        t.row(vec!["two\nlines\there".into()]);
        assert_eq!(t.render(), "D\ntwo lines here\n");
    }
}
