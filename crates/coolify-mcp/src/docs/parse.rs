//! `llms.txt` → doc entries, the same reading as the reference's `parseDocsIndex`: link
//! items (`- [Title](/path): description`) are pages; bold items, plain list items and
//! headings are section labels for the links after them.

/// One page of the docs index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocEntry {
    /// The page title (the link text).
    pub title: String,
    /// The absolute page URL.
    pub url: String,
    /// The one-line description after the link, or empty.
    pub description: String,
    /// The section label the link sits under, or empty.
    pub section: String,
}

const DOCS_BASE_URL: &str = "https://coolify.io/docs";

/// JS `\s` (whitespace and line terminators, including the Unicode spaces).
pub fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// The entries of an index, in file order.
pub fn parse(text: &str) -> Vec<DocEntry> {
    let mut entries = Vec::new();
    let mut section = String::new();
    for line in text.split('\n') {
        if let Some((title, path, description)) = link_item(line) {
            entries.push(DocEntry {
                title: title.trim_matches(is_js_space).to_string(),
                url: build_url(path.trim_matches(is_js_space)),
                description: description.trim_matches(is_js_space).to_string(),
                section: section.clone(),
            });
            continue;
        }
        if let Some(label) = section_label(line) {
            section = label.to_string();
        }
    }
    entries
}

/// `^\s*-\s*\[([^\]]+)\]\(([^)\s]+)\)(?::\s*(.*))?\s*$` → (title, path, description).
fn link_item(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.trim_start_matches(is_js_space).strip_prefix('-')?;
    let rest = rest.trim_start_matches(is_js_space).strip_prefix('[')?;
    let close = rest.find(']')?;
    let (title, rest) = (&rest[..close], &rest[close + 1..]);
    if title.is_empty() {
        return None;
    }
    let rest = rest.strip_prefix('(')?;
    let end = rest.find(|c: char| c == ')' || is_js_space(c))?;
    let (path, rest) = (&rest[..end], &rest[end..]);
    let rest = rest.strip_prefix(')')?;
    if path.is_empty() {
        return None;
    }
    match rest.strip_prefix(':') {
        Some(desc) => {
            let desc = desc.trim_start_matches(is_js_space);
            // `(.*)` stops at a line terminator; what follows must be whitespace.
            let cut = desc
                .find(['\r', '\u{2028}', '\u{2029}'])
                .unwrap_or(desc.len());
            desc[cut..]
                .chars()
                .all(is_js_space)
                .then_some((title, path, &desc[..cut]))
        }
        None => rest.chars().all(is_js_space).then_some((title, path, "")),
    }
}

/// A bold item, a plain list item or a heading → its label.
fn section_label(line: &str) -> Option<&str> {
    bold_item(line)
        .or_else(|| plain_item(line))
        .or_else(|| heading(line))
}

/// `^\s*-\s*\*\*(.+?)\*\*\s*$`.
fn bold_item(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(is_js_space).strip_prefix('-')?;
    let rest = rest.trim_start_matches(is_js_space).strip_prefix("**")?;
    let label = rest.trim_end_matches(is_js_space).strip_suffix("**")?;
    (!label.is_empty()).then_some(label)
}

/// `^\s*-\s+([^[\s].*?)\s*$`.
fn plain_item(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(is_js_space).strip_prefix('-')?;
    let label = rest.trim_start_matches(is_js_space);
    if label.len() == rest.len() || label.starts_with('[') {
        return None;
    }
    let label = label.trim_end_matches(is_js_space);
    (!label.is_empty()).then_some(label)
}

/// `^#+\s+(.+?)\s*$`.
fn heading(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches('#');
    if rest.len() == line.len() {
        return None;
    }
    let label = rest.trim_start_matches(is_js_space);
    if label.len() == rest.len() {
        return None;
    }
    let label = label.trim_end_matches(is_js_space);
    (!label.is_empty()).then_some(label)
}

fn build_url(path: &str) -> String {
    if path.starts_with("http://") || path.starts_with("https://") {
        return path.to_string();
    }
    if path.starts_with("/docs/") || path == "/docs" {
        return format!("https://coolify.io{path}");
    }
    let slash = if path.starts_with('/') { "" } else { "/" };
    format!("{DOCS_BASE_URL}{slash}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_links_sections_and_urls_like_the_reference() {
        let text = "# Docs\n\n- [Home](/): Welcome\n\n- **Get Started**\n- [Choose](/choose-your-path): Decide.  \n- Plain label\n  - [Abs](https://x.test/a)\n- [Docs](/docs/x): d\n- [Broken] (x)\n";
        let e = parse(text);
        let got: Vec<(&str, &str, &str, &str)> = e
            .iter()
            .map(|d| {
                (
                    d.title.as_str(),
                    d.url.as_str(),
                    d.description.as_str(),
                    d.section.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("Home", "https://coolify.io/docs/", "Welcome", "Docs"),
                (
                    "Choose",
                    "https://coolify.io/docs/choose-your-path",
                    "Decide.",
                    "Get Started"
                ),
                ("Abs", "https://x.test/a", "", "Plain label"),
                ("Docs", "https://coolify.io/docs/x", "d", "Plain label"),
            ]
        );
    }

    #[test]
    fn the_bundled_index_has_the_reference_entry_count() {
        assert_eq!(parse(super::super::BUNDLED_INDEX).len(), 845);
    }
}
