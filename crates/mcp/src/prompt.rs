//! MCP prompts for people and models.
//!
//! - [`parse_kv_args`]: the `.prompt server name key=value key="two words"` argument line —
//!   shell-like quoting (`"…"` with `\"`/`\\` escapes, `'…'` literal, `\x` outside quotes).
//! - [`missing_required`] / [`PromptArgsError`]: the declared-required check, listing every
//!   missing argument at once.
//! - [`flatten`]: a prompt result becomes ONE text block in which every message — even a single
//!   one — starts with an unconditional `[user]` / `[assistant]` label line. Content is copied
//!   verbatim (a line starting with `!` or `.` stays text; callers submit it as chat input and
//!   never through a command parser), embedded resources go through `render`, images are
//!   spilled. Assistant turns are never synthesised from prompt content.

use std::collections::BTreeMap;

use crate::content::{ContentItem, PromptResult, ResourceContent};
use crate::render::{
    DecodedBlob, ReadOptions, RenderContext, SpillObject, decode_blob, render_text,
};

/// A malformed `key=value` line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KvParseError {
    /// A quote is never closed.
    #[error("unterminated {quote} quote starting at byte {at}; close it with a matching {quote}")]
    UnterminatedQuote {
        /// The quote character, `"` or `'`.
        quote: char,
        /// Byte offset of the opening quote.
        at: usize,
    },
    /// The line ends in an escape with nothing to escape.
    #[error("the line ends with a lone `\\`; escape it as `\\\\`")]
    TrailingBackslash,
    /// A word has no `=`.
    #[error("{token:?} is not key=value; write it as name=value (quote values with spaces)")]
    MissingEquals {
        /// The word as written.
        token: String,
    },
    /// The key is empty or holds characters keys may not.
    #[error(
        "{token:?} has an invalid key; keys use letters, digits, `_`, `-` and `.`, then `=` and \
         the value"
    )]
    BadKey {
        /// The word as written.
        token: String,
    },
    /// The same key appears twice.
    #[error("argument {key:?} is given twice; give each argument once")]
    DuplicateKey {
        /// The repeated key.
        key: String,
    },
}

/// Parses `a=1 title="two words" path='C:\x'` into an ordered map.
pub fn parse_kv_args(line: &str) -> Result<BTreeMap<String, String>, KvParseError> {
    parse_kv_list(split_words(line)?)
}

/// Parses already-split `key=value` words (CLI argv); the value is everything after the first
/// `=`, verbatim.
pub fn parse_kv_list<I, S>(words: I) -> Result<BTreeMap<String, String>, KvParseError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut map = BTreeMap::new();
    for word in words {
        let word = word.as_ref();
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| KvParseError::MissingEquals { token: word.into() })?;
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Err(KvParseError::BadKey { token: word.into() });
        }
        if map.insert(key.to_string(), value.to_string()).is_some() {
            return Err(KvParseError::DuplicateKey { key: key.into() });
        }
    }
    Ok(map)
}

/// Shell-like word splitting (no variables, no globbing).
fn split_words(line: &str) -> Result<Vec<String>, KvParseError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\\' => {
                let (_, next) = chars.next().ok_or(KvParseError::TrailingBackslash)?;
                word.push(next);
                in_word = true;
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, c)) => word.push(c),
                        None => return Err(KvParseError::UnterminatedQuote { quote: '\'', at }),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, e @ ('"' | '\\'))) => word.push(e),
                            Some((_, 'n')) => word.push('\n'),
                            Some((_, 't')) => word.push('\t'),
                            Some((_, other)) => {
                                word.push('\\');
                                word.push(other);
                            }
                            None => return Err(KvParseError::UnterminatedQuote { quote: '"', at }),
                        },
                        Some((_, c)) => word.push(c),
                        None => return Err(KvParseError::UnterminatedQuote { quote: '"', at }),
                    }
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// One declared prompt argument, as far as the required check needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredArgument<'a> {
    /// The argument's name.
    pub name: &'a str,
    /// Its description, quoted in the error that says it is missing.
    pub description: Option<&'a str>,
    /// Whether the prompt needs it.
    pub required: bool,
}

/// Missing required arguments, or arguments the prompt does not declare.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptArgsError {
    /// Required arguments were not given.
    #[error(
        "prompt {prompt:?} needs {}; pass them in `arguments` (string values)",
        missing.iter().map(|(n, d)| match d {
            Some(d) => format!("`{n}` ({d})"),
            None => format!("`{n}`"),
        }).collect::<Vec<_>>().join(", ")
    )]
    MissingRequired {
        /// The prompt's name.
        prompt: String,
        /// Each missing argument with its description, in declaration order.
        missing: Vec<(String, Option<String>)>,
    },
}

/// The required arguments of `declared` absent from `provided` (in declaration order).
pub fn missing_required<'a>(
    provided: &BTreeMap<String, String>,
    declared: &[DeclaredArgument<'a>],
) -> Vec<DeclaredArgument<'a>> {
    declared
        .iter()
        .filter(|a| a.required && !provided.contains_key(a.name))
        .cloned()
        .collect()
}

/// `Ok` when every required argument is present, else the teaching error listing them.
pub fn check_required(
    prompt: &str,
    provided: &BTreeMap<String, String>,
    declared: &[DeclaredArgument<'_>],
) -> Result<(), PromptArgsError> {
    let missing = missing_required(provided, declared);
    if missing.is_empty() {
        return Ok(());
    }
    Err(PromptArgsError::MissingRequired {
        prompt: prompt.to_string(),
        missing: missing
            .into_iter()
            .map(|a| (a.name.to_string(), a.description.map(str::to_string)))
            .collect(),
    })
}

/// Flattens a prompt result into one labelled text block. Never fails: content that
/// cannot be rendered becomes a bracketed note in place.
pub fn flatten(result: &PromptResult, ctx: &RenderContext<'_>) -> String {
    let mut out = String::new();
    for (i, message) in result.messages.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push('[');
        out.push_str(message.role.label());
        out.push_str("]\n");
        out.push_str(&content_text(&message.content, ctx));
        out.push('\n');
    }
    out
}

fn content_text(content: &ContentItem, ctx: &RenderContext<'_>) -> String {
    match content {
        ContentItem::Text { text, .. } => text.clone(),
        ContentItem::Image {
            data_base64,
            mime_type,
        } => binary_note("image", data_base64, mime_type, None, ctx),
        ContentItem::Audio {
            data_base64,
            mime_type,
        } => binary_note("audio", data_base64, mime_type, None, ctx),
        ContentItem::ResourceLink {
            uri,
            name,
            description,
            ..
        } => {
            let mut s = format!("[resource link: {uri}");
            if let Some(name) = name {
                s.push_str(&format!(" ({name})"));
            }
            if let Some(d) = description {
                s.push_str(&format!(" — {d}"));
            }
            s.push(']');
            s
        }
        ContentItem::Resource { resource } => match resource {
            ResourceContent::Text {
                uri,
                mime_type,
                text,
            } => {
                let page = render_text(uri, mime_type.as_deref(), text, &ReadOptions::default());
                let mut s = format!("[resource: {uri}]\n{}", page.text);
                if let Some(next) = page.next_offset {
                    s.push_str(&truncation_note(next, page.total_bytes));
                }
                s
            }
            ResourceContent::Blob {
                uri,
                mime_type,
                blob_base64,
            } => binary_note("resource", blob_base64, mime_type, Some(uri), ctx),
            ResourceContent::Invalid { uri, reason } => {
                format!(
                    "[invalid embedded resource {}: {reason}]",
                    uri.as_deref().unwrap_or("?")
                )
            }
        },
        ContentItem::Invalid { index, reason } => {
            format!("[invalid content block {index}: {reason}]")
        }
    }
}

fn truncation_note(next: usize, total: usize) -> String {
    format!(
        "\n[truncated at {next} of {total} bytes (DEFAULT_MAX_BYTES = {}); read the rest with \
         offset {next}]",
        crate::render::DEFAULT_MAX_BYTES
    )
}

fn binary_note(
    kind: &str,
    data: &str,
    mime_type: &Option<String>,
    uri: Option<&String>,
    ctx: &RenderContext<'_>,
) -> String {
    match decode_blob(data, mime_type.as_deref(), ctx.server, ctx.spill) {
        Ok(DecodedBlob::Text(text)) => {
            let page = crate::render::page_text(&text, 0, crate::render::DEFAULT_MAX_BYTES);
            let mut s = match uri {
                Some(uri) => format!("[{kind}: {uri}]\n{}", page.text),
                None => page.text.to_string(),
            };
            if let Some(next) = page.next_offset {
                s.push_str(&truncation_note(next, page.total_bytes));
            }
            s
        }
        Ok(DecodedBlob::Spilled(file)) => {
            let object = SpillObject::new(&file, uri.cloned(), mime_type.clone());
            format!(
                "[{kind} saved to a file: {}]",
                serde_json::to_string(&object).unwrap_or_default()
            )
        }
        Err(e) => format!("[{kind} not shown: {e}]"),
    }
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
