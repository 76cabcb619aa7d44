//! Spent confirmation nonces: the record that makes a 2026-07-28 confirmation single-use.
//! [`NonceStore`] is the seam a store shared between replicas plugs into; [`MemoryNonces`] is
//! the per-process store, `oauth::redis_store::RedisState` the one shared through Redis
//! (`--state`).
//!
//! Ground floor: imports nothing from the crate. `request_state` spends a nonce when it
//! redeems a sealed state.
//!
//! Invariants:
//! - spending is an atomic check-and-set: of any number of concurrent spends of one nonce,
//!   exactly one sees [`Spend::First`];
//! - a spent nonce is remembered until the state that carried it expires (after that the state
//!   no longer opens, so forgetting the nonce cannot let it run again);
//! - a store that cannot answer fails closed ([`NonceError`]): the operation does not run.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

/// The outcome of spending a nonce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spend {
    /// Not seen before: it is now spent, and the operation may run.
    First,
    /// Already spent: a replay.
    Replayed,
}

/// The store could not record the nonce; nothing may run on it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the store of used confirmations is unavailable ({0})")]
pub struct NonceError(pub String);

/// What [`NonceStore::spend`] returns.
pub type SpendFuture<'a> = Pin<Box<dyn Future<Output = Result<Spend, NonceError>> + Send + 'a>>;

/// Where spent nonces are kept. One store is shared by every server that accepts the same
/// confirmation state (every replica with the same `MCP_REQUEST_STATE_KEY`), so a state can be
/// redeemed once in total, not once per replica.
pub trait NonceStore: Send + Sync {
    /// Mark `nonce` spent until `expires_ms` (ms since the epoch) and say whether it was the
    /// first spend. `now_ms` lets the store forget nonces whose states have expired.
    fn spend<'a>(&'a self, nonce: &'a str, expires_ms: u64, now_ms: u64) -> SpendFuture<'a>;
}

/// Spent nonces of this process (the default): confirmations are single-use within one
/// process; replicas need a shared store.
#[derive(Debug, Default)]
pub struct MemoryNonces {
    spent: Mutex<HashMap<String, u64>>,
}

impl MemoryNonces {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn spend_now(&self, nonce: &str, expires_ms: u64, now_ms: u64) -> Spend {
        let mut spent = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        spent.retain(|_, exp| *exp >= now_ms);
        if spent.contains_key(nonce) {
            return Spend::Replayed;
        }
        spent.insert(nonce.to_string(), expires_ms);
        Spend::First
    }

    /// How many nonces are remembered (tests check that expired ones are forgotten).
    pub fn len(&self) -> usize {
        self.spent.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether no nonce is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl NonceStore for MemoryNonces {
    fn spend<'a>(&'a self, nonce: &'a str, expires_ms: u64, now_ms: u64) -> SpendFuture<'a> {
        let outcome = self.spend_now(nonce, expires_ms, now_ms);
        Box::pin(async move { Ok(outcome) })
    }
}

#[cfg(test)]
#[path = "nonce_tests.rs"]
mod tests;
