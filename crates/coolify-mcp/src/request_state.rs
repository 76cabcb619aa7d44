//! The sealed `requestState` of a 2026-07-28 confirmation: what the human was
//! shown (a digest), when the approval stops counting, and who may redeem it.
//!
//! Ground floor: imports nothing from the crate. `confirm` seals on round one and opens on
//! round two.
//!
//! Invariants:
//! - the state is HMAC-SHA256 signed by rmcp's `RequestStateCodec` with a key of at least 32
//!   bytes (`MCP_REQUEST_STATE_KEY`, else one generated per process); anything forged or
//!   altered fails to open;
//! - it is bound to `<method> <oauth client id>` as associated data, so state minted for one
//!   caller cannot be redeemed by another;
//! - it expires [`CONFIRMATION_TTL`] after sealing by the injectable [`StateClock`] (and by
//!   rmcp's own TTL on the wall clock, as a second bound);
//! - it carries no secret: only the digest, a random nonce and the expiry (it is signed, not
//!   encrypted);
//! - it is single-use: [`ConfirmationSeal::redeem`] spends its nonce in the seal's
//!   [`NonceStore`], so a second redemption of the same state is [`StateError::Replayed`].

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rmcp::model::{RequestStateCodec, SealOptions};
use serde::{Deserialize, Serialize};

use crate::nonce::{MemoryNonces, NonceStore, Spend};

/// How long a confirmation stays answerable (reference: 600 s).
pub const CONFIRMATION_TTL: Duration = Duration::from_secs(600);
/// The variable holding the signing key.
pub const KEY_VAR: &str = "MCP_REQUEST_STATE_KEY";
/// The shortest key accepted.
pub const MIN_KEY_BYTES: usize = 32;

/// Milliseconds since the Unix epoch; tests inject one they can move.
pub trait StateClock: Send + Sync {
    /// The current time in ms since the epoch.
    fn now_ms(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl StateClock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
}

/// Why a returned `requestState` was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Forged, altered, sealed with another key, or bound to another caller.
    #[error("the confirmation state failed verification")]
    Invalid,
    /// Sealed longer ago than the TTL.
    #[error("the confirmation expired")]
    Expired,
    /// Already redeemed once: a confirmation approves one run.
    #[error("the confirmation was already used")]
    Replayed,
    /// The store of used confirmations could not be asked, so the state is not honoured.
    #[error("the store of used confirmations is unavailable")]
    StoreUnavailable,
}

/// The key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MCP_REQUEST_STATE_KEY must be at least 32 bytes. Generate one with: openssl rand -hex 32")]
pub struct KeyTooShort;

#[derive(Serialize, Deserialize)]
struct Payload {
    /// First 32 hex chars of SHA-256 of the shown text (or of `degraded:<label>`).
    digest: String,
    /// Expiry, ms since the epoch, by the seal's clock.
    exp: u64,
    /// 128 random bits, hex: spent on redemption (absent in state from older versions, which
    /// is then refused).
    #[serde(default)]
    nonce: String,
}

/// Seals and opens confirmation state. Cheap to clone.
#[derive(Clone)]
pub struct ConfirmationSeal {
    codec: RequestStateCodec,
    ttl: Duration,
    clock: Arc<dyn StateClock>,
    nonces: Arc<dyn NonceStore>,
}

impl std::fmt::Debug for ConfirmationSeal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfirmationSeal")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// Where the signing key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// `MCP_REQUEST_STATE_KEY`.
    Configured,
    /// Generated for this process: confirmations do not survive a restart and replicas cannot
    /// verify each other's state (both fail closed).
    Generated,
}

impl ConfirmationSeal {
    /// A seal with `key` (None = generate one), [`CONFIRMATION_TTL`] and the system clock.
    pub fn from_key(key: Option<&[u8]>) -> Result<(Self, KeySource), KeyTooShort> {
        let (bytes, source) = match key {
            Some(k) if k.len() < MIN_KEY_BYTES => return Err(KeyTooShort),
            Some(k) => (k.to_vec(), KeySource::Configured),
            None => {
                let generated: [u8; 32] = rand::random();
                (generated.to_vec(), KeySource::Generated)
            }
        };
        let codec = RequestStateCodec::try_new(bytes).map_err(|_| KeyTooShort)?;
        Ok((
            Self {
                codec,
                ttl: CONFIRMATION_TTL,
                clock: Arc::new(SystemClock),
                nonces: Arc::new(MemoryNonces::new()),
            },
            source,
        ))
    }

    /// The same seal reading time from `clock` (tests move it to expire a confirmation).
    pub fn with_clock(mut self, clock: Arc<dyn StateClock>) -> Self {
        self.clock = clock;
        self
    }

    /// The same seal recording spent nonces in `nonces` (shared by every seal that must refuse
    /// the others' replays). The default is a per-process [`MemoryNonces`].
    pub fn with_nonce_store(mut self, nonces: Arc<dyn NonceStore>) -> Self {
        self.nonces = nonces;
        self
    }

    /// Seal `digest` for the caller named by `binding`, with a fresh nonce.
    pub fn seal(&self, digest: &str, binding: &str) -> String {
        let nonce: [u8; 16] = rand::random();
        let payload = Payload {
            nonce: nonce.iter().map(|b| format!("{b:02x}")).collect(),
            digest: digest.to_string(),
            exp: self
                .clock
                .now_ms()
                .saturating_add(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)),
        };
        let options = SealOptions::new()
            .associated_data(binding.as_bytes())
            .ttl(self.ttl);
        let body = serde_json::to_vec(&payload).unwrap_or_default();
        self.codec.seal_with(&body, &options)
    }

    /// Open state sealed for `binding`; the digest it carries. Verification only: nothing is
    /// spent (see [`Self::redeem`]).
    pub fn open(&self, state: &str, binding: &str) -> Result<String, StateError> {
        self.open_payload(state, binding).map(|p| p.digest)
    }

    /// Open state sealed for `binding` and spend its nonce: the digest it carries, once. A
    /// second redemption of the same state — on this seal or any seal sharing its
    /// [`NonceStore`] — is [`StateError::Replayed`].
    pub async fn redeem(&self, state: &str, binding: &str) -> Result<String, StateError> {
        let payload = self.open_payload(state, binding)?;
        if payload.nonce.is_empty() {
            return Err(StateError::Invalid);
        }
        match self
            .nonces
            .spend(&payload.nonce, payload.exp, self.clock.now_ms())
            .await
        {
            Ok(Spend::First) => Ok(payload.digest),
            Ok(Spend::Replayed) => Err(StateError::Replayed),
            Err(_) => Err(StateError::StoreUnavailable),
        }
    }

    fn open_payload(&self, state: &str, binding: &str) -> Result<Payload, StateError> {
        let body = self
            .codec
            .open_with(state, binding.as_bytes())
            .map_err(|e| match e {
                rmcp::model::RequestStateError::Expired => StateError::Expired,
                _ => StateError::Invalid,
            })?;
        let payload: Payload = serde_json::from_slice(&body).map_err(|_| StateError::Invalid)?;
        if self.clock.now_ms() > payload.exp {
            return Err(StateError::Expired);
        }
        Ok(payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    struct Manual(AtomicU64);
    impl StateClock for Manual {
        fn now_ms(&self) -> u64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    #[test]
    fn sealed_state_opens_only_unaltered_for_its_caller_before_expiry() {
        assert_eq!(
            ConfirmationSeal::from_key(Some(b"short")).unwrap_err(),
            KeyTooShort
        );
        let clock = Arc::new(Manual(AtomicU64::new(1_000)));
        let (seal, source) = ConfirmationSeal::from_key(Some(&[7u8; 32])).unwrap();
        assert_eq!(source, KeySource::Configured);
        let seal = seal.with_clock(clock.clone());
        let state = seal.seal("abc", "tools/call client-1");
        assert_eq!(seal.open(&state, "tools/call client-1"), Ok("abc".into()));
        assert_eq!(
            seal.open(&state, "tools/call client-2"),
            Err(StateError::Invalid)
        );
        let mut tampered = state.clone().into_bytes();
        let last = tampered.len() - 1;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            seal.open(&String::from_utf8(tampered).unwrap(), "tools/call client-1"),
            Err(StateError::Invalid)
        );
        let (other, _) = ConfirmationSeal::from_key(None).unwrap();
        assert_eq!(
            other.open(&state, "tools/call client-1"),
            Err(StateError::Invalid)
        );
        clock.0.store(1_000 + 600_001, Ordering::SeqCst);
        assert_eq!(
            seal.open(&state, "tools/call client-1"),
            Err(StateError::Expired)
        );
    }

    #[tokio::test]
    async fn a_state_is_redeemed_once_across_seals_sharing_a_store() {
        let store: Arc<dyn NonceStore> = Arc::new(MemoryNonces::new());
        let (a, _) = ConfirmationSeal::from_key(Some(&[9u8; 32])).unwrap();
        let (b, _) = ConfirmationSeal::from_key(Some(&[9u8; 32])).unwrap();
        let (a, b) = (a.with_nonce_store(store.clone()), b.with_nonce_store(store));
        let state = a.seal("d", "tools/call c");
        assert_ne!(state, a.seal("d", "tools/call c"), "every seal is unique");
        assert_eq!(b.redeem(&state, "tools/call c").await, Ok("d".into()));
        assert_eq!(
            a.redeem(&state, "tools/call c").await,
            Err(StateError::Replayed)
        );
        // Opening only verifies; it never spends.
        assert_eq!(a.open(&state, "tools/call c"), Ok("d".into()));
    }
}
