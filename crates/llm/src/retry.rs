//! The bounded retry policy for requests that failed before any response body was consumed
//! (429 and transient 5xx), and the injectable clock it waits on so tests assert which waits
//! were requested instead of spending real time. Retrying never happens once a stream has been
//! handed to the caller: the retry loop only wraps "send and read the status".

use std::fmt;
use std::time::{Duration, SystemTime};

use coyote_protocol::duration::secs_f64_clamped;
use futures::future::BoxFuture;
use reqwest::header::HeaderMap;

/// Retries after the first attempt, so at most `MAX_RETRIES + 1` requests per call.
pub const MAX_RETRIES: u32 = 3;
/// First backoff when the server gave no `Retry-After`; doubles per retry.
pub const BASE_BACKOFF: Duration = Duration::from_secs(1);
/// The longest wait we sleep through; a server asking for more gets its error reported at once
/// (with the wait it asked for) instead of freezing the session.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);
/// The longest wait a `Retry-After` is read as (a day): `Retry-After: 1e30` means "at least
/// this long", never a panic.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(86_400);

/// How many times and how long to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first backoff; each retry doubles it.
    pub base_backoff: Duration,
    /// The longest wait: longer `Retry-After`s fail at once, backoffs are capped here.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: MAX_RETRIES,
            base_backoff: BASE_BACKOFF,
            max_wait: MAX_RETRY_WAIT,
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (0-based) when the server named none.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        self.base_backoff
            .saturating_mul(2u32.saturating_pow(retry))
            .min(self.max_wait)
    }
}

/// Time as the retry loop sees it. Production uses [`TokioClock`]; tests inject one that
/// records the requested waits and returns at once.
pub trait RetryClock: Send + Sync + fmt::Debug {
    /// Wall-clock now, to interpret an HTTP-date `Retry-After`.
    fn now(&self) -> SystemTime;
    /// Resolves after `duration`.
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

/// The real clock: `SystemTime::now` and `tokio::time::sleep`.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

impl RetryClock for TokioClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// The wait a response asks for: `retry-after-ms` (OpenAI), else `Retry-After` as seconds or
/// an HTTP-date relative to `now`, at most [`MAX_RETRY_AFTER`]. Unparseable and negative values
/// count as absent.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && let Some(wait) = secs_f64_clamped(ms.ceil() / 1000.0, MAX_RETRY_AFTER)
    {
        return Some(wait);
    }
    let value = text("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return secs_f64_clamped(seconds.ceil(), MAX_RETRY_AFTER);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(
        at.duration_since(now)
            .unwrap_or(Duration::ZERO)
            .min(MAX_RETRY_AFTER),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let date = httpdate::fmt_http_date(now + Duration::from_secs(42));
        let cases: Vec<(HeaderMap, Option<Duration>)> = vec![
            (
                headers(&[("retry-after", "7")]),
                Some(Duration::from_secs(7)),
            ),
            (
                headers(&[("retry-after", "1.2")]),
                Some(Duration::from_secs(2)),
            ),
            (
                headers(&[("retry-after", &date)]),
                Some(Duration::from_secs(42)),
            ),
            (headers(&[("retry-after", "soon")]), None),
            (headers(&[("retry-after", "-3")]), None),
            (
                headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                Some(Duration::from_millis(250)),
            ),
            (headers(&[]), None),
            (headers(&[("retry-after", "1e30")]), Some(MAX_RETRY_AFTER)),
            (headers(&[("retry-after", "NaN")]), None),
            (
                headers(&[("retry-after-ms", "1e300")]),
                Some(MAX_RETRY_AFTER),
            ),
            (
                headers(&[("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT")]),
                Some(MAX_RETRY_AFTER),
            ),
        ];
        for (map, expected) in cases {
            assert_eq!(retry_after(&map, now), expected, "{map:?}");
        }
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let policy = RetryPolicy::default();
        let waits: Vec<u64> = (0..8).map(|n| policy.backoff(n).as_secs()).collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 16, 32, 60, 60]);
    }
}
