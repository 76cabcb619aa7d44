//! Markdown tables: collected row by row and rendered when the table ends — columns aligned
//! as the delimiter row says, cells wrapped so the table fits the width (comfy-table), inline
//! Markdown in cells reduced to its text (links keep their target in parentheses).
// Widths, counts and sizes of the terminal layout: an unchecked `-` here once panicked on an
// 80-column terminal, so every operation is checked or saturating (clippy enforces it).
#![deny(clippy::arithmetic_side_effects)]

use comfy_table::{Attribute, Cell, CellAlignment, ContentArrangement, Table, presets};
use pulldown_cmark::{Alignment, Event, Options, Parser, Tag, TagEnd};

use super::{Look, RenderOptions, inline};

/// Whether `line` is a table row (`| a | b |`).
pub fn is_row(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// The parsed table: alignments, header cells, body rows.
#[derive(Debug, Default)]
struct Parsed {
    alignments: Vec<Alignment>,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// Renders the collected rows; lines that do not make a table are rendered as prose.
pub fn render(rows: &[String], opts: &RenderOptions) -> String {
    let source = rows.join("\n");
    let Some(parsed) = parse(&source, opts) else {
        return rows
            .iter()
            .map(|row| inline::render_line(row, opts))
            .collect();
    };
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if let Some(width) = opts.width {
        table.set_width(u16::try_from(width).unwrap_or(u16::MAX));
    }
    if opts.look == Look::Styled {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    let bold = opts.look == Look::Styled;
    table.set_header(parsed.header.iter().map(|h| {
        let cell = Cell::new(h);
        if bold {
            cell.add_attribute(Attribute::Bold)
        } else {
            cell
        }
    }));
    for row in &parsed.rows {
        table.add_row(row.iter().map(Cell::new));
    }
    for (i, alignment) in parsed.alignments.iter().enumerate() {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(match alignment {
                Alignment::Center => CellAlignment::Center,
                Alignment::Right => CellAlignment::Right,
                Alignment::Left | Alignment::None => CellAlignment::Left,
            });
        }
    }
    let mut out = table.to_string();
    out.push('\n');
    out
}

fn parse(source: &str, opts: &RenderOptions) -> Option<Parsed> {
    let mut parsed = Parsed::default();
    let mut in_table = false;
    let mut in_head = false;
    let mut row: Vec<String> = Vec::new();
    let mut cell_start = None;
    let parser = Parser::new_ext(
        source,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    );
    for (event, range) in parser.into_offset_iter() {
        match event {
            Event::Start(Tag::Table(alignments)) => {
                in_table = true;
                parsed.alignments = alignments;
            }
            Event::Start(Tag::TableHead) => in_head = true,
            Event::Start(Tag::TableCell) => cell_start = Some(range.start),
            Event::End(TagEnd::TableCell) => {
                let text = cell_start
                    .take()
                    .and_then(|start| source.get(start..range.end))
                    .unwrap_or_default();
                let text = text.trim().trim_start_matches('|').trim_end_matches('|');
                row.push(inline::plain_text(text.trim(), opts));
            }
            Event::End(TagEnd::TableHead) => {
                in_head = false;
                parsed.header = std::mem::take(&mut row);
            }
            Event::End(TagEnd::TableRow) if !in_head => parsed.rows.push(std::mem::take(&mut row)),
            _ => {}
        }
    }
    in_table.then_some(parsed)
}
