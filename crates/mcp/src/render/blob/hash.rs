//! The sha256 of a received blob, computed off the transport's thread once the blob is big
//! enough to be worth it: hashing 50 MiB costs about as much CPU as reading it from the pipe
//! and decoding it together, and with the hash on a helper thread the three overlap.
//!
//! Invariants: the digest is exactly `Sha256` over every byte passed to [`BlobHash::update`],
//! in order, wherever it was computed; the transport thread never holds more than
//! [`IN_FLIGHT`] chunks ahead of the helper (it waits for it — CPU-bound, no I/O — instead of
//! buffering a copy of the blob); when the helper cannot be started or dies, the caller is
//! told so ([`BlobHash::finish`] → `None`) and hashes the bytes it still holds.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

/// Bytes hashed inline before the helper thread starts (small blobs never start one).
pub(crate) const BACKGROUND_FROM_BYTES: usize = 1024 * 1024;
/// Chunks queued for the helper at most (each one decoded slice, ≤ 192 KiB).
const IN_FLIGHT: usize = 16;

#[derive(Debug)]
pub(crate) enum BlobHash {
    Inline {
        hasher: Sha256,
        hashed: usize,
    },
    Background(Helper),
    /// The helper could not start or went away: the caller hashes the bytes itself.
    Lost,
}

#[derive(Debug)]
pub(crate) struct Helper {
    chunks: SyncSender<Vec<u8>>,
    /// Buffers the helper is done with, reused so the copies cost no allocation.
    spent: Receiver<Vec<u8>>,
    worker: JoinHandle<String>,
}

impl Default for BlobHash {
    fn default() -> Self {
        BlobHash::Inline {
            hasher: Sha256::new(),
            hashed: 0,
        }
    }
}

impl BlobHash {
    /// Hashes `bytes` (the next decoded slice).
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        match self {
            BlobHash::Inline { hasher, hashed } => {
                hasher.update(bytes);
                *hashed += bytes.len();
                if *hashed >= BACKGROUND_FROM_BYTES {
                    let hasher = std::mem::take(hasher);
                    *self = Helper::start(hasher).map_or(BlobHash::Lost, BlobHash::Background);
                }
            }
            BlobHash::Background(helper) => {
                if !helper.send(bytes) {
                    *self = BlobHash::Lost;
                }
            }
            BlobHash::Lost => {}
        }
    }

    /// The hex digest, or `None` when the helper was lost (then hash the bytes directly).
    pub(crate) fn finish(self) -> Option<String> {
        match self {
            BlobHash::Inline { hasher, .. } => Some(hex::encode(hasher.finalize())),
            BlobHash::Background(helper) => {
                drop(helper.chunks);
                helper.worker.join().ok()
            }
            BlobHash::Lost => None,
        }
    }
}

impl Helper {
    fn start(mut hasher: Sha256) -> Option<Helper> {
        let (chunks, todo) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (done, spent) = sync_channel::<Vec<u8>>(IN_FLIGHT + 1);
        let worker = std::thread::Builder::new()
            .name("coyote-blob-sha256".into())
            .spawn(move || {
                for chunk in todo {
                    hasher.update(&chunk);
                    let _ = done.try_send(chunk);
                }
                hex::encode(hasher.finalize())
            })
            .ok()?;
        Some(Helper {
            chunks,
            spent,
            worker,
        })
    }

    /// Queues a copy of `bytes`; `false` when the helper is gone.
    fn send(&mut self, bytes: &[u8]) -> bool {
        // A spent buffer when there is one (none yet, or the helper is gone: a new one).
        let mut buf = self.spent.try_recv().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(bytes);
        self.chunks.send(buf).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(parts: &[&[u8]]) -> Option<String> {
        let mut hash = BlobHash::default();
        for part in parts {
            hash.update(part);
        }
        hash.finish()
    }

    #[test]
    fn inline_and_background_digests_equal_sha256_of_the_whole() {
        let data: Vec<u8> = (0..3 * BACKGROUND_FROM_BYTES + 12_345)
            .map(|i| (i * 131 % 251) as u8)
            .collect();
        let expected = hex::encode(Sha256::digest(&data));
        // Small: stays inline. Big, in uneven slices: moves to the helper part-way.
        let small = &data[..1000];
        assert_eq!(
            digest(&[&small[..10], &small[10..]]),
            Some(hex::encode(Sha256::digest(small)))
        );
        for size in [4093, 196_608, BACKGROUND_FROM_BYTES] {
            let parts: Vec<&[u8]> = data.chunks(size).collect();
            let mut hash = BlobHash::default();
            for part in &parts {
                hash.update(part);
            }
            assert!(matches!(hash, BlobHash::Background(_)), "slices of {size}");
            assert_eq!(hash.finish(), Some(expected.clone()), "slices of {size}");
        }
    }
}
