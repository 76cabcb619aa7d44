//! Decoding a big `resources/read` blob while its line arrives, so the 67 MiB of base64 of a
//! 50 MiB blob is never buffered, never copied into rmcp's typed message, and decoding,
//! hashing and the UTF-8 sniff overlap with the server still writing.
//!
//! A resumable scanner follows the JSON structure of a line that did not fit in the read
//! buffer (the only lines worth it). The string value at `result.contents[*].blob` of the
//! top-level object — a `resources/read` response — is fed to a [`BlobReceiver`] instead of
//! the line; the line gets the token [`received::stash`] returns, so rmcp parses a small
//! message and `render::decode_blob` finds the decoded blob by that token. Every other byte is
//! copied to the line unchanged; strings are skipped with `memchr`, not byte by byte.
//!
//! Invariants: the scanner never rejects anything — malformed JSON is left to the parser, it
//! only stops diverting; JSON escapes inside a diverted blob are resolved (`\/`, `\uXXXX`,
//! whitespace escapes are skipped) exactly as serde_json would before base64 decoding; the
//! tokens stashed for a line are discarded when that line is abandoned.

use crate::render::blob::received::{self, BlobReceiver};

/// The key last seen in an object, as far as the blob path cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Result,
    Contents,
    Blob,
    Other,
}

#[derive(Debug, Clone, Copy)]
enum Frame {
    Object { key: Key, expect_key: bool },
    Array,
}

/// Longest key kept for matching (longer keys are `Other`).
const KEY_MAX: usize = 16;

#[derive(Debug)]
enum Escape {
    None,
    Backslash,
    /// `\u` and the hex digits so far.
    Unicode(u32, u8),
}

#[derive(Debug)]
enum State {
    Structure,
    /// Inside a key string.
    Key {
        escape: bool,
    },
    /// Inside a value string that stays in the line.
    Str {
        escape: bool,
    },
    /// Inside the diverted blob string.
    Blob {
        rx: Box<BlobReceiver>,
        escape: Escape,
    },
}

/// Scanner state for the line being assembled.
#[derive(Debug)]
pub(super) struct Divert {
    frames: Vec<Frame>,
    state: State,
    key: Vec<u8>,
    /// Tokens stashed for this line (discarded if it is abandoned).
    tokens: Vec<String>,
    /// Where a binary blob is written while it arrives (the server's spill store).
    pub(super) spill: Option<(crate::render::SpillStore, std::sync::Arc<str>)>,
}

impl Default for Divert {
    fn default() -> Self {
        Divert {
            frames: Vec::new(),
            state: State::Structure,
            key: Vec::with_capacity(KEY_MAX),
            tokens: Vec::new(),
            spill: None,
        }
    }
}

impl Divert {
    /// Appends `input` (part of one line, no newline) to `line`, diverting blob strings.
    pub(super) fn feed(&mut self, input: &[u8], line: &mut Vec<u8>) {
        // `from`: start of the bytes not yet copied to the line.
        let mut from = 0;
        let mut i = 0;
        while i < input.len() {
            match &mut self.state {
                State::Structure => {
                    let b = input[i];
                    i += 1;
                    self.structural(b);
                    if matches!(self.state, State::Blob { .. }) {
                        line.extend_from_slice(&input[from..i]);
                        from = i;
                    }
                }
                State::Key { escape } => {
                    let (end, closed) = skip_string(input, i, escape);
                    let room = (KEY_MAX + 1).saturating_sub(self.key.len());
                    self.key.extend_from_slice(&input[i..end.min(i + room)]);
                    i = end;
                    if closed {
                        self.end_key();
                        self.state = State::Structure;
                    }
                }
                State::Str { escape } => {
                    let (end, closed) = skip_string(input, i, escape);
                    i = end;
                    if closed {
                        self.state = State::Structure;
                    }
                }
                State::Blob { rx, escape } => {
                    let (end, closed) = blob_chars(input, i, rx, escape);
                    i = end;
                    if closed {
                        let State::Blob { rx, .. } =
                            std::mem::replace(&mut self.state, State::Structure)
                        else {
                            unreachable!("matched above")
                        };
                        let token = received::stash(rx.finish());
                        line.extend_from_slice(token.as_bytes());
                        self.tokens.push(token);
                        // The closing quote (at i - 1) is copied with what follows.
                        from = i - 1;
                    }
                }
            }
        }
        if !matches!(self.state, State::Blob { .. }) {
            line.extend_from_slice(&input[from..]);
        }
    }

    /// Whether the line so far ends inside a diverted blob string (fuzzing).
    pub(super) fn inside_blob(&self) -> bool {
        matches!(self.state, State::Blob { .. })
    }

    /// The tokens stashed for the line so far (fuzzing).
    pub(super) fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The line is complete: the next one starts from scratch. Its tokens now belong to the
    /// parsed message (or, when it does not parse, are never looked up and age out).
    pub(super) fn end_line(&mut self) {
        self.frames.clear();
        self.state = State::Structure;
        self.key.clear();
        self.tokens.clear();
    }

    /// The line is abandoned (too large): drop what was received for it.
    pub(super) fn abandon(&mut self) {
        for token in self.tokens.drain(..) {
            received::discard(&token);
        }
        self.end_line();
    }

    fn structural(&mut self, b: u8) {
        match b {
            b'"' => {
                let expect_key = matches!(
                    self.frames.last(),
                    Some(Frame::Object {
                        expect_key: true,
                        ..
                    })
                );
                self.state = if expect_key {
                    self.key.clear();
                    State::Key { escape: false }
                } else if self.at_blob_value() {
                    let rx = match &self.spill {
                        Some((store, server)) => {
                            BlobReceiver::spilling_into(store.clone(), server.clone())
                        }
                        None => BlobReceiver::new(),
                    };
                    State::Blob {
                        rx: Box::new(rx),
                        escape: Escape::None,
                    }
                } else {
                    State::Str { escape: false }
                };
            }
            b'{' => self.frames.push(Frame::Object {
                key: Key::Other,
                expect_key: true,
            }),
            b'[' => self.frames.push(Frame::Array),
            b'}' | b']' => {
                self.frames.pop();
            }
            b',' => {
                if let Some(Frame::Object { key, expect_key }) = self.frames.last_mut() {
                    *key = Key::Other;
                    *expect_key = true;
                }
            }
            _ => {}
        }
    }

    /// The key string closed; `self.key` holds its bytes and the closing quote (or is cut
    /// short when the key is long, and then matches nothing).
    fn end_key(&mut self) {
        let kind = match self.key.strip_suffix(b"\"").unwrap_or(&[]) {
            b"result" => Key::Result,
            b"contents" => Key::Contents,
            b"blob" => Key::Blob,
            _ => Key::Other,
        };
        if let Some(Frame::Object { key, expect_key }) = self.frames.last_mut() {
            *key = kind;
            *expect_key = false;
        }
    }

    /// `result.contents[*].blob` of the top-level object: a `resources/read` blob, which
    /// every consumer reads through `render::decode_blob`. (Tool-result images are not
    /// diverted: `coyote mcp call` shows and prints their base64 itself.)
    fn at_blob_value(&self) -> bool {
        let key = |frame: &Frame| match frame {
            Frame::Object { key, .. } => Some(*key),
            Frame::Array => None,
        };
        matches!(
            self.frames.as_slice(),
            [top, list, Frame::Array, item]
                if key(top) == Some(Key::Result)
                    && key(list) == Some(Key::Contents)
                    && key(item) == Some(Key::Blob)
        )
    }
}

/// Skips string bytes from `i`; returns the end and whether the closing quote was passed.
fn skip_string(input: &[u8], mut i: usize, escape: &mut bool) -> (usize, bool) {
    while i < input.len() {
        if *escape {
            *escape = false;
            i += 1;
            continue;
        }
        match memchr::memchr2(b'"', b'\\', &input[i..]) {
            None => return (input.len(), false),
            Some(at) if input[i + at] == b'"' => return (i + at + 1, true),
            Some(at) => {
                *escape = true;
                i += at + 1;
            }
        }
    }
    (i, false)
}

/// Feeds blob characters from `i` to `rx`, resolving escapes; returns the end and whether
/// the closing quote was passed.
fn blob_chars(
    input: &[u8],
    mut i: usize,
    rx: &mut BlobReceiver,
    escape: &mut Escape,
) -> (usize, bool) {
    while i < input.len() {
        match escape {
            Escape::None => match memchr::memchr2(b'"', b'\\', &input[i..]) {
                None => {
                    rx.push(&input[i..]);
                    return (input.len(), false);
                }
                Some(at) => {
                    rx.push(&input[i..i + at]);
                    let quote = input[i + at] == b'"';
                    i += at + 1;
                    if quote {
                        return (i, true);
                    }
                    *escape = Escape::Backslash;
                }
            },
            Escape::Backslash => {
                let b = input[i];
                i += 1;
                *escape = Escape::None;
                match b {
                    // Whitespace escapes: base64 ignores whitespace anyway.
                    b'n' | b'r' | b't' => {}
                    b'u' => *escape = Escape::Unicode(0, 0),
                    // `\b` and `\f` are control characters (not the letters), which fail the
                    // decode as they do undiverted; `\/` is `/`; `\"` and `\\` are not base64.
                    b'b' => rx.push(&[0x08]),
                    b'f' => rx.push(&[0x0C]),
                    other => rx.push(&[other]),
                }
            }
            Escape::Unicode(value, digits) => {
                let b = input[i];
                i += 1;
                let digit = (b as char).to_digit(16).unwrap_or(0xFFFF);
                *value = (*value << 4) | digit;
                *digits += 1;
                if *digits == 4 {
                    // Any non-ASCII code point is not base64: push a byte the decoder rejects.
                    let ch = u8::try_from(*value)
                        .ok()
                        .filter(u8::is_ascii)
                        .unwrap_or(b'!');
                    rx.push(&[ch]);
                    *escape = Escape::None;
                }
            }
        }
    }
    (i, false)
}

#[cfg(test)]
#[path = "divert_tests.rs"]
mod tests;
