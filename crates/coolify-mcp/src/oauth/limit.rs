//! The sign-in rate limit: [`PER_MINUTE`] requests per client address per sliding minute on
//! `/register`, `/authorize` and `/token`, and which address a request counts against.
//!
//! Invariants:
//! - the key is the TCP peer address; `X-Forwarded-For` is believed only when the peer is one
//!   of the configured trusted proxies, and then the rightmost hop that is not a trusted proxy
//!   is the client (a client cannot pick its own key by sending the header);
//! - time comes from tokio's clock, so a test with paused time moves the window.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// Requests allowed per window and address.
pub const PER_MINUTE: usize = 20;
/// The window.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Addresses tracked at most; the oldest entries go first beyond it.
const MAX_KEYS: usize = 10_000;

/// A sliding-window limiter keyed by client address.
#[derive(Debug, Default)]
pub struct RateLimit {
    hits: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
}

impl RateLimit {
    /// Count one request from `client`; `Err(retry_after)` when it is over the limit.
    pub fn check(&self, client: IpAddr) -> Result<(), Duration> {
        let now = Instant::now();
        let mut hits = self.hits.lock().unwrap_or_else(|p| p.into_inner());
        if hits.len() >= MAX_KEYS {
            hits.retain(|_, q| q.back().is_some_and(|t| now.duration_since(*t) < WINDOW));
        }
        let q = hits.entry(client).or_default();
        while q.front().is_some_and(|t| now.duration_since(*t) >= WINDOW) {
            q.pop_front();
        }
        if q.len() >= PER_MINUTE {
            let oldest = q.front().copied().unwrap_or(now);
            return Err(WINDOW.saturating_sub(now.duration_since(oldest)));
        }
        q.push_back(now);
        Ok(())
    }
}

/// The address a request counts against: the peer, or, behind a trusted proxy, the rightmost
/// `X-Forwarded-For` hop that is not itself a trusted proxy.
pub fn client_address(peer: IpAddr, forwarded_for: Option<&str>, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let Some(header) = forwarded_for else {
        return peer;
    };
    header
        .split(',')
        .rev()
        .filter_map(|hop| hop.trim().parse::<IpAddr>().ok())
        .find(|ip| !trusted.contains(ip))
        .unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_counts_only_behind_a_trusted_proxy() {
        let proxy: IpAddr = "10.0.0.2".parse().unwrap();
        let client: IpAddr = "203.0.113.9".parse().unwrap();
        let spoof = Some("1.2.3.4, 203.0.113.9");
        assert_eq!(client_address(client, spoof, &[proxy]), client);
        assert_eq!(client_address(proxy, spoof, &[proxy]), client);
        assert_eq!(client_address(proxy, None, &[proxy]), proxy);
        assert_eq!(client_address(proxy, spoof, &[]), proxy);
    }
}
