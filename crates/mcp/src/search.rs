//! BM25 search over a server's unified catalog (seed D1, §4.2): one ranking for tools,
//! resources, resource templates and prompts, over name, title, description and URI. The index
//! is rebuilt per query (catalog listings are live and uncached, R8); building it for 10,000
//! items is benchmarked in `benches/catalog_search.rs`.
//!
//! Invariants: `top_k` is clamped to [`MIN_TOP_K`]..=[`MAX_TOP_K`]; ties keep catalog order; a
//! query without searchable words lists the first items instead of returning nothing. Hits
//! carry the item's kind and annotations (OQ1: `audience` is surfaced, never used to hide).

use std::collections::HashMap;

use serde::Serialize;

use crate::catalog_item::{CatalogItem, CatalogKind};

pub const MIN_TOP_K: usize = 1;
pub const MAX_TOP_K: usize = 20;
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
    pub item: &'a CatalogItem,
    pub score: f64,
}

/// What the model sees for one hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHitView {
    pub kind: CatalogKind,
    pub id: String,
    /// Only when it differs from `id` (resources: id is the URI).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<serde_json::Value>,
}

impl SearchHit<'_> {
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
    /// term → (document, term frequency)
    postings: HashMap<String, Vec<(u32, u32)>>,
    doc_len: Vec<u32>,
    avg_len: f64,
}

impl<'a> CatalogIndex<'a> {
    pub fn new(items: &'a [CatalogItem]) -> Self {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut doc_len = Vec::with_capacity(items.len());
        let mut counts: HashMap<String, u32> = HashMap::new();
        for (doc, item) in items.iter().enumerate() {
            counts.clear();
            let mut len = 0u32;
            let mut add = |text: &str, weight: u32| {
                tokenize(text, |t| {
                    *counts.entry(t).or_default() += weight;
                    len += weight;
                })
            };
            add(&item.name, NAME_WEIGHT);
            if item.id != item.name {
                add(&item.id, 1);
            }
            if let Some(title) = &item.title {
                add(title, NAME_WEIGHT);
            }
            if let Some(description) = &item.description {
                add(description, 1);
            }
            if let Some(uri) = item.uri.as_ref().filter(|u| **u != item.id) {
                add(uri, 1);
            }
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            for (term, tf) in counts.drain() {
                postings.entry(term).or_default().push((doc, tf));
            }
            doc_len.push(len);
        }
        let total: u64 = doc_len.iter().map(|l| u64::from(*l)).sum();
        let avg_len = if items.is_empty() {
            1.0
        } else {
            (total as f64 / items.len() as f64).max(1.0)
        };
        CatalogIndex {
            items,
            postings,
            doc_len,
            avg_len,
        }
    }

    /// The `top_k` best items for `query` (clamped), best first; only items matching at least
    /// one query word. A query with no words lists the first `top_k` items.
    pub fn search(&self, query: &str, top_k: usize) -> Vec<SearchHit<'a>> {
        let top_k = top_k.clamp(MIN_TOP_K, MAX_TOP_K);
        let mut terms = Vec::new();
        tokenize(query, |t| {
            if !terms.contains(&t) {
                terms.push(t)
            }
        });
        if terms.is_empty() {
            return self
                .items
                .iter()
                .take(top_k)
                .map(|item| SearchHit { item, score: 0.0 })
                .collect();
        }
        let n = self.items.len() as f64;
        let mut scores = vec![0.0f64; self.items.len()];
        for term in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                let tf = f64::from(tf);
                let len = f64::from(self.doc_len[doc as usize]);
                let norm = K1 * (1.0 - B + B * len / self.avg_len);
                scores[doc as usize] += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores
            .into_iter()
            .enumerate()
            .filter(|(_, s)| *s > 0.0)
            .collect();
        // Stable sort: equal scores keep catalog order.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(top_k);
        ranked
            .into_iter()
            .map(|(doc, score)| SearchHit {
                item: &self.items[doc],
                score,
            })
            .collect()
    }
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
/// dropped so "issue" finds "issues".
fn tokenize(text: &str, mut emit: impl FnMut(String)) {
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let lower = word.to_lowercase();
        let parts = camel_parts(word);
        if parts.len() > 1 {
            for part in parts {
                emit(normalise(part.to_lowercase()));
            }
        }
        emit(normalise(lower));
    }
}

fn camel_parts(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut prev_lower = false;
    for (i, c) in word.char_indices() {
        if c.is_uppercase() && prev_lower {
            parts.push(&word[start..i]);
            start = i;
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    parts.push(&word[start..]);
    parts
}

fn normalise(mut word: String) -> String {
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        word.pop();
    }
    word
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
