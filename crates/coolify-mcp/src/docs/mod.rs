//! The Coolify docs search behind `search_docs`: the bundled `llms.txt` index
//! (`data/coolify-docs-llms.txt`, embedded at build time) parsed into entries and ranked
//! exactly as the reference ranks them.
//!
//! Invariants: no network at build or run time (the reference's background refresh from
//! coolify.io is deliberately not implemented); the index is built on the first search, so
//! boot pays nothing for it.

mod minisearch;
mod parse;
mod radix;

use std::sync::OnceLock;

pub use parse::DocEntry;

/// The bundled index text (see `data/README.md` for its source and licence).
pub const BUNDLED_INDEX: &str = include_str!("../../data/coolify-docs-llms.txt");

/// The parsed entries and their search index.
#[derive(Debug)]
pub struct Docs {
    entries: Vec<DocEntry>,
    index: minisearch::Index,
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct DocHit<'a> {
    /// The page.
    pub entry: &'a DocEntry,
    /// Rounded to 2 decimals, as the reference reports it.
    pub score: f64,
}

impl Docs {
    /// Parse and index an `llms.txt` text.
    pub fn new(text: &str) -> Self {
        let entries = parse::parse(text);
        let index = minisearch::Index::build(&entries);
        Self { entries, index }
    }

    /// The bundled index, built once.
    pub fn bundled() -> &'static Docs {
        static DOCS: OnceLock<Docs> = OnceLock::new();
        DOCS.get_or_init(|| Docs::new(BUNDLED_INDEX))
    }

    /// How many pages the index holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the index holds no page.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every match for `query`, best first.
    pub fn search(&self, query: &str) -> Vec<DocHit<'_>> {
        self.index
            .search(query)
            .into_iter()
            .filter_map(|h| {
                self.entries.get(h.doc).map(|entry| DocHit {
                    entry,
                    score: h.score,
                })
            })
            .collect()
    }
}
