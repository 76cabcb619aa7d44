//! A small Rust tokenizer for the structure checks: enough to find paths, `use` trees, `mod`
//! declarations and attributes, robust to everything else. Comments (line, nested block, doc)
//! are dropped; string, byte-string, raw-string and char literals become one token each, so
//! text inside them is never read as a path; lifetimes and labels are not mistaken for chars.
//! Each token carries its 1-based line.

/// One token of Rust source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword (`r#type` is `type`).
    Ident(String),
    /// `::`.
    PathSep,
    /// A string literal's contents as written (escapes not processed).
    Str(String),
    /// A char or byte literal, a number, or a lifetime: never part of a path.
    Other,
    /// Any other single character (`{`, `;`, `#`, `$`, …).
    Punct(char),
}

/// A token and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// The line it starts on (1-based).
    pub line: usize,
}

/// Tokenizes `src`. Never fails: unterminated literals and comments run to the end of input.
pub fn tokenize(src: &str) -> Vec<Token> {
    Lexer {
        chars: src.chars().collect(),
        pos: 0,
        line: 1,
        out: Vec::new(),
    }
    .run()
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    out: Vec<Token>,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    /// Advances one char, counting lines.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn push(&mut self, tok: Tok, line: usize) {
        self.out.push(Token { tok, line });
    }

    fn run(mut self) -> Vec<Token> {
        while let Some(c) = self.peek(0) {
            let line = self.line;
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                '/' if self.peek(1) == Some('/') => self.line_comment(),
                '/' if self.peek(1) == Some('*') => self.block_comment(),
                '"' => {
                    self.bump();
                    let text = self.quoted();
                    self.push(Tok::Str(text), line);
                }
                '\'' => self.quote_or_lifetime(line),
                ':' if self.peek(1) == Some(':') => {
                    self.pos += 2;
                    self.push(Tok::PathSep, line);
                }
                c if c.is_ascii_digit() => {
                    while self.peek(0).is_some_and(is_ident_continue) {
                        self.bump();
                    }
                    self.push(Tok::Other, line);
                }
                c if is_ident_start(c) => self.ident_or_prefixed_literal(line),
                c => {
                    self.bump();
                    self.push(Tok::Punct(c), line);
                }
            }
        }
        self.out
    }

    fn line_comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                return;
            }
            self.bump();
        }
    }

    /// Block comments nest in Rust.
    fn block_comment(&mut self) {
        self.pos += 2;
        let mut depth = 1usize;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (None, _) => return,
                (Some('/'), Some('*')) => {
                    self.pos += 2;
                    depth += 1;
                }
                (Some('*'), Some('/')) => {
                    self.pos += 2;
                    depth -= 1;
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// The rest of a `"…"` literal after its opening quote; backslash escapes are skipped over.
    fn quoted(&mut self) -> String {
        let mut text = String::new();
        while let Some(c) = self.bump() {
            match c {
                '"' => break,
                '\\' => {
                    text.push(c);
                    if let Some(escaped) = self.bump() {
                        text.push(escaped);
                    }
                }
                c => text.push(c),
            }
        }
        text
    }

    /// The rest of a raw string after its `r`: `#`s, a quote, then up to a quote followed by
    /// as many `#`s.
    fn raw_quoted(&mut self) -> String {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            self.bump();
            hashes += 1;
        }
        self.bump(); // the opening quote
        let mut text = String::new();
        while let Some(c) = self.bump() {
            if c == '"' && (0..hashes).all(|i| self.peek(i) == Some('#')) {
                self.pos += hashes;
                break;
            }
            text.push(c);
        }
        text
    }

    /// `'a'`, `'\n'`, `'\u{1F600}'` are chars; `'a` and `'label` are lifetimes.
    fn quote_or_lifetime(&mut self, line: usize) {
        self.bump();
        if self.peek(0) == Some('\\') {
            self.bump();
            self.bump();
            while let Some(c) = self.bump() {
                if c == '\'' {
                    break;
                }
            }
        } else if self.peek(1) == Some('\'') {
            self.pos += 2;
        } else {
            while self.peek(0).is_some_and(is_ident_continue) {
                self.bump();
            }
        }
        self.push(Tok::Other, line);
    }

    /// An identifier, or a literal with a letter prefix: `b"…"`, `b'…'`, `r"…"`, `r#"…"#`,
    /// `br"…"`, `c"…"`, `cr#"…"#`; `r#ident` is the identifier `ident`.
    fn ident_or_prefixed_literal(&mut self, line: usize) {
        let start = self.pos;
        while self.peek(0).is_some_and(is_ident_continue) {
            self.bump();
        }
        let word: String = self.chars[start..self.pos].iter().collect();
        let raw_string_follows = |lexer: &Lexer| {
            let mut i = 0;
            while lexer.peek(i) == Some('#') {
                i += 1;
            }
            lexer.peek(i) == Some('"')
        };
        match (word.as_str(), self.peek(0)) {
            ("b" | "c", Some('"')) => {
                self.bump();
                let text = self.quoted();
                self.push(Tok::Str(text), line);
            }
            ("b", Some('\'')) => self.quote_or_lifetime(line),
            ("r" | "br" | "cr", Some('"' | '#')) if raw_string_follows(self) => {
                let text = self.raw_quoted();
                self.push(Tok::Str(text), line);
            }
            ("r", Some('#')) if self.peek(1).is_some_and(is_ident_start) => {
                self.bump();
                let start = self.pos;
                while self.peek(0).is_some_and(is_ident_continue) {
                    self.bump();
                }
                let ident: String = self.chars[start..self.pos].iter().collect();
                self.push(Tok::Ident(ident), line);
            }
            _ => self.push(Tok::Ident(word), line),
        }
    }
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
