//! The seam between the sign-in server and where its state lives: [`OAuthStore`] (clients,
//! codes, tokens, refresh families) and [`Limiter`] (the sign-in rate limit), with the state
//! file behind them ([`FileState`], the default) or Redis (`redis_store`).
//!
//! Invariants:
//! - every operation names the entries it touches; none hands the whole state to a request,
//!   so a bearer check costs the same with ten clients or ten thousand;
//! - taking a code or a refresh token is atomic: of two concurrent takes, one gets it;
//! - taking a refresh token that was already rotated revokes its whole family;
//! - a store that cannot answer fails closed ([`StoreError`]): nothing is granted.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::limit::RateLimit;
use super::store::{Client, Code, Grant, Spent, Stamp, Store, StoreError, now_secs};

/// What a store operation returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The outcome of [`OAuthStore::take_refresh`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefreshTake {
    /// Valid: it is now rotated out (and remembered as spent until it would have expired).
    Taken(Grant),
    /// Unknown or expired.
    Unknown,
    /// Already rotated out once: its family was revoked.
    Reused,
}

/// Where registrations, codes and tokens live. Keys of codes and tokens are SHA-256 digests.
pub trait OAuthStore: Send + Sync {
    /// Register `client` as `id`, dropping the oldest never-used registrations to stay under
    /// `max`; false when every kept client was used (nothing may be dropped).
    fn register(&self, id: String, client: Client, max: usize) -> StoreFuture<'_, bool>;
    /// A registered client.
    fn client(&self, id: String) -> StoreFuture<'_, Option<Client>>;
    /// Keep a pending code until its expiry.
    fn put_code(&self, key: String, code: Code) -> StoreFuture<'_, ()>;
    /// Remove a code and return it, when it is there and unexpired (a code is tried once).
    fn take_code(&self, key: String) -> StoreFuture<'_, Option<Code>>;
    /// A sign-in of `client_id` completed: it is never evicted to make room.
    fn mark_used(&self, client_id: String) -> StoreFuture<'_, ()>;
    /// Keep a new access and refresh token (digest, grant) of one family.
    fn issue(&self, access: (String, Grant), refresh: (String, Grant)) -> StoreFuture<'_, ()>;
    /// Rotate a refresh token out (see [`RefreshTake`]).
    fn take_refresh(&self, key: String) -> StoreFuture<'_, RefreshTake>;
    /// The grant of an access token, when it is there and unexpired: the bearer check.
    fn access(&self, key: String) -> StoreFuture<'_, Option<Grant>>;
    /// How often a bearer check read the whole state (the file store, after a change).
    fn whole_reads(&self) -> usize {
        0
    }
}

/// What [`Limiter::check`] returns: `Ok(Err(retry_after))` when over the limit.
pub type LimitFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Result<(), Duration>, StoreError>> + Send + 'a>>;

/// The per-address sign-in rate limit, counted where the replicas can all see it.
pub trait Limiter: Send + Sync {
    /// Count one request from `client`.
    fn check(&self, client: IpAddr) -> LimitFuture<'_>;
}

impl Limiter for RateLimit {
    fn check(&self, client: IpAddr) -> LimitFuture<'_> {
        let outcome = RateLimit::check(self, client);
        Box::pin(async move { Ok(outcome) })
    }
}

/// Access tokens by digest, as last read from the state file.
type AccessTokens = Arc<BTreeMap<String, Grant>>;

/// The state file behind [`OAuthStore`]: every change rewrites the file under its lock; a
/// bearer check reads it only after it changed (a `stat` and a map lookup otherwise).
#[derive(Debug)]
pub struct FileState {
    store: Store,
    access: Mutex<Option<(Stamp, AccessTokens)>>,
    reads: AtomicUsize,
}

impl FileState {
    /// The state file `store`.
    pub fn new(store: Store) -> Self {
        Self {
            store,
            access: Mutex::new(None),
            reads: AtomicUsize::new(0),
        }
    }

    /// The access tokens of the current file, read again only when it changed (the stamp is
    /// taken before the read, so a change during it is picked up next time).
    fn access_tokens(&self) -> Result<AccessTokens, StoreError> {
        let stamp = self.store.stamp();
        let mut cache = self.access.lock().unwrap_or_else(|p| p.into_inner());
        if let (Some(now), Some((seen, access))) = (stamp, cache.as_ref())
            && now == *seen
        {
            return Ok(access.clone());
        }
        self.reads.fetch_add(1, Ordering::Relaxed);
        let access = Arc::new(self.store.load()?.access);
        *cache = stamp.map(|s| (s, access.clone()));
        Ok(access)
    }

    fn ready<T: Send + 'static>(r: Result<T, StoreError>) -> StoreFuture<'static, T> {
        Box::pin(async move { r })
    }
}

impl OAuthStore for FileState {
    fn register(&self, id: String, client: Client, max: usize) -> StoreFuture<'_, bool> {
        Self::ready(self.store.update(move |st| {
            let room = st.make_room(max);
            if room {
                st.clients.insert(id, client);
            }
            room
        }))
    }

    fn client(&self, id: String) -> StoreFuture<'_, Option<Client>> {
        Self::ready(self.store.load().map(|mut st| st.clients.remove(&id)))
    }

    fn put_code(&self, key: String, code: Code) -> StoreFuture<'_, ()> {
        Self::ready(self.store.update(move |st| {
            st.codes.insert(key, code);
        }))
    }

    fn take_code(&self, key: String) -> StoreFuture<'_, Option<Code>> {
        Self::ready(
            self.store
                .update(move |st| st.codes.remove(&key).filter(|c| c.exp > now_secs())),
        )
    }

    fn mark_used(&self, client_id: String) -> StoreFuture<'_, ()> {
        Self::ready(self.store.update(move |st| {
            if let Some(client) = st.clients.get_mut(&client_id) {
                client.used = true;
            }
        }))
    }

    fn issue(&self, access: (String, Grant), refresh: (String, Grant)) -> StoreFuture<'_, ()> {
        Self::ready(self.store.update(move |st| {
            st.access.insert(access.0, access.1);
            st.refresh.insert(refresh.0, refresh.1);
        }))
    }

    fn take_refresh(&self, key: String) -> StoreFuture<'_, RefreshTake> {
        Self::ready(self.store.update(move |st| {
            if let Some(spent) = st.spent_refresh.get(&key).cloned() {
                st.revoke_family(&spent.family);
                return RefreshTake::Reused;
            }
            match st.refresh.remove(&key).filter(|g| g.exp > now_secs()) {
                None => RefreshTake::Unknown,
                Some(g) => {
                    st.spent_refresh.insert(
                        key,
                        Spent {
                            family: g.family.clone(),
                            exp: g.exp,
                        },
                    );
                    RefreshTake::Taken(g)
                }
            }
        }))
    }

    fn access(&self, key: String) -> StoreFuture<'_, Option<Grant>> {
        // A `stat` and a lookup; the file is read (under a shared flock) only after a change.
        let found = self
            .access_tokens()
            .map(|tokens| tokens.get(&key).filter(|g| g.exp > now_secs()).cloned());
        Self::ready(found)
    }

    fn whole_reads(&self) -> usize {
        self.reads.load(Ordering::Relaxed)
    }
}
