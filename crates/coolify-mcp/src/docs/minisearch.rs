//! The reference's docs ranking: MiniSearch 7 with fields title (boost 3), description and
//! section, prefix matching, fuzzy 0.2, BM25+ (k 1.2, b 0.7, d 0.5), OR-combined terms and a
//! final score × (number of matched query terms), stably sorted.
//!
//! Ported operation for operation (same float operations in the same order, same insertion
//! orders), so result order matches the reference including ties. Terms are UTF-16 code
//! units, as in JS.

use std::collections::HashMap;

use unicode_general_category::{GeneralCategory as G, get_general_category};

use super::parse::DocEntry;
use super::radix::RadixMap;

const FIELD_BOOSTS: [f64; 3] = [3.0, 1.0, 1.0];
const FUZZY: f64 = 0.2;
const MAX_FUZZY: usize = 6;
const PREFIX_WEIGHT: f64 = 0.375;
const FUZZY_WEIGHT: f64 = 0.45;
const BM25_K: f64 = 1.2;
const BM25_B: f64 = 0.7;
const BM25_D: f64 = 0.5;

/// Per field, the documents holding a term and how often, in insertion order.
type TermData = [Vec<(usize, f64)>; 3];

/// `/[\n\r\p{Z}\p{P}]/u`.
fn is_separator(c: char) -> bool {
    c == '\n'
        || c == '\r'
        || matches!(
            get_general_category(c),
            G::SpaceSeparator
                | G::LineSeparator
                | G::ParagraphSeparator
                | G::ConnectorPunctuation
                | G::DashPunctuation
                | G::OpenPunctuation
                | G::ClosePunctuation
                | G::InitialPunctuation
                | G::FinalPunctuation
                | G::OtherPunctuation
        )
}

/// `text.split(/[\n\r\p{Z}\p{P}]+/u)`, empty pieces included as JS keeps them.
pub fn tokenize(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_sep = false;
    for (i, c) in text.char_indices() {
        if is_separator(c) {
            if !in_sep {
                out.push(&text[start..i]);
                in_sep = true;
            }
        } else if in_sep {
            start = i;
            in_sep = false;
        }
    }
    out.push(if in_sep { "" } else { &text[start..] });
    out
}

/// The index over the docs entries.
#[derive(Debug)]
pub struct Index {
    tree: RadixMap<TermData>,
    field_length: Vec<[f64; 3]>,
    avg_field_length: [f64; 3],
}

/// One ranked document.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub doc: usize,
    pub score: f64,
}

/// A document's running result for one query.
struct Partial {
    doc: usize,
    score: f64,
    terms: Vec<Vec<u16>>,
}

/// Results keyed by document, in first-seen order (a JS `Map`).
#[derive(Default)]
struct Results {
    list: Vec<Partial>,
    at: HashMap<usize, usize>,
}

impl Results {
    fn add(&mut self, doc: usize, score: f64, term: &[u16]) {
        match self.at.get(&doc) {
            Some(&i) => {
                let p = &mut self.list[i];
                p.score += score;
                if !p.terms.iter().any(|t| t == term) {
                    p.terms.push(term.to_vec());
                }
            }
            None => {
                self.at.insert(doc, self.list.len());
                self.list.push(Partial {
                    doc,
                    score,
                    terms: vec![term.to_vec()],
                });
            }
        }
    }

    /// The OR combinator: `a` keeps its order, new documents of `b` are appended.
    fn or(mut self, b: Results) -> Results {
        for p in b.list {
            match self.at.get(&p.doc) {
                Some(&i) => {
                    let e = &mut self.list[i];
                    e.score += p.score;
                    for t in p.terms {
                        if !e.terms.contains(&t) {
                            e.terms.push(t);
                        }
                    }
                }
                None => {
                    self.at.insert(p.doc, self.list.len());
                    self.list.push(p);
                }
            }
        }
        self
    }
}

fn bm25(tf: f64, matching: f64, total: f64, field_length: f64, avg: f64) -> f64 {
    let idf = (1.0 + (total - matching + 0.5) / (matching + 0.5)).ln();
    idf * (BM25_D
        + tf * (BM25_K + 1.0) / (tf + BM25_K * (1.0 - BM25_B + BM25_B * field_length / avg)))
}

/// JS `Math.round` for the non-negative values used here.
fn js_round(x: f64) -> f64 {
    (x + 0.5).floor()
}

impl Index {
    pub fn build(entries: &[DocEntry]) -> Self {
        let mut index = Index {
            tree: RadixMap::new(),
            field_length: Vec::with_capacity(entries.len()),
            avg_field_length: [0.0; 3],
        };
        for (doc, e) in entries.iter().enumerate() {
            index.field_length.push([0.0; 3]);
            for (field, text) in [&e.title, &e.description, &e.section]
                .into_iter()
                .enumerate()
            {
                let tokens = tokenize(text);
                let mut unique: Vec<&str> = tokens.clone();
                unique.sort_unstable();
                unique.dedup();
                let length = unique.len() as f64;
                index.field_length[doc][field] = length;
                let avg = index.avg_field_length[field];
                index.avg_field_length[field] = (avg * doc as f64 + length) / (doc as f64 + 1.0);
                for token in tokens {
                    let term = token.to_lowercase();
                    if term.is_empty() {
                        continue;
                    }
                    let units: Vec<u16> = term.encode_utf16().collect();
                    let data = index.tree.fetch(&units, TermData::default);
                    match data[field].last_mut() {
                        Some((d, freq)) if *d == doc => *freq += 1.0,
                        _ => data[field].push((doc, 1.0)),
                    }
                }
            }
        }
        index
    }

    fn term_results(&self, source: &[u16], weight: f64, data: &TermData, out: &mut Results) {
        let total = self.field_length.len() as f64;
        for (field, boost) in FIELD_BOOSTS.iter().enumerate() {
            let freqs = &data[field];
            if freqs.is_empty() {
                continue;
            }
            let matching = freqs.len() as f64;
            let avg = self.avg_field_length[field];
            for &(doc, tf) in freqs {
                let raw = bm25(tf, matching, total, self.field_length[doc][field], avg);
                out.add(doc, weight * 1.0 * boost * 1.0 * raw, source);
            }
        }
    }

    /// One query term: exact, then prefix, then fuzzy matches.
    fn query_term(&self, term: &[u16]) -> Results {
        let mut results = Results::default();
        if let Some(data) = self.tree.get(term) {
            self.term_results(term, 1.0, data, &mut results);
        }
        let max = MAX_FUZZY.min(js_round(term.len() as f64 * FUZZY) as usize);
        let mut fuzzy = if max > 0 {
            self.tree.fuzzy(term, max)
        } else {
            Vec::new()
        };
        for (found, data) in self.tree.with_prefix(term) {
            let distance = found.len() - term.len();
            if distance == 0 {
                continue;
            }
            fuzzy.retain(|(t, _, _)| *t != found);
            let len = found.len() as f64;
            let weight = PREFIX_WEIGHT * len / (len + 0.3 * distance as f64);
            self.term_results(term, weight, data, &mut results);
        }
        for (found, data, distance) in fuzzy {
            if distance == 0 {
                continue;
            }
            let len = found.len() as f64;
            let weight = FUZZY_WEIGHT * len / (len + distance as f64);
            self.term_results(term, weight, data, &mut results);
        }
        results
    }

    /// Ranked documents for a query, best first, with scores rounded to 2 decimals.
    pub fn search(&self, query: &str) -> Vec<Hit> {
        let terms: Vec<Vec<u16>> = tokenize(query)
            .into_iter()
            .map(str::to_lowercase)
            .filter(|t| !t.is_empty())
            .map(|t| t.encode_utf16().collect())
            .collect();
        let combined = terms
            .iter()
            .map(|t| self.query_term(t))
            .reduce(Results::or)
            .unwrap_or_default();
        let mut hits: Vec<Hit> = combined
            .list
            .into_iter()
            .map(|p| Hit {
                doc: p.doc,
                score: p.score * p.terms.len().max(1) as f64,
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .partial_cmp(&a.score)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        for h in &mut hits {
            h.score = js_round(h.score * 100.0) / 100.0;
        }
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_splits_like_the_reference() {
        assert_eq!(
            tokenize("Deploy your-first app"),
            ["Deploy", "your", "first", "app"]
        );
        assert_eq!(tokenize(" a, b "), ["", "a", "b", ""]);
        assert_eq!(tokenize(""), [""]);
        // `$`, `+` and `|` are symbols, not punctuation: they do not split.
        assert_eq!(tokenize("a+b $x|y"), ["a+b", "$x|y"]);
        assert_eq!(tokenize("x — y"), ["x", "y"]);
    }
}
