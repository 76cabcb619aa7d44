//! The `retrieve` exposure: which of a large server's tools one request declares as
//! themselves. The server's tools are ranked with the catalog's BM25 index ([`crate::search`]:
//! names split on `_`/`-`/camelCase, titles, descriptions, and here the parameter names too)
//! against the conversation — the latest user message weighted highest, then the last
//! assistant turn, then recent tool results — and the best [`RetrieveSettings::top_k`] are
//! declared, within [`RetrieveSettings::max_tokens`] estimated tokens.
//!
//! Invariants:
//! - Tools the model called earlier in the turn stay declared (no tool disappears mid-task),
//!   and tools the user's message names (exactly, or one edit away when no name matches
//!   exactly) are declared whatever their rank; neither counts against the budget. The
//!   server's own name in the message does not rank its tools.
//! - Only tools that match well rank: below [`MIN_RELEVANCE`] a tool is not declared, and a
//!   word made only of digits ranks nothing alone (`apple-2` does not pull `tool_002`).
//! - The selection is a pure function of the tools, the context and the settings (ties keep
//!   catalog order), so `coyote mcp retrieve` shows exactly what a request would declare.

use std::collections::{BTreeSet, HashMap};

use coyote_protocol::RetrieveSettings;
use serde::{Deserialize, Serialize};

use coyote_protocol::FunctionDeclaration;

use super::direct::{DirectNames, DirectTool};
use super::exposure::{direct_declaration, estimate_tokens};
use crate::catalog::{CatalogItem, ToolInfo};
use crate::search::{CatalogIndex, idf};

/// Weight of the latest user message's ranking.
const USER_WEIGHT: f64 = 1.0;
/// Weight of the last assistant message's ranking.
const ASSISTANT_WEIGHT: f64 = 0.4;
/// Weight of the recent tool results' ranking.
const RESULTS_WEIGHT: f64 = 0.2;
/// Words of a conversation that say nothing about which tool is meant (they would rank the
/// tools whose descriptions are written with them).
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "an", "and", "any", "are", "as", "at", "be", "but", "by", "can",
    "could", "do", "does", "for", "from", "has", "have", "how", "i", "if", "in", "into", "is",
    "it", "its", "many", "me", "much", "my", "of", "on", "or", "our", "please", "so", "some",
    "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "to", "us", "was", "we", "what", "when", "where", "which", "who", "why", "will", "with",
    "would", "you", "your",
];
/// The relevance floor, in units of [`idf`]`(tools, 1)` — the weight of a word only one tool
/// of the server has: a ranked tool scoring less is not declared, so a message that matches
/// nothing well declares nothing extra (the meta-functions still reach every tool). One such
/// word matched once in a description of average length scores about 1.0 of it; a word many
/// tools share, or a long description, scores less.
///
/// Picked from `scripts/bench tokens` (its 20 messages over server-everything, coolify-mcp,
/// filesystem, git and the 250-tool server, in these units): the tools the 15 tool messages
/// need scored 1.07 at the least (filesystem `read_text_file` for "Read the file README.md",
/// where every tool shares "file"; the next, `read_file` 1.14 and coolify's
/// `list_applications` 1.28), while the unrelated echo message scored 0.61 on coolify-mcp and
/// 0.96 on filesystem (`read_text_file` on "text"). 1.0 is between the two. Matches that
/// are lexical but not wanted still pass (`get-roots-list` for "list the files", 1.85-2.61):
/// the floor removes the weak tail, it does not understand the message.
pub const MIN_RELEVANCE: f64 = 1.0;
/// Shortest word compared one edit away (shorter names match only exactly).
const FUZZY_MIN_LEN: usize = 6;

/// What one request's tool choice is ranked against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetrieveContext {
    /// The latest user message's text.
    pub user: String,
    /// The last assistant message's text (and its calls' names).
    pub assistant: String,
    /// The text of recent tool results.
    pub results: String,
    /// `(server, tool)` of the tools called since the latest user message.
    pub used: BTreeSet<(String, String)>,
}

impl RetrieveContext {
    /// A context of the user's words only (`coyote mcp retrieve`).
    pub fn user(text: impl Into<String>) -> Self {
        RetrieveContext {
            user: text.into(),
            ..RetrieveContext::default()
        }
    }
}

/// Why a tool is declared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Why {
    /// The model called it earlier in this turn.
    UsedEarlier,
    /// The user's message names it.
    Mention,
    /// Its place in the ranking (1 = best) and its score.
    Rank {
        /// 1 = best.
        rank: usize,
        /// The weighted BM25 score.
        score: f64,
    },
}

impl Why {
    /// `used earlier`, `mention`, `rank 3`.
    pub fn label(&self) -> String {
        match self {
            Why::UsedEarlier => "used earlier".to_owned(),
            Why::Mention => "mention".to_owned(),
            Why::Rank { rank, .. } => format!("rank {rank}"),
        }
    }
}

/// One tool a request declares directly, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Retrieved {
    /// The server.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The function name the model sees (empty until the declaration set names it).
    pub function: String,
    /// Why it is declared.
    #[serde(flatten)]
    pub why: Why,
    /// Estimated tokens of its declaration.
    pub tokens: usize,
}

/// The tools of `server` one request declares directly, in declaration order: used earlier,
/// mentioned, then by rank.
pub fn select(
    server: &str,
    tools: &[ToolInfo],
    context: &RetrieveContext,
    settings: RetrieveSettings,
) -> Vec<Retrieved> {
    let tokens = |tool: &ToolInfo| {
        estimate_tokens(&[direct_declaration(
            &super::direct::sanitize(&format!(
                "{server}{}{}",
                super::direct::DIRECT_SEPARATOR,
                tool.name
            )),
            tool,
        )])
    };
    let mut chosen: Vec<Retrieved> = Vec::new();
    let take = |i: usize, why: Why, chosen: &mut Vec<Retrieved>| {
        if chosen.iter().any(|r| r.tool == tools[i].name) {
            return;
        }
        chosen.push(Retrieved {
            server: server.to_owned(),
            tool: tools[i].name.clone(),
            function: String::new(),
            why,
            tokens: tokens(&tools[i]),
        });
    };
    for (i, tool) in tools.iter().enumerate() {
        if context
            .used
            .iter()
            .any(|(s, t)| s == server && *t == tool.name)
        {
            take(i, Why::UsedEarlier, &mut chosen);
        }
    }
    let (mentioned, rest) = mentions(tools, &context.user);
    for i in mentioned {
        take(i, Why::Mention, &mut chosen);
    }
    // The words that named a tool have done their work: the rest of the message ranks, less
    // the server's own name ("the github server"), which says which server, not which tool
    // (it would favour the tools whose descriptions repeat it).
    let context = RetrieveContext {
        user: without_word(&rest, server),
        ..context.clone()
    };
    let forced = chosen.len();
    let floor = MIN_RELEVANCE * idf(tools.len(), 1);
    let mut spent = 0usize;
    let mut ranked = 0usize;
    for (rank, (i, score)) in ranking(tools, &context).into_iter().enumerate() {
        if ranked >= settings.top_k || score < floor {
            break;
        }
        if chosen.iter().any(|r| r.tool == tools[i].name) {
            continue;
        }
        let cost = tokens(&tools[i]);
        if spent + cost > settings.max_tokens {
            continue;
        }
        spent += cost;
        ranked += 1;
        take(
            i,
            Why::Rank {
                rank: rank + 1,
                score: (score * 1000.0).round() / 1000.0,
            },
            &mut chosen,
        );
    }
    debug_assert!(chosen.len() <= forced + settings.top_k);
    chosen
}

/// Tool indexes with their weighted score, best first (ties in catalog order); only tools
/// matching some word of the context.
fn ranking(tools: &[ToolInfo], context: &RetrieveContext) -> Vec<(usize, f64)> {
    let items: Vec<CatalogItem> = tools.iter().map(item).collect();
    let position: HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, item)| (item.id.as_str(), i))
        .collect();
    let index = CatalogIndex::new(&items);
    let mut scores = vec![0.0f64; items.len()];
    for (text, weight) in [
        (&context.user, USER_WEIGHT),
        (&context.assistant, ASSISTANT_WEIGHT),
        (&context.results, RESULTS_WEIGHT),
    ] {
        // Numbers alone rank nothing, and no words rank nothing (never the catalog order).
        for hit in index.rank_by_words(&without_stopwords(text)) {
            if let Some(&i) = position.get(hit.item.id.as_str()) {
                scores[i] += weight * hit.score;
            }
        }
    }
    let mut ranked: Vec<(usize, f64)> = scores
        .into_iter()
        .enumerate()
        .filter(|(_, s)| *s > 0.0)
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked
}

/// `text` without [`STOPWORDS`] (compared case-insensitively, word by word).
fn without_stopwords(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(&w.to_lowercase().as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` without the words equal to `name` (case and `-`/`_` aside).
fn without_word(text: &str, name: &str) -> String {
    let name = fold(name);
    text.split_whitespace()
        .filter(|w| fold(w.trim_matches(|c: char| !c.is_alphanumeric())) != name)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A tool as a catalog item whose description also holds its parameter names.
fn item(tool: &ToolInfo) -> CatalogItem {
    let mut item = CatalogItem::from(tool.clone());
    let params: Vec<&str> = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if !params.is_empty() {
        let mut description = item.description.take().unwrap_or_default();
        description.push_str("\nParameters: ");
        description.push_str(&params.join(" "));
        item.description = Some(description);
    }
    item
}

/// Indexes of the tools `text` names, and `text` without the words that named them: a word equal to a tool's name (case and `-`/`_` aside, or as
/// `<server>__<tool>`), or, for a word no name equals, one edit away from exactly one name.
fn mentions(tools: &[ToolInfo], text: &str) -> (Vec<usize>, String) {
    let names: Vec<String> = tools.iter().map(|t| fold(&t.name)).collect();
    let mut found = Vec::new();
    let mut rest = Vec::new();
    for raw in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.')) {
        match named_tool(&names, raw) {
            Some(i) => found.push(i),
            None => rest.push(raw),
        }
    }
    let mut seen = BTreeSet::new();
    found.retain(|i| seen.insert(*i));
    (found, rest.join(" "))
}

/// The tool one word of the user's message names, if any.
fn named_tool(names: &[String], raw: &str) -> Option<usize> {
    let word = fold(raw.trim_matches('.'));
    if word.len() < 3 {
        return None;
    }
    let word = word.rsplit("__").next().unwrap_or(&word).to_owned();
    if let Some(i) = names.iter().position(|n| *n == word) {
        return Some(i);
    }
    if word.len() < FUZZY_MIN_LEN || !word.contains('_') {
        return None;
    }
    let near: Vec<usize> = (0..names.len())
        .filter(|&i| within_one_edit(&names[i], &word))
        .collect();
    match near[..] {
        [i] => Some(i),
        _ => None,
    }
}

/// A name as mentions compare it: lower case, `-` read as `_`.
fn fold(name: &str) -> String {
    name.to_lowercase().replace('-', "_")
}

/// Whether `a` and `b` differ by at most one inserted, deleted or replaced character.
fn within_one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let prefix = short.iter().zip(&long).take_while(|(x, y)| x == y).count();
    if prefix == short.len() {
        return true;
    }
    if short.len() == long.len() {
        short[prefix + 1..] == long[prefix + 1..]
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

/// The `chosen` tools of a `retrieve` server as themselves, named by `names` (the server's
/// meta-functions are declared with the stable part of the set, before every retrieved tool).
pub(crate) fn retrieved_declarations(
    server: &str,
    tools: &[ToolInfo],
    chosen: &[Retrieved],
    names: &DirectNames,
) -> Vec<FunctionDeclaration> {
    chosen
        .iter()
        .filter_map(|r| {
            let tool = tools.iter().find(|t| t.name == r.tool)?;
            let name = names.name_of(&DirectTool::new(server, r.tool.clone()))?;
            Some(direct_declaration(name, tool))
        })
        .collect()
}

/// `chosen` with the function names of `names` (a tool without one is left out: it is not
/// declared).
pub(crate) fn named(chosen: &[Retrieved], names: &DirectNames) -> Vec<Retrieved> {
    chosen
        .iter()
        .filter_map(|r| {
            let name = names.name_of(&DirectTool::new(&r.server, r.tool.clone()))?;
            Some(Retrieved {
                function: name.to_owned(),
                ..r.clone()
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "retrieve_tests.rs"]
mod tests;
