//! Streaming base64 decode of blobs (seed D3, §4.5): the base64 text is read in chunks, each
//! decoded chunk goes to the sha256 and either to a text buffer (while every byte so far is
//! valid UTF-8 — the mislabelled-text sniff) or to a temp file in the spill store. No
//! `serde_json::Value` and no full decoded copy beyond the text case, where the text is the
//! result anyway. The decoded size is capped at [`MAX_BLOB_DECODED_BYTES`], checked up front
//! from the base64 length so an oversized blob fails before any work.

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use memchr::memchr3;
use sha2::{Digest, Sha256};

use super::spill::{SpillStore, SpilledFile, TempSpill, extension_for_mime};
use super::{MAX_BLOB_DECODED_BYTES, RenderError};

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

/// Decodes `base64` (claimed `mime`), sniffs it, and spills binary content for `server`.
pub fn decode_blob(
    base64: &str,
    mime: Option<&str>,
    server: &str,
    store: &SpillStore,
) -> Result<DecodedBlob, RenderError> {
    let input = base64.as_bytes();
    let has_ws = memchr3(b'\n', b'\r', b' ', input).is_some() || input.contains(&b'\t');
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
    let mut out = vec![0u8; CHUNK_CHARS / 4 * 3 + 3];
    let mut stage: Vec<u8> = Vec::new();
    let mut pos = 0;
    loop {
        let (chunk, last): (&[u8], bool) = if has_ws {
            while stage.len() < CHUNK_CHARS && pos < input.len() {
                let b = input[pos];
                pos += 1;
                if !is_b64_whitespace(b) {
                    stage.push(b);
                }
            }
            let last = pos >= input.len();
            let usable = if last {
                stage.len()
            } else {
                stage.len() / 4 * 4
            };
            (&stage[..usable], last)
        } else {
            let end = (pos + CHUNK_CHARS).min(input.len());
            let chunk = &input[pos..end];
            pos = end;
            (chunk, pos >= input.len())
        };
        let n = ENGINE
            .decode_slice(chunk, &mut out)
            .map_err(|e| RenderError::InvalidBase64 {
                detail: e.to_string(),
            })?;
        let used = chunk.len();
        if has_ws {
            stage.drain(..used);
        }
        size += n;
        if size > MAX_BLOB_DECODED_BYTES {
            return Err(RenderError::BlobTooLarge {
                decoded_bytes: size as u64,
            });
        }
        let bytes = &out[..n];
        hasher.update(bytes);
        sink = feed(sink, bytes, upper_bound, server, store)?;
        if last {
            break;
        }
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
