//! What one source file says about the module tree: the `mod` declarations it makes (with
//! `#[path]` and inline `mod name { … }` blocks), and every `crate::…`, `super::…` or
//! `self::…` path it writes — in a `use` tree (flattened, one path per leaf) or inline — with
//! the module it is written in. `#[cfg(test)]` items are skipped whole.

use std::path::{Path, PathBuf};

use super::tokens::{Tok, Token};

/// One file of the module tree.
pub(super) struct ModFile {
    pub(super) path: PathBuf,
    /// Module path of the file's top (`[]` for the crate root).
    pub(super) module: Vec<String>,
    /// Children are looked up in this directory (`lib.rs`/`mod.rs`: its own directory;
    /// `foo.rs`: `foo/`).
    pub(super) child_dir: PathBuf,
}

/// A path found in a file, before resolution.
pub(super) struct RawPath {
    /// Module the path is written in.
    pub(super) module: Vec<String>,
    pub(super) segments: Vec<String>,
    pub(super) line: usize,
}

/// A `mod` declaration.
pub(super) struct Child {
    /// The module it is declared in (the file's, or an inline module of it).
    pub(super) parent: Vec<String>,
    pub(super) name: String,
    pub(super) body: ChildBody,
}

/// Where a declared module's items are.
pub(super) enum ChildBody {
    /// `mod name { … }`: in the declaring file (its paths are part of that file's scan).
    Inline,
    /// `mod name;`: in `name.rs` or `name/mod.rs`.
    Conventional,
    /// `#[path = "…"] mod name;`: in this file (already joined to its base directory).
    PathAttribute(PathBuf),
}

/// What one file contributes.
#[derive(Default)]
pub(super) struct FileScan {
    pub(super) paths: Vec<RawPath>,
    pub(super) children: Vec<Child>,
}

/// Marks the alias of a `use … as name` leaf in the segments (not a valid identifier start).
pub(super) const ALIAS: &str = "=";

/// Bracket depth and the inline modules open at each level.
struct Scope {
    /// One entry per open `{`: the inline module it opened, if any.
    braces: Vec<Option<String>>,
    file_module: Vec<String>,
}

impl Scope {
    fn module(&self) -> Vec<String> {
        let mut module = self.file_module.clone();
        module.extend(self.braces.iter().flatten().cloned());
        module
    }
}

/// Outer attributes waiting for the item they apply to.
#[derive(Default)]
struct Pending {
    cfg_test: bool,
    path: Option<String>,
}

fn ident(tokens: &[Token], i: usize) -> Option<&str> {
    match tokens.get(i).map(|t| &t.tok) {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

fn punct(tokens: &[Token], i: usize, c: char) -> bool {
    matches!(tokens.get(i).map(|t| &t.tok), Some(Tok::Punct(p)) if *p == c)
}

fn path_sep(tokens: &[Token], i: usize) -> bool {
    matches!(tokens.get(i).map(|t| &t.tok), Some(Tok::PathSep))
}

/// Keywords that can start an item (after attributes and visibility).
const ITEM_KEYWORDS: &[&str] = &[
    "mod",
    "use",
    "fn",
    "impl",
    "struct",
    "enum",
    "union",
    "trait",
    "type",
    "const",
    "static",
    "async",
    "unsafe",
    "extern",
    "macro_rules",
];

pub(super) fn scan_file(tokens: &[Token], file: &ModFile) -> FileScan {
    let mut scan = FileScan::default();
    let mut scope = Scope {
        braces: Vec::new(),
        file_module: file.module.clone(),
    };
    let mut pending = Pending::default();
    let mut i = 0;
    while i < tokens.len() {
        // Attributes: `#[…]` (outer, kept for the next item) and `#![…]` (inner, ignored).
        if punct(tokens, i, '#') {
            let inner = punct(tokens, i + 1, '!');
            let open = if inner { i + 2 } else { i + 1 };
            if punct(tokens, open, '[') {
                let close = matching(tokens, open);
                if !inner {
                    read_attribute(&tokens[open + 1..close], &mut pending);
                }
                i = close + 1;
                continue;
            }
        }
        // Visibility keeps the attributes for the item it introduces.
        if ident(tokens, i) == Some("pub") {
            i += 1;
            if punct(tokens, i, '(') {
                i = matching(tokens, i) + 1;
            }
            continue;
        }
        let attrs = std::mem::take(&mut pending);
        if attrs.cfg_test && starts_item(tokens, i) {
            i = skip_item(tokens, i);
            continue;
        }
        match &tokens[i].tok {
            Tok::Punct('{') => {
                let inline = (i >= 2 && ident(tokens, i - 2) == Some("mod"))
                    .then(|| ident(tokens, i - 1).map(str::to_owned))
                    .flatten();
                if let Some(name) = &inline {
                    scan.children.push(Child {
                        parent: scope.module(),
                        name: name.clone(),
                        body: ChildBody::Inline,
                    });
                }
                scope.braces.push(inline);
            }
            Tok::Punct('}') => {
                scope.braces.pop();
            }
            Tok::Ident(word) if word == "mod" => {
                if let Some(name) = ident(tokens, i + 1)
                    && punct(tokens, i + 2, ';')
                {
                    let body = match attrs.path {
                        Some(p) => ChildBody::PathAttribute(attr_base(file, &scope).join(p)),
                        None => ChildBody::Conventional,
                    };
                    scan.children.push(Child {
                        parent: scope.module(),
                        name: name.to_owned(),
                        body,
                    });
                    i += 3;
                    continue;
                }
            }
            // `use<'a>` (precise capturing) is not a declaration.
            Tok::Ident(word) if word == "use" && !punct(tokens, i + 1, '<') => {
                let end = statement_end(tokens, i + 1);
                let module = scope.module();
                let mut tree = UseTree {
                    tokens: &tokens[i + 1..end],
                    pos: 0,
                    out: Vec::new(),
                };
                tree.tree(Vec::new());
                for (segments, line) in tree.out {
                    scan.paths.push(RawPath {
                        module: module.clone(),
                        segments,
                        line,
                    });
                }
                i = end;
                continue;
            }
            // Inline `self::…` never leaves the module it is written in.
            Tok::Ident(word)
                if matches!(word.as_str(), "crate" | "super") && path_sep(tokens, i + 1) =>
            {
                let (segments, next) = inline_path(tokens, i);
                scan.paths.push(RawPath {
                    module: scope.module(),
                    segments,
                    line: tokens[i].line,
                });
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    scan
}

/// The directory a `#[path]` value is relative to: the file's own directory, or for an
/// attribute inside inline modules, the children's directory plus those modules.
fn attr_base(file: &ModFile, scope: &Scope) -> PathBuf {
    let inline: Vec<&String> = scope.braces.iter().flatten().collect();
    if inline.is_empty() {
        file.path.parent().unwrap_or(Path::new("")).to_path_buf()
    } else {
        inline
            .into_iter()
            .fold(file.child_dir.clone(), |d, m| d.join(m))
    }
}

/// Reads `cfg(test)` / `cfg(all(…, test, …))` and `path = "…"`.
fn read_attribute(body: &[Token], pending: &mut Pending) {
    match (ident(body, 0), body.get(1).map(|t| &t.tok), body.get(2)) {
        (Some("cfg"), Some(Tok::Punct('(')), _) => {
            let test_only = match ident(body, 2) {
                Some("test") => body.len() == 4,
                Some("all") => (3..body.len()).any(|j| ident(body, j) == Some("test")),
                _ => false,
            };
            pending.cfg_test |= test_only;
        }
        (
            Some("path"),
            Some(Tok::Punct('=')),
            Some(Token {
                tok: Tok::Str(p), ..
            }),
        ) => {
            pending.path = Some(p.clone());
        }
        _ => {}
    }
}

/// Whether an item starts at `i` (visibility already skipped).
fn starts_item(tokens: &[Token], i: usize) -> bool {
    ident(tokens, i).is_some_and(|w| ITEM_KEYWORDS.contains(&w))
}

/// The index after the item starting at `i`: after its `;`, or after the block its first
/// top-level `{` opens.
fn skip_item(tokens: &[Token], mut i: usize) -> usize {
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct(';') => return i + 1,
            Tok::Punct('{') => return matching(tokens, i) + 1,
            Tok::Punct('(' | '[') => i = matching(tokens, i) + 1,
            _ => i += 1,
        }
    }
    i
}

/// The index of the bracket closing the one at `open` (or the last token).
fn matching(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, token) in tokens.iter().enumerate().skip(open) {
        match token.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    tokens.len().saturating_sub(1)
}

/// The index of the `;` ending a `use` (or the end of input).
fn statement_end(tokens: &[Token], from: usize) -> usize {
    (from..tokens.len())
        .find(|&j| punct(tokens, j, ';'))
        .unwrap_or(tokens.len())
}

/// `crate::a::b` written inline: its segments, and the index after it.
fn inline_path(tokens: &[Token], start: usize) -> (Vec<String>, usize) {
    let mut segments = Vec::new();
    let mut i = start;
    while let Some(word) = ident(tokens, i) {
        segments.push(word.to_owned());
        if !(path_sep(tokens, i + 1) && ident(tokens, i + 2).is_some()) {
            return (segments, i + 1);
        }
        i += 2;
    }
    (segments, i)
}

/// Flattens a `use` tree into one path per leaf (`use crate::{a, b::{c, d as e}, f::*}` →
/// `crate::a`, `crate::b::c`, `crate::b::d` + alias `e`, `crate::f::*`).
struct UseTree<'a> {
    tokens: &'a [Token],
    pos: usize,
    out: Vec<(Vec<String>, usize)>,
}

impl UseTree<'_> {
    fn tree(&mut self, mut prefix: Vec<String>) {
        let line = self.tokens.get(self.pos).map_or(0, |t| t.line);
        // A leading `::` names an external crate: nothing of ours.
        if prefix.is_empty() && path_sep(self.tokens, self.pos) {
            return;
        }
        loop {
            match self.tokens.get(self.pos).map(|t| &t.tok) {
                Some(Tok::Punct('{')) => {
                    self.pos += 1;
                    while !punct(self.tokens, self.pos, '}') && self.pos < self.tokens.len() {
                        self.tree(prefix.clone());
                        if punct(self.tokens, self.pos, ',') {
                            self.pos += 1;
                        }
                    }
                    self.pos += 1;
                    return;
                }
                Some(Tok::Punct('*')) => {
                    self.pos += 1;
                    prefix.push("*".to_owned());
                    self.out.push((prefix, line));
                    return;
                }
                Some(Tok::Punct('$')) => self.pos += 1, // `$crate`
                Some(Tok::Ident(word)) => {
                    prefix.push(word.clone());
                    self.pos += 1;
                    if path_sep(self.tokens, self.pos) {
                        self.pos += 1;
                        continue;
                    }
                    if ident(self.tokens, self.pos) == Some("as") {
                        if let Some(alias) = ident(self.tokens, self.pos + 1) {
                            prefix.push(format!("{ALIAS}{alias}"));
                        }
                        self.pos += 2;
                    }
                    self.out.push((prefix, line));
                    return;
                }
                _ => {
                    // Unexpected token: skip it so a malformed tree never loops.
                    self.pos += 1;
                    return;
                }
            }
        }
    }
}
