//! The quote-aware word split the completer reads a line with: each word's text (quotes
//! removed) and byte range, or nothing when the line ends inside quotes.

/// A word of the line with its byte range (quotes removed from `text`).
#[derive(Debug, Clone)]
pub(super) struct Word {
    pub(super) text: String,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Quote-aware word split; `None` when the line ends inside quotes or after a lone `\`
/// (nothing sensible to complete there).
pub(super) fn split_words(line: &str) -> Option<Vec<Word>> {
    let mut words = Vec::new();
    let mut current: Option<Word> = None;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        let end = i + c.len_utf8();
        if quote.is_none() && !escaped && c.is_whitespace() {
            words.extend(current.take());
            continue;
        }
        let word = current.get_or_insert_with(|| Word {
            text: String::new(),
            start: i,
            end,
        });
        word.end = end;
        if escaped {
            escaped = false;
            word.text.push(c);
            continue;
        }
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"') | None, '\\') => escaped = true,
            (Some(_), c) => word.text.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, c) => word.text.push(c),
        }
    }
    if quote.is_some() || escaped {
        return None;
    }
    words.extend(current);
    Some(words)
}

/// A value as `.prompt` reads it back: quoted when it holds whitespace or quotes.
pub fn quote_value(value: &str) -> String {
    if value.is_empty()
        || value.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '\\')
    {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        format!("\"{escaped}\"")
    } else {
        value.to_owned()
    }
}
