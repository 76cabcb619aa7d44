//! `search_docs`: ranked pages of the bundled Coolify docs index.
//!
//! Invariant: `limit` is applied with JS `Array.prototype.slice` semantics (a negative
//! limit drops from the end, a fraction is truncated), so it can never index out of range.

use serde_json::{Value, json};

use super::{Args, ToolOutput, ToolResult};
use crate::docs::Docs;

/// How many results a `limit` keeps out of `len` (`slice(0, limit)`).
fn kept(limit: f64, len: usize) -> usize {
    let end = limit.trunc();
    let len_f = len as f64;
    let kept = if end < 0.0 {
        (len_f + end).max(0.0)
    } else {
        end.min(len_f)
    };
    // Checked above: 0 ≤ kept ≤ len.
    kept as usize
}

pub async fn search_docs(args: &Args) -> ToolResult {
    let query = args.str("query").unwrap_or_default();
    let limit = args.num("limit").unwrap_or(5.0);
    let docs = Docs::bundled();
    let hits = docs.search(query);
    let n = kept(limit, hits.len());
    let results: Vec<Value> = hits
        .into_iter()
        .take(n)
        .map(|h| {
            json!({
                "title": h.entry.title, "url": h.entry.url, "description": h.entry.description,
                "section": h.entry.section, "score": h.score,
            })
        })
        .collect();
    if results.is_empty() {
        return Ok(ToolOutput::Json(
            json!({"results": [], "hint": "No matches. Try broader or different keywords."}),
        ));
    }
    Ok(ToolOutput::Json(json!({"results": results})))
}

#[cfg(test)]
mod tests {
    use super::kept;

    #[test]
    fn limit_follows_slice_semantics() {
        assert_eq!(kept(5.0, 10), 5);
        assert_eq!(kept(2.9, 10), 2);
        assert_eq!(kept(-1.0, 10), 9);
        assert_eq!(kept(-50.0, 10), 0);
        assert_eq!(kept(1e300, 10), 10);
        assert_eq!(kept(0.0, 10), 0);
    }
}
