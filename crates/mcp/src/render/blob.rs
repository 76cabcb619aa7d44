//! Streaming base64 decode of blobs: the base64 text is read in chunks, each
//! decoded chunk goes to the sha256 and either to a text buffer (while every byte so far is
//! valid UTF-8 — the mislabelled-text sniff) or to a temp file in the spill store. No
//! `serde_json::Value` and no full decoded copy beyond the text case, where the text is the
//! result anyway. The decoded size is capped at [`MAX_BLOB_DECODED_BYTES`], checked up front
//! from the base64 length so an oversized blob fails before any work.
//!
//! One decoder, [`Base64Stream`], serves both paths: [`decode_blob`] over a base64 `String`
//! the server sent, and the stdio transport, which decodes a big `resources/read` blob while
//! it arrives ([`received`]) and hands [`decode_blob`] a token in place of the base64.

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use memchr::memchr3;
use sha2::{Digest, Sha256};

use super::spill::{SpillStore, SpilledFile, TempSpill, extension_for_mime};
use super::{MAX_BLOB_DECODED_BYTES, RenderError};

mod hash;
pub(crate) mod received;

/// Base64 characters decoded per step (a multiple of 4).
const CHUNK_CHARS: usize = 64 * 1024;

/// Lenient about padding: servers differ, the bytes do not.
const ENGINE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// What a blob turned out to be.
#[derive(Debug)]
pub enum DecodedBlob {
    /// Valid UTF-8: shown as text whatever the claimed mime.
    Text(String),
    /// Binary: written to the spill store.
    Spilled(SpilledFile),
}

/// Where decoded bytes go.
enum Sink {
    /// Every byte so far is UTF-8 (`valid` bytes checked; a code point may be incomplete).
    Text {
        buf: Vec<u8>,
        valid: usize,
    },
    File(TempSpill),
}

fn is_b64_whitespace(b: u8) -> bool {
    matches!(b, b'\n' | b'\r' | b' ' | b'\t')
}

/// Position of the first base64 whitespace byte in `s`.
fn find_whitespace(s: &[u8]) -> Option<usize> {
    let a = memchr3(b'\n', b'\r', b' ', s);
    let tab = memchr::memchr(b'\t', &s[..a.unwrap_or(s.len())]);
    tab.or(a)
}

/// A base64 decoder fed arbitrary slices: whitespace is skipped, a group of four characters
/// may span slices, and padding ends the data (anything after it is an error). Decoded bytes
/// are appended to the caller's buffer.
///
/// Speed (a 50 MiB blob is 67 MiB of base64): whole unpadded groups go to the SIMD decoder
/// (`base64-simd`, AVX2/SSSE3 picked at run time), the last padded or short group and
/// anything the SIMD decoder rejects to the scalar engine, which is the reference: it
/// decides what is valid and names the error. Until whitespace is seen each slice is decoded
/// whole without looking for whitespace first; a slice with whitespace fails that attempt
/// and switches the stream to the careful path (runs between whitespace), so base64 broken
/// into lines pays one failed attempt, not one per slice.
#[derive(Debug, Default)]
pub(crate) struct Base64Stream {
    carry: [u8; 4],
    carry_len: usize,
    padded: bool,
    /// Whitespace was seen: every later slice is split at whitespace first.
    spaced: bool,
}

/// Whole unpadded groups: the fast decoder. Padding and short groups go to [`ENGINE`].
const SIMD: base64_simd::Base64 = base64_simd::STANDARD_NO_PAD;

impl Base64Stream {
    /// Decodes `input`, appending to `out`. On error `out` may hold part of the output.
    pub(crate) fn push(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<(), RenderError> {
        while !input.is_empty() {
            if self.carry_len > 0 {
                let b = input[0];
                input = &input[1..];
                if !is_b64_whitespace(b) {
                    self.carry[self.carry_len] = b;
                    self.carry_len += 1;
                    if self.carry_len == 4 {
                        self.carry_len = 0;
                        let quad = self.carry;
                        self.decode_groups(&quad, out)?;
                    }
                }
                continue;
            }
            if !self.spaced && !self.padded {
                // Optimistic: the whole slice at once, up to a padded last group.
                let whole = input.len() / 4 * 4;
                let bulk = if whole > 0 && input[whole - 1] == b'=' {
                    whole - 4
                } else {
                    whole
                };
                if decode_simd(&input[..bulk], out) {
                    input = &input[bulk..];
                } else {
                    self.spaced = find_whitespace(input).is_some();
                }
            }
            let run_end = find_whitespace(input).unwrap_or(input.len());
            let run = &input[..run_end];
            let whole = run.len() / 4 * 4;
            if whole > 0 {
                self.decode_groups(&run[..whole], out)?;
            }
            let rest = &run[whole..];
            self.carry[..rest.len()].copy_from_slice(rest);
            self.carry_len = rest.len();
            input = &input[run_end..];
            // Skip the whitespace that ended the run (the carry loop would, one byte a time).
            while let Some((&b, tail)) = input.split_first() {
                if !is_b64_whitespace(b) {
                    break;
                }
                input = tail;
            }
        }
        Ok(())
    }

    /// Decodes the last, possibly unpadded, group.
    pub(crate) fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), RenderError> {
        if self.carry_len == 0 {
            return Ok(());
        }
        let quad = self.carry;
        let len = self.carry_len;
        self.carry_len = 0;
        self.decode_groups(&quad[..len], out)
    }

    fn decode_groups(&mut self, chars: &[u8], out: &mut Vec<u8>) -> Result<(), RenderError> {
        if self.padded {
            return Err(RenderError::InvalidBase64 {
                detail: "data after the padding".to_owned(),
            });
        }
        // Whole groups without padding: the SIMD decoder; a padded or short last group, and
        // anything the SIMD decoder rejects: the scalar engine (which names the error).
        let bulk = match chars.len() % 4 {
            0 if chars.last() == Some(&b'=') => chars.len() - 4,
            _ => chars.len() / 4 * 4,
        };
        let (head, tail) = chars.split_at(bulk);
        if !decode_simd(head, out) {
            // Padding ends the data: a padded group before the last one is an error however
            // the text was cut (the scalar engine would take `QU==` and `Jid=` one by one).
            if memchr::memchr(b'=', head).is_some() {
                return Err(RenderError::InvalidBase64 {
                    detail: "data after the padding".to_owned(),
                });
            }
            decode_scalar(head, out)?;
        }
        decode_scalar(tail, out)?;
        self.padded = chars.last() == Some(&b'=');
        Ok(())
    }
}

/// Decodes whole unpadded groups with the SIMD decoder; `false` (and `out` unchanged) when
/// it rejects them.
fn decode_simd(chars: &[u8], out: &mut Vec<u8>) -> bool {
    if chars.is_empty() {
        return true;
    }
    // Amortised growth: the decoder reserves exactly what it appends, which slice by slice
    // would reallocate every time.
    out.reserve(chars.len() / 4 * 3);
    SIMD.decode_append(chars, out).is_ok()
}

/// Decodes with the reference engine (lenient padding, trailing bits allowed).
fn decode_scalar(chars: &[u8], out: &mut Vec<u8>) -> Result<(), RenderError> {
    if chars.is_empty() {
        return Ok(());
    }
    let start = out.len();
    out.resize(start + chars.len().div_ceil(4) * 3, 0);
    let n =
        ENGINE
            .decode_slice(chars, &mut out[start..])
            .map_err(|e| RenderError::InvalidBase64 {
                detail: e.to_string(),
            })?;
    out.truncate(start + n);
    Ok(())
}

/// Decodes `base64` (claimed `mime`), sniffs it, and spills binary content for `server`.
/// `base64` may also be the token of a blob the transport already decoded ([`received`]).
pub fn decode_blob(
    base64: &str,
    mime: Option<&str>,
    server: &str,
    store: &SpillStore,
) -> Result<DecodedBlob, RenderError> {
    if let Some(found) = received::take(base64) {
        return found?.into_decoded(mime, server, store);
    }
    let input = base64.as_bytes();
    let has_ws = find_whitespace(input).is_some();
    let significant = if has_ws {
        input.iter().filter(|b| !is_b64_whitespace(**b)).count()
    } else {
        input.len()
    };
    let upper_bound = significant / 4 * 3 + (significant % 4).saturating_sub(1);
    if upper_bound > MAX_BLOB_DECODED_BYTES + 2 {
        return Err(RenderError::BlobTooLarge {
            decoded_bytes: upper_bound as u64,
        });
    }

    let mut hasher = Sha256::new();
    let mut size: usize = 0;
    let mut sink = Sink::Text {
        buf: Vec::new(),
        valid: 0,
    };
    let mut stream = Base64Stream::default();
    let mut out = Vec::with_capacity(CHUNK_CHARS / 4 * 3 + 3);
    let mut chunks = input.chunks(CHUNK_CHARS).peekable();
    while let Some(chunk) = chunks.next() {
        out.clear();
        stream.push(chunk, &mut out)?;
        if chunks.peek().is_none() {
            stream.finish(&mut out)?;
        }
        size += out.len();
        if size > MAX_BLOB_DECODED_BYTES {
            return Err(RenderError::BlobTooLarge {
                decoded_bytes: size as u64,
            });
        }
        hasher.update(&out);
        sink = feed(sink, &out, upper_bound, server, store)?;
    }
    let sha256 = hex::encode(hasher.finalize());
    let temp = match sink {
        Sink::Text { buf, valid } if valid == buf.len() => match String::from_utf8(buf) {
            Ok(text) => return Ok(DecodedBlob::Text(text)),
            Err(e) => to_file(e.into_bytes(), server, store)?,
        },
        // Ends inside a code point: not text after all.
        Sink::Text { buf, .. } => to_file(buf, server, store)?,
        Sink::File(temp) => temp,
    };
    let ext = extension_for_mime(mime);
    store
        .commit(temp, &sha256, ext, size as u64)
        .map(DecodedBlob::Spilled)
}

fn feed(
    sink: Sink,
    bytes: &[u8],
    expected: usize,
    server: &str,
    store: &SpillStore,
) -> Result<Sink, RenderError> {
    match sink {
        Sink::Text { mut buf, valid } => {
            if buf.is_empty() {
                buf.reserve(expected.min(MAX_BLOB_DECODED_BYTES));
            }
            buf.extend_from_slice(bytes);
            match std::str::from_utf8(&buf[valid..]) {
                Ok(_) => {
                    let valid = buf.len();
                    Ok(Sink::Text { buf, valid })
                }
                Err(e) if e.error_len().is_none() => {
                    let valid = valid + e.valid_up_to();
                    Ok(Sink::Text { buf, valid })
                }
                Err(_) => Ok(Sink::File(to_file(buf, server, store)?)),
            }
        }
        Sink::File(mut temp) => {
            temp.write_all(bytes)?;
            Ok(Sink::File(temp))
        }
    }
}

fn to_file(buf: Vec<u8>, server: &str, store: &SpillStore) -> Result<TempSpill, RenderError> {
    let mut temp = store.create_temp(server)?;
    temp.write_all(&buf)?;
    Ok(temp)
}

#[cfg(test)]
#[path = "blob_tests.rs"]
mod tests;
