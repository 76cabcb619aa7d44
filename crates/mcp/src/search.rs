//! BM25 search over a server's unified catalog: one ranking for tools,
//! resources, resource templates and prompts, over name, title, description and URI. The index
//! is rebuilt per query (catalog listings are live and uncached); building it for 10,000
//! items is benchmarked in `benches/catalog_search.rs`.
//!
//! Invariants: `top_k` is clamped to [`MIN_TOP_K`]..=[`MAX_TOP_K`]; ties keep catalog order; a
//! query without searchable words lists the items in catalog order instead of returning
//! nothing, so `mcp_search_` with an empty query, a `kind` and an `offset` enumerates a whole
//! catalog page by page ([`CatalogIndex::rank`]). Hits
//! carry the item's kind and annotations (OQ1: `audience` is surfaced, never used to hide).

use std::collections::HashMap;

use serde::Serialize;

use crate::catalog::{CatalogItem, CatalogKind};

/// The smallest `top_k` accepted; a smaller one is raised to it.
pub const MIN_TOP_K: usize = 1;
/// The largest `top_k` accepted; a larger one is lowered to it.
pub const MAX_TOP_K: usize = 20;
/// Hits returned when `top_k` is absent.
pub const DEFAULT_TOP_K: usize = 5;
/// Descriptions in hits are cut here; `mcp_describe_` returns the whole text.
pub const HIT_DESCRIPTION_MAX_BYTES: usize = 400;

/// BM25 parameters (the usual Okapi defaults).
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Name and title words count this many times: a match there says more than one in prose.
const NAME_WEIGHT: u32 = 3;

/// Clamps a requested `top_k` (absent → [`DEFAULT_TOP_K`]).
pub fn clamp_top_k(requested: Option<u64>) -> usize {
    match requested {
        None => DEFAULT_TOP_K,
        Some(k) => usize::try_from(k)
            .unwrap_or(MAX_TOP_K)
            .clamp(MIN_TOP_K, MAX_TOP_K),
    }
}

/// One ranked result.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit<'a> {
    /// The catalog item found.
    pub item: &'a CatalogItem,
    /// Its BM25 score (higher is better).
    pub score: f64,
}

/// What the model sees for one hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHitView {
    /// The item's kind.
    pub kind: CatalogKind,
    /// The item's id (tool name, URI, template or prompt name).
    pub id: String,
    /// Only when it differs from `id` (resources: id is the URI).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `title`, if the item has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description`, cut at `HIT_DESCRIPTION_MAX_BYTES`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `mimeType`, for resources and templates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// `annotations`, for tools that declare them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<serde_json::Value>,
}

impl SearchHit<'_> {
    /// The hit as the model sees it.
    pub fn view(&self) -> SearchHitView {
        let item = self.item;
        SearchHitView {
            kind: item.kind,
            id: item.id.clone(),
            name: (item.name != item.id).then(|| item.name.clone()),
            title: item.title.clone(),
            description: item.description.as_deref().map(shorten),
            mime_type: item.mime_type.clone(),
            annotations: item.annotations.clone(),
        }
    }
}

fn shorten(text: &str) -> String {
    if text.len() <= HIT_DESCRIPTION_MAX_BYTES {
        return text.to_string();
    }
    let mut end = HIT_DESCRIPTION_MAX_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// An inverted index over a catalog slice.
#[derive(Debug)]
pub struct CatalogIndex<'a> {
    items: &'a [CatalogItem],
    /// term → term id (index into `postings`)
    terms: HashMap<String, u32>,
    /// per term: (document, term frequency)
    postings: Vec<Vec<(u32, u32)>>,
    doc_len: Vec<u32>,
    avg_len: f64,
}

impl<'a> CatalogIndex<'a> {
    /// Indexes `items` (names and titles weigh more than descriptions).
    pub fn new(items: &'a [CatalogItem]) -> Self {
        let mut index = CatalogIndex {
            items,
            terms: HashMap::new(),
            postings: Vec::new(),
            doc_len: Vec::with_capacity(items.len()),
            avg_len: 1.0,
        };
        // Reused across documents: (term id, weighted count) of the current document.
        let mut counts: Vec<(u32, u32)> = Vec::new();
        let mut buf = String::new();
        for (doc, item) in items.iter().enumerate() {
            counts.clear();
            let mut len = 0u32;
            let mut fields: Vec<(&str, u32)> = vec![(&item.name, NAME_WEIGHT)];
            if item.id != item.name {
                fields.push((&item.id, 1));
            }
            if let Some(title) = &item.title {
                fields.push((title, NAME_WEIGHT));
            }
            if let Some(description) = &item.description {
                fields.push((description, 1));
            }
            if let Some(uri) = item.uri.as_ref().filter(|u| **u != item.id) {
                fields.push((uri, 1));
            }
            for (text, weight) in fields {
                tokenize(text, &mut buf, |term| {
                    let id = index.term_id(term);
                    match counts.iter_mut().find(|(t, _)| *t == id) {
                        Some((_, n)) => *n += weight,
                        None => counts.push((id, weight)),
                    }
                    len += weight;
                });
            }
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            for &(term, tf) in &counts {
                index.postings[term as usize].push((doc, tf));
            }
            index.doc_len.push(len);
        }
        let total: u64 = index.doc_len.iter().map(|l| u64::from(*l)).sum();
        if !items.is_empty() {
            index.avg_len = (total as f64 / items.len() as f64).max(1.0);
        }
        index
    }

    fn term_id(&mut self, term: &str) -> u32 {
        if let Some(id) = self.terms.get(term) {
            return *id;
        }
        let id = u32::try_from(self.postings.len()).unwrap_or(u32::MAX);
        self.terms.insert(term.to_string(), id);
        self.postings.push(Vec::new());
        id
    }

    /// The `top_k` best items for `query` (clamped), best first; only items matching at least
    /// one query word. A query with no words lists the first `top_k` items.
    pub fn search(&self, query: &str, top_k: usize) -> Vec<SearchHit<'a>> {
        let mut hits = self.rank(query);
        hits.truncate(top_k.clamp(MIN_TOP_K, MAX_TOP_K));
        hits
    }

    /// Every item matching at least one word of `query`, best first (ties in catalog order);
    /// a query with no words lists every item in catalog order.
    pub fn rank(&self, query: &str) -> Vec<SearchHit<'a>> {
        self.ranked(query, Numbers::Rank)
    }

    /// [`CatalogIndex::rank`] for the retrieval scorer: a word made only of digits (`2`, `002`)
    /// ranks nothing alone. It still adds to the score of an item another word of `query`
    /// matched (`issue 42` prefers the issue tool that mentions 42), but `apple-2` does not
    /// pull `tool_002` ("tool number 2") into a request. A query of digits only, or of no
    /// words, ranks nothing (never the catalog order [`CatalogIndex::rank`] lists).
    pub fn rank_by_words(&self, query: &str) -> Vec<SearchHit<'a>> {
        self.ranked(query, Numbers::NotAlone)
    }

    fn ranked(&self, query: &str, numbers: Numbers) -> Vec<SearchHit<'a>> {
        let mut words: Vec<String> = Vec::new();
        let mut buf = String::new();
        tokenize(query, &mut buf, |t| {
            if !words.iter().any(|w| w == t) {
                words.push(t.to_string())
            }
        });
        if words.is_empty() && numbers == Numbers::Rank {
            return self
                .items
                .iter()
                .map(|item| SearchHit { item, score: 0.0 })
                .collect();
        }
        let mut scores = vec![0.0f64; self.items.len()];
        // Per item: whether a word that is not only digits matched it.
        let mut by_word = vec![numbers == Numbers::Rank; self.items.len()];
        for word in &words {
            let Some(&id) = self.terms.get(word) else {
                continue;
            };
            let numeric = is_number(word);
            let list = &self.postings[id as usize];
            let idf = idf(self.items.len(), list.len());
            for &(doc, tf) in list {
                let tf = f64::from(tf);
                let len = f64::from(self.doc_len[doc as usize]);
                let norm = K1 * (1.0 - B + B * len / self.avg_len);
                scores[doc as usize] += idf * tf * (K1 + 1.0) / (tf + norm);
                by_word[doc as usize] |= !numeric;
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores
            .into_iter()
            .enumerate()
            .filter(|&(doc, s)| s > 0.0 && by_word[doc])
            .collect();
        // Stable sort: equal scores keep catalog order.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked
            .into_iter()
            .map(|(doc, score)| SearchHit {
                item: &self.items[doc],
                score,
            })
            .collect()
    }
}

/// BM25's inverse document frequency of a word `df` of `n` items have (Lucene's, never
/// negative): rarer words weigh more; a word only one item has weighs `idf(n, 1)`.
pub fn idf(n: usize, df: usize) -> f64 {
    let (n, df) = (n as f64, df as f64);
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
}

/// How a ranking treats words made only of digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numbers {
    /// Like any other word (`mcp_search_`: the model searched for the number).
    Rank,
    /// Only beside another matching word (the retrieval scorer).
    NotAlone,
}

/// Whether a term is only digits.
fn is_number(term: &str) -> bool {
    term.chars().all(|c| c.is_numeric())
}

/// Convenience: index and search in one go.
pub fn search_catalog<'a>(
    items: &'a [CatalogItem],
    query: &str,
    top_k: usize,
) -> Vec<SearchHit<'a>> {
    CatalogIndex::new(items).search(query, top_k)
}

/// Lower-cased alphanumeric words; camelCase words also yield their parts; a plural `s` is
/// dropped so "issue" finds "issues". `buf` is scratch space, so indexing allocates only for
/// new terms.
fn tokenize(text: &str, buf: &mut String, mut emit: impl FnMut(&str)) {
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if has_camel_break(word) {
            let mut start = 0;
            let mut prev_lower = false;
            for (i, c) in word.char_indices() {
                if c.is_uppercase() && prev_lower {
                    emit(normalise(&word[start..i], buf));
                    start = i;
                }
                prev_lower = c.is_lowercase() || c.is_ascii_digit();
            }
            emit(normalise(&word[start..], buf));
        }
        emit(normalise(word, buf));
    }
}

fn has_camel_break(word: &str) -> bool {
    let mut prev_lower = false;
    for c in word.chars() {
        if c.is_uppercase() && prev_lower {
            return true;
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    false
}

fn normalise<'b>(word: &str, buf: &'b mut String) -> &'b str {
    buf.clear();
    if word.is_ascii() {
        buf.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        buf.extend(word.chars().flat_map(char::to_lowercase));
    }
    if buf.len() > 3 && buf.ends_with('s') && !buf.ends_with("ss") {
        buf.pop();
    }
    buf
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
