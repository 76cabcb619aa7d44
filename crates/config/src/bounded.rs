//! Bounded reads of the files coyote takes from the user: configuration
//! (`mcp.json`, `config.yaml`, roles, agents, macros) at most [`MAX_CONFIG_FILE_BYTES`],
//! session files at most [`MAX_SESSION_FILE_BYTES`], only regular files — a FIFO, a device
//! such as `/dev/zero` or a directory behind the path (or a symlink) is refused before it is
//! opened, so a read never blocks or runs forever — and YAML nested at most [`MAX_YAML_DEPTH`]
//! levels, checked by a linear scan before the YAML parser sees the text.
//!
//! The limits travel as an [`io::Error`] wrapping [`ReadLimit`], so every existing "cannot read"
//! error keeps its variant; [`read_fix`] picks the fix to print for it.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

/// Largest configuration file read: 4 MiB.
pub const MAX_CONFIG_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Largest session file read: 64 MiB.
pub const MAX_SESSION_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Deepest YAML nesting accepted (block and flow collections together).
pub const MAX_YAML_DEPTH: usize = 64;

/// A file coyote refuses to read.
#[derive(Debug, thiserror::Error)]
pub enum ReadLimit {
    #[error(
        "it is {what}, not a regular file; coyote reads it only from a regular file (replace \
         it, or the symlink's target, with one)"
    )]
    /// A FIFO, a device, a socket or a directory.
    NotRegularFile {
        /// What it is, as in "a FIFO".
        what: &'static str,
    },
    #[error("it is larger than {} (the limit for {purpose}); shrink it", mib(*limit))]
    /// Longer than the limit of its kind.
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
        /// What the limit is for ("configuration files").
        purpose: &'static str,
    },
}

/// What a file is, for the size limit's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileClass {
    Config,
    Session,
}

impl FileClass {
    fn limit(self) -> u64 {
        match self {
            FileClass::Config => MAX_CONFIG_FILE_BYTES,
            FileClass::Session => MAX_SESSION_FILE_BYTES,
        }
    }

    fn purpose(self) -> &'static str {
        match self {
            FileClass::Config => "configuration files",
            FileClass::Session => "session files",
        }
    }
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes / (1024 * 1024))
}

/// Reads `path` whole, refusing special files and files over the limit of `class`. A missing
/// file is the usual `NotFound` error.
pub(crate) fn read_bounded(path: &Path, class: FileClass) -> io::Result<Vec<u8>> {
    let kind = fs::metadata(path)?.file_type();
    if !kind.is_file() {
        return Err(io::Error::other(ReadLimit::NotRegularFile {
            what: describe(kind),
        }));
    }
    let limit = class.limit();
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::other(ReadLimit::TooLarge {
            limit,
            purpose: class.purpose(),
        }));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text (`InvalidData` otherwise, like `fs::read_to_string`).
pub(crate) fn read_bounded_text(path: &Path, class: FileClass) -> io::Result<String> {
    String::from_utf8(read_bounded(path, class)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

fn describe(kind: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

/// The fix to print after a read error: `default`, unless the error is a [`ReadLimit`] whose
/// message already says what to do.
pub(crate) fn read_fix<'a>(source: &io::Error, default: &'a str) -> &'a str {
    let limited = source
        .get_ref()
        .is_some_and(|inner| inner.downcast_ref::<ReadLimit>().is_some());
    if limited { "" } else { default }
}

/// The 1-based line where YAML `text` nests deeper than [`MAX_YAML_DEPTH`], if it does.
///
/// A linear over-estimate, never an under-estimate: each distinct indentation opens a level,
/// `- ` items on one line open one each, and `[`/`{` outside quotes and comments open one
/// each. The content of block scalars (`|`, `>`) is skipped.
pub(crate) fn yaml_too_deep(text: &str) -> Option<usize> {
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    let mut scalar_parent: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        if let Some(parent) = scalar_parent {
            if body.is_empty() || indent > parent {
                continue;
            }
            scalar_parent = None;
        }
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let mut depth = flow;
        if flow == 0 {
            while indents.last().is_some_and(|top| *top > indent) {
                indents.pop();
            }
            if indents.last() != Some(&indent) {
                indents.push(indent);
            }
            let dashes = body.split(' ').take_while(|token| *token == "-").count();
            depth = indents.len() + dashes.saturating_sub(1);
        }
        let (line_max, line_end) = flow_depth(body, flow);
        flow = line_end;
        if depth.max(line_max + indents.len()) > MAX_YAML_DEPTH {
            return Some(index + 1);
        }
        if flow == 0 && opens_block_scalar(body) {
            scalar_parent = Some(indent);
        }
    }
    None
}

/// The deepest flow nesting reached on `line`, starting at `depth`, and the depth at its end.
fn flow_depth(line: &str, mut depth: usize) -> (usize, usize) {
    let mut max = depth;
    let mut quote: Option<u8> = None;
    let mut previous = b' ';
    let mut bytes = line.bytes();
    while let Some(b) = bytes.next() {
        match (quote, b) {
            (Some(b'"'), b'\\') => {
                bytes.next();
            }
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'#') if previous == b' ' => break,
            (None, b'[' | b'{') => {
                depth += 1;
                max = max.max(depth);
            }
            (None, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        previous = b;
    }
    (max, depth)
}

/// Whether a block line ends in a block scalar indicator (`key: |`, `- >-`, `|2+`).
fn opens_block_scalar(body: &str) -> bool {
    let code = match body.find(" #") {
        Some(i) => &body[..i],
        None => body,
    };
    let last = code.trim_end().rsplit([' ', ':']).next().unwrap_or("");
    let mut chars = last.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.all(|c| matches!(c, '-' | '+') || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(levels: usize) -> String {
        (0..levels)
            .map(|level| format!("{}k{level}:\n", "  ".repeat(level)))
            .collect()
    }

    #[test]
    fn depth_counts_indentation_dashes_and_flow() {
        assert_eq!(yaml_too_deep(&block(64)), None);
        assert_eq!(yaml_too_deep(&block(65)), Some(65));
        let flow = |n: usize| format!("k: {}{}\n", "[".repeat(n), "]".repeat(n));
        assert_eq!(yaml_too_deep(&flow(63)), None);
        assert_eq!(yaml_too_deep(&flow(64)), Some(1));
        let dashes = format!("{}x\n", "- ".repeat(65));
        assert_eq!(yaml_too_deep(&dashes), Some(1));
        // Brackets in quotes and comments, and a block scalar's content, are not nesting.
        let quiet = format!(
            "a: \"{0}\"\nb: '{0}' # {0}\nc: |\n  {0}\n{1}\nd: 1\n",
            "[".repeat(100),
            (1..80)
                .map(|n| format!("{}x\n", " ".repeat(n + 2)))
                .collect::<String>()
        );
        assert_eq!(yaml_too_deep(&quiet), None);
    }

    #[test]
    fn ordinary_config_is_shallow() {
        let text = "model: openai:gpt-4o\nclients:\n  - type: openai\n    models:\n      - name: x\n        max_tokens: 5\nenabled_mcp_servers: [a, b]\n";
        assert_eq!(yaml_too_deep(text), None);
    }
}
