//! Deterministic payloads the fake server sends, exported so tests can compute the expected
//! bytes (sha256, lengths) without talking to the server.
//!
//! Invariants: every generator is a pure function of its length, so the server can stream a
//! payload chunk by chunk and a test can rebuild it byte for byte; [`generated_blob`] is never
//! valid UTF-8 (its first byte is 0xFF), so clients spill it instead of inlining it.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// A real 1×1 RGBA PNG (70 bytes; chunk CRCs valid).
pub const PNG_BYTES: &[u8] = &[
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0,
    0, 0, 31, 21, 196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 218, 99, 100, 96, 248, 95, 15, 0, 2,
    135, 1, 128, 235, 71, 186, 146, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// Base64 of [`PNG_BYTES`].
pub fn png_base64() -> String {
    STANDARD.encode(PNG_BYTES)
}

/// Exactly `len` bytes of line-structured UTF-8 text with 2-, 3- and 4-byte code points
/// (`000042 the quick brown fox – ünïcødé ✓ 🦀\n` …), padded with `.` so the length is
/// exact without splitting a code point.
pub fn big_text(len: u64) -> String {
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let mut out = String::with_capacity(len + 64);
    let mut line = 0u64;
    while out.len() < len {
        out.push_str(&format!("{line:06} the quick brown fox – ünïcødé ✓ 🦀\n"));
        line += 1;
    }
    let mut cut = len;
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
    while out.len() < len {
        out.push('.');
    }
    out
}

/// The deterministic, non-UTF-8 bytes of a generated blob of `len` bytes.
pub fn generated_blob(len: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    for chunk in BlobChunks::new(len, 1 << 20) {
        out.extend_from_slice(&chunk);
    }
    out
}

/// Streams [`generated_blob`] in chunks of at most `chunk` bytes. Byte `i` is byte `i % 8` of
/// splitmix64(`i / 8`), so the stream does not depend on the chunk size.
#[derive(Debug, Clone)]
pub struct BlobChunks {
    produced: u64,
    len: u64,
    chunk: usize,
}

impl BlobChunks {
    /// A stream of `len` bytes in chunks of at most `chunk` bytes (0 counts as 1).
    pub fn new(len: u64, chunk: usize) -> Self {
        BlobChunks {
            produced: 0,
            len,
            chunk: chunk.max(1),
        }
    }
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Iterator for BlobChunks {
    type Item = Vec<u8>;

    fn next(&mut self) -> Option<Vec<u8>> {
        if self.produced >= self.len {
            return None;
        }
        let end = self.len.min(self.produced + self.chunk as u64);
        let mut buf = Vec::with_capacity(usize::try_from(end - self.produced).unwrap_or(0));
        // Whole words in the middle, partial ones only at either end: this generator feeds
        // the 50 MiB blob benchmark, which should measure the client, not the fake server.
        let (first, last) = (self.produced >> 3, (end - 1) >> 3);
        let from = (self.produced & 7) as usize;
        let to = ((end - 1) & 7) as usize + 1;
        if first == last {
            buf.extend_from_slice(&splitmix64(first).to_le_bytes()[from..to]);
        } else {
            buf.extend_from_slice(&splitmix64(first).to_le_bytes()[from..]);
            for word in first + 1..last {
                buf.extend_from_slice(&splitmix64(word).to_le_bytes());
            }
            buf.extend_from_slice(&splitmix64(last).to_le_bytes()[..to]);
        }
        if self.produced == 0 {
            // 0xFF never occurs in UTF-8: the blob is binary by construction.
            buf[0] = 0xFF;
        }
        self.produced = end;
        Some(buf)
    }
}

/// Base64 of a generated blob, produced chunk by chunk (each input chunk is a multiple of 3
/// bytes, so concatenating the encoded chunks is the encoding of the whole).
pub fn generated_blob_base64_chunks(len: u64) -> impl Iterator<Item = Vec<u8>> {
    // SIMD encoding: the same text as `STANDARD.encode`, at a fraction of the server's time.
    BlobChunks::new(len, 3 << 18).map(|chunk| base64_simd::STANDARD.encode_type(chunk))
}

/// The form the `elicit_form` tool asks for: string, number, boolean and enum, with defaults.
pub fn sample_elicitation_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "description": "Who is asking", "default": "Ada"},
            "count": {"type": "number", "title": "Count", "minimum": 0, "maximum": 100, "default": 3},
            "confirm": {"type": "boolean", "title": "Confirm", "default": false},
            "color": {"type": "string", "title": "Color", "enum": ["red", "green", "blue"], "default": "green"}
        },
        "required": ["name"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_text_is_exact_and_utf8() {
        for len in [0u64, 1, 7, 40, 41, 42, 43, 44, 1000, 300 * 1024] {
            let text = big_text(len);
            assert_eq!(text.len() as u64, len);
        }
        assert!(big_text(300 * 1024).contains('🦀'));
    }

    #[test]
    fn blob_chunks_concatenate_to_the_same_bytes() {
        let whole = generated_blob(10_000);
        let pieces: Vec<u8> = BlobChunks::new(10_000, 333).flatten().collect();
        assert_eq!(whole, pieces);
        assert!(std::str::from_utf8(&whole).is_err());
        let b64: Vec<u8> = generated_blob_base64_chunks(10_000).flatten().collect();
        assert_eq!(STANDARD.decode(b64).expect("valid base64"), whole);
    }

    #[test]
    fn blob_bytes_follow_their_definition_in_any_chunking() {
        // Byte i is byte i % 8 of splitmix64(i / 8), except the first (0xFF).
        let expected: Vec<u8> = (0..1000u64)
            .map(|i| match i {
                0 => 0xFF,
                _ => splitmix64(i / 8).to_le_bytes()[(i % 8) as usize],
            })
            .collect();
        for chunk in 1..=17 {
            let got: Vec<u8> = BlobChunks::new(1000, chunk).flatten().collect();
            assert_eq!(got, expected, "chunks of {chunk}");
        }
        let b64: Vec<u8> = generated_blob_base64_chunks(3 << 19).flatten().collect();
        assert_eq!(b64, STANDARD.encode(generated_blob(3 << 19)).into_bytes());
    }
}
