//! Blobs the stdio transport decoded while they arrived, so a 50 MiB `resources/read` never
//! exists as a 67 MiB base64 `String`. The transport feeds the blob's
//! characters to a [`BlobReceiver`] (decode, sha256 and UTF-8 sniff on the fly), [`stash`]es
//! the result and puts the returned token where the base64 was; rmcp and `convert` carry the
//! token like any blob string, and [`super::decode_blob`] [`take`]s it.
//!
//! Where the bytes go: in memory while they may still be text (a text blob is the result
//! itself); once they are known to be binary and pass [`SPILL_FROM_BYTES`], a receiver given a
//! spill store ([`BlobReceiver::spilling_into`]) writes them to a temp file of that store as
//! they arrive, so a 50 MiB binary blob holds one decoded chunk in memory, not 50 MiB, and its
//! temp file becomes the spilled file on render (a rename, as `decode_blob`'s own temps).
//!
//! Invariants: a token is `coyote-received-blob:<nonce>:<n>`, the nonce random per process,
//! so a server cannot name a stashed blob (a forged or unknown token is just invalid base64);
//! each stashed blob is taken at most once; at most [`MAX_PENDING`] blobs and
//! [`MAX_PENDING_BYTES`] wait (a response nobody renders — its request timed out — is dropped
//! oldest first, never kept forever; two concurrent 50 MiB reads both fit). The ceiling
//! ([`MAX_BLOB_DECODED_BYTES`]) is enforced while receiving: beyond it the bytes are freed at
//! once and the rest of the string is only counted.

use std::collections::VecDeque;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use super::hash::BlobHash;
use super::{Base64Stream, DecodedBlob};
use crate::render::spill::{SpillStore, TempSpill, extension_for_mime};
use crate::render::{MAX_BLOB_DECODED_BYTES, RenderError};

const TOKEN_PREFIX: &str = "coyote-received-blob:";
/// Received blobs waiting to be rendered, at most.
pub(crate) const MAX_PENDING: usize = 64;
/// Decoded bytes waiting to be rendered, at most (two blobs at the ceiling).
pub(crate) const MAX_PENDING_BYTES: usize = 2 * MAX_BLOB_DECODED_BYTES;
/// Reserved beyond the ceiling: one read-buffer chunk decodes before the ceiling is checked.
const RESERVE_SLACK: usize = 256 * 1024;
/// Binary bytes held in memory before a spilling receiver moves them to its temp file.
pub(crate) const SPILL_FROM_BYTES: usize = 1024 * 1024;

/// Decodes one blob string as it arrives.
#[derive(Debug, Default)]
pub(crate) struct BlobReceiver {
    stream: Base64Stream,
    bytes: Vec<u8>,
    /// sha256 of `bytes`, on a helper thread once the blob is big ([`BlobHash`]).
    hash: BlobHash,
    /// Bytes known to be UTF-8 (`None`: not text).
    utf8_valid: Option<usize>,
    /// Characters received (for the size in a ceiling error).
    chars: u64,
    /// Decoded bytes so far, in memory or in `file`.
    decoded: usize,
    /// Where binary bytes go once past [`SPILL_FROM_BYTES`]: the store and the server.
    spill: Option<(SpillStore, std::sync::Arc<str>)>,
    /// The temp file holding the bytes decoded so far (then `bytes` holds only the last chunk).
    file: Option<TempSpill>,
    failure: Option<Failure>,
}

#[derive(Debug, Clone)]
enum Failure {
    TooLarge,
    InvalidBase64(String),
    Io(String),
}

impl BlobReceiver {
    pub(crate) fn new() -> Self {
        BlobReceiver {
            utf8_valid: Some(0),
            ..BlobReceiver::default()
        }
    }

    /// A receiver that writes a binary blob to a temp file of `store` (for `server`) as it
    /// arrives (see the module docs).
    pub(crate) fn spilling_into(store: SpillStore, server: std::sync::Arc<str>) -> Self {
        BlobReceiver {
            spill: Some((store, server)),
            ..BlobReceiver::new()
        }
    }

    /// Feeds characters of the blob (JSON escapes already resolved).
    pub(crate) fn push(&mut self, chars: &[u8]) {
        self.chars += chars.len() as u64;
        if self.failure.is_some() {
            return;
        }
        if self.bytes.capacity() == 0 && self.file.is_none() {
            // Address space for a blob at the ceiling, reserved once: growing by doubling
            // would copy the bytes received so far each time (below the allocator's mmap
            // threshold) and fault in their pages again. Pages are touched only as bytes
            // arrive, so a small blob costs no memory; `finish` gives the rest back.
            self.bytes
                .reserve_exact(MAX_BLOB_DECODED_BYTES + RESERVE_SLACK);
        }
        let start = self.bytes.len();
        let result = self.stream.push(chars, &mut self.bytes);
        self.after_decode(start, result);
    }

    fn after_decode(&mut self, start: usize, result: Result<(), RenderError>) {
        if let Err(e) = result {
            self.fail(match e {
                RenderError::InvalidBase64 { detail } => Failure::InvalidBase64(detail),
                other => Failure::InvalidBase64(other.to_string()),
            });
            return;
        }
        self.decoded += self.bytes.len() - start;
        if self.decoded > MAX_BLOB_DECODED_BYTES {
            self.fail(Failure::TooLarge);
            return;
        }
        let new = &self.bytes[start..];
        self.hash.update(new);
        if let Some(valid) = self.utf8_valid {
            self.utf8_valid = match std::str::from_utf8(&self.bytes[valid..]) {
                Ok(_) => Some(self.bytes.len()),
                Err(e) if e.error_len().is_none() => Some(valid + e.valid_up_to()),
                Err(_) => None,
            };
        }
        if self.utf8_valid.is_none()
            && (self.file.is_some() || self.bytes.len() >= SPILL_FROM_BYTES)
            && let Err(e) = self.spill_held()
        {
            self.fail(Failure::Io(e.to_string()));
        }
    }

    /// Moves the bytes held to the temp file (opened on first use), when spilling.
    fn spill_held(&mut self) -> Result<(), RenderError> {
        let Some((store, server)) = &self.spill else {
            return Ok(());
        };
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                let file = self.file.insert(store.create_temp(server)?);
                // The address space reserved for an in-memory blob is not needed any more.
                let held = std::mem::take(&mut self.bytes);
                file.write_all(&held)?;
                self.bytes = Vec::with_capacity(RESERVE_SLACK);
                return Ok(());
            }
        };
        file.write_all(&self.bytes)?;
        self.bytes.clear();
        Ok(())
    }

    fn fail(&mut self, failure: Failure) {
        self.failure = Some(failure);
        self.bytes = Vec::new();
        self.file = None;
    }

    /// The closing quote arrived.
    pub(crate) fn finish(mut self) -> ReceivedBlob {
        if self.failure.is_none() {
            let start = self.bytes.len();
            let result = self.stream.finish(&mut self.bytes);
            self.after_decode(start, result);
        }
        let outcome = match self.failure {
            Some(f) => Err(f),
            None => match self.file {
                Some(file) => match self.hash.finish() {
                    Some(sha256) => Ok(Decoded {
                        held: Held::File(file, self.decoded as u64),
                        sha256,
                        is_text: false,
                    }),
                    // The hashing thread went away: the bytes are in the file only.
                    None => Err(Failure::Io(
                        "the blob's sha256 could not be computed while it arrived".to_owned(),
                    )),
                },
                None => Ok(Decoded {
                    is_text: self.utf8_valid == Some(self.bytes.len()),
                    sha256: self
                        .hash
                        .finish()
                        .unwrap_or_else(|| hex::encode(Sha256::digest(&self.bytes))),
                    held: Held::Memory({
                        // Stashed blobs keep only what they hold (a large allocation shrinks
                        // in place).
                        self.bytes.shrink_to_fit();
                        self.bytes
                    }),
                }),
            },
        };
        ReceivedBlob {
            outcome,
            chars: self.chars,
        }
    }
}

/// A fully received blob.
#[derive(Debug)]
pub(crate) struct ReceivedBlob {
    outcome: Result<Decoded, Failure>,
    chars: u64,
}

#[derive(Debug)]
struct Decoded {
    held: Held,
    sha256: String,
    is_text: bool,
}

/// Where a received blob's bytes are.
#[derive(Debug)]
enum Held {
    Memory(Vec<u8>),
    /// A temp file of the spill store, and its size.
    File(TempSpill, u64),
}

impl ReceivedBlob {
    /// The same result [`super::decode_blob`] gives for the base64 itself.
    pub(crate) fn into_decoded(
        self,
        mime: Option<&str>,
        server: &str,
        store: &SpillStore,
    ) -> Result<DecodedBlob, RenderError> {
        let decoded = match self.outcome {
            Ok(decoded) => decoded,
            Err(Failure::TooLarge) => {
                return Err(RenderError::BlobTooLarge {
                    decoded_bytes: self.chars / 4 * 3,
                });
            }
            Err(Failure::InvalidBase64(detail)) => {
                return Err(RenderError::InvalidBase64 { detail });
            }
            Err(Failure::Io(detail)) => {
                return Err(RenderError::Io {
                    path: store.server_dir(server),
                    source: std::io::Error::other(detail),
                });
            }
        };
        let bytes = match decoded.held {
            // Written while it arrived: the temp file becomes the spilled file.
            Held::File(temp, size) => {
                let ext = extension_for_mime(mime);
                return store
                    .commit(temp, &decoded.sha256, ext, size)
                    .map(DecodedBlob::Spilled);
            }
            Held::Memory(bytes) if decoded.is_text => match String::from_utf8(bytes) {
                Ok(text) => return Ok(DecodedBlob::Text(text)),
                Err(e) => e.into_bytes(),
            },
            Held::Memory(bytes) => bytes,
        };
        store
            .put_hashed(server, &bytes, &decoded.sha256, extension_for_mime(mime))
            .map(DecodedBlob::Spilled)
    }
}

impl ReceivedBlob {
    /// The decoded bytes, or `None` when the base64 was rejected or too large (fuzzing).
    pub(crate) fn into_bytes(self) -> Option<Vec<u8>> {
        match self.outcome.ok()?.held {
            Held::Memory(bytes) => Some(bytes),
            Held::File(temp, _) => std::fs::read(temp.path()).ok(),
        }
    }

    fn held_bytes(&self) -> usize {
        match &self.outcome {
            Ok(Decoded {
                held: Held::Memory(bytes),
                ..
            }) => bytes.len(),
            _ => 0,
        }
    }
}

/// The blobs waiting, oldest first.
struct Pending {
    next: u64,
    blobs: VecDeque<(u64, ReceivedBlob)>,
}

impl Pending {
    const fn new() -> Self {
        Pending {
            next: 0,
            blobs: VecDeque::new(),
        }
    }

    fn stash(&mut self, blob: ReceivedBlob) -> u64 {
        let id = self.next;
        self.next += 1;
        self.blobs.push_back((id, blob));
        let mut held: usize = self.blobs.iter().map(|(_, b)| b.held_bytes()).sum();
        while self.blobs.len() > 1 && (self.blobs.len() > MAX_PENDING || held > MAX_PENDING_BYTES) {
            if let Some((old, blob)) = self.blobs.pop_front() {
                held -= blob.held_bytes();
                tracing::warn!(
                    token = old,
                    "dropping a received blob nobody rendered (MAX_PENDING reached)"
                );
            }
        }
        id
    }

    fn take(&mut self, id: u64) -> Option<ReceivedBlob> {
        let at = self.blobs.iter().position(|(i, _)| *i == id)?;
        self.blobs.remove(at).map(|(_, blob)| blob)
    }
}

static PENDING: Mutex<Pending> = Mutex::new(Pending::new());

fn pending() -> std::sync::MutexGuard<'static, Pending> {
    PENDING.lock().unwrap_or_else(|p| p.into_inner())
}

fn nonce() -> &'static str {
    static NONCE: OnceLock<String> = OnceLock::new();
    NONCE.get_or_init(|| {
        // RandomState is seeded from the OS per process: enough to make tokens unguessable.
        let a = RandomState::new().hash_one(std::process::id());
        let b = RandomState::new().hash_one(a);
        format!("{a:016x}{b:016x}")
    })
}

/// Keeps `blob` until [`take`]n; returns its token.
pub(crate) fn stash(blob: ReceivedBlob) -> String {
    let id = pending().stash(blob);
    format!("{TOKEN_PREFIX}{}:{id}", nonce())
}

/// Forgets a stashed blob whose message was abandoned.
pub(crate) fn discard(token: &str) {
    let _ = take(token);
}

/// `None` when `text` is not one of this process's tokens (it is then plain base64);
/// otherwise the blob, or an error when it was taken already or dropped.
pub(crate) fn take(text: &str) -> Option<Result<ReceivedBlob, RenderError>> {
    let rest = text.strip_prefix(TOKEN_PREFIX)?;
    let (nonce_part, id) = rest.split_once(':')?;
    if nonce_part != nonce() {
        return None;
    }
    let id: u64 = id.parse().ok()?;
    let found = pending().take(id);
    Some(found.ok_or(RenderError::InvalidBase64 {
        detail: format!(
            "the blob this response carried is no longer held (each received blob is rendered \
             once, and at most {MAX_PENDING} wait); read the resource again"
        ),
    }))
}

#[cfg(test)]
#[path = "received_tests.rs"]
mod tests;
