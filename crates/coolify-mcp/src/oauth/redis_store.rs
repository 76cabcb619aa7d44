//! The Redis (or Valkey) state store behind `--state redis://…`: [`RedisState`] keeps, for
//! every replica that names the same server, the OAuth registrations, codes, access and
//! refresh tokens with their families, the used confirmation nonces and the sign-in
//! rate-limit counters, each key with a TTL so that Redis forgets what has expired.
//!
//! Implements `oauth::state::{OAuthStore, Limiter}` and `nonce::NonceStore`.
//!
//! Invariants:
//! - every key lies under [`PREFIX`]; codes and tokens are keyed by their SHA-256 digests and
//!   the user's Coolify token is stored only sealed, as in the state file;
//! - every check-and-change is one command or one Lua script, so it is atomic across replicas
//!   (taking a code or refresh token, spending a nonce, counting a rate-limit hit);
//! - an operation reads only the keys it names (registering pops at most the evicted
//!   registrations), so request cost does not grow with the number of clients;
//! - the connection is made lazily and re-made after a failure; a server that cannot answer
//!   is a [`StoreError::Unavailable`] naming the URL without its password: nothing is granted;
//! - a server that lost its data (restarted without persistence) has lost the record of used
//!   confirmations, so a confirmation issued before the loss is refused (the `epoch` key).

use std::net::IpAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Script};
use tokio::sync::OnceCell;

use super::state::{LimitFuture, Limiter, OAuthStore, RefreshTake, StoreFuture};
use super::store::{Client, Code, Grant, StoreError, UNUSED_CLIENT_TTL_SECS, now_secs};
use super::{PER_MINUTE, WINDOW};
use crate::nonce::{NonceError, NonceStore, Spend, SpendFuture};
use crate::request_state::CONFIRMATION_TTL;
use crate::state_url::{check_url, redacted};

/// Every key this server writes starts with it.
pub const PREFIX: &str = "coolify-mcp:";
/// How long connecting, and each command, may take before the store counts as unavailable.
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// Register a client under the cap, evicting the oldest never-used registrations.
const REGISTER: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[6]) - tonumber(ARGV[4]))
local max = tonumber(ARGV[5])
while redis.call('ZCARD', KEYS[2]) + redis.call('SCARD', KEYS[3]) >= max do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  if #oldest == 0 then return 0 end
  redis.call('DEL', ARGV[7] .. 'client:' .. oldest[1])
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
";

/// A completed sign-in: the registration is kept for good.
const MARK_USED: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('PERSIST', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('SADD', KEYS[3], ARGV[1])
end
return 1
";

/// Rotate a refresh token out; a spent one revokes its family.
const TAKE_REFRESH: &str = r"
local fam = redis.call('GET', KEYS[1])
if fam then
  local fk = ARGV[2] .. 'family:' .. fam
  for _, m in ipairs(redis.call('SMEMBERS', fk)) do redis.call('DEL', ARGV[2] .. m) end
  redis.call('DEL', fk)
  return {'reused'}
end
local g = redis.call('GETDEL', KEYS[2])
if not g then return {'unknown'} end
local grant = cjson.decode(g)
local ttl = math.floor(tonumber(grant.exp) - tonumber(ARGV[1]))
if ttl > 0 and grant.family ~= '' then
  redis.call('SET', KEYS[1], grant.family, 'EX', ttl)
end
return {'taken', g}
";

/// Spend a nonce: 1 first, 0 replayed, 2 issued before the store lost its data.
const SPEND: &str = r"
local since = redis.call('GET', KEYS[2])
if not since then
  redis.call('SET', KEYS[2], ARGV[1])
  return 2
end
if tonumber(ARGV[3]) < tonumber(since) then return 2 end
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then return 1 end
return 0
";

/// Count a hit in a sliding window: -1 allowed, else the ms to wait.
const HIT: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local o = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(0, tonumber(ARGV[2]) - (tonumber(ARGV[1]) - tonumber(o[2])))
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return -1
";

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// The shared state on one Redis server (cheap to share behind an `Arc`).
pub struct RedisState {
    client: redis::Client,
    url: String,
    conn: OnceCell<ConnectionManager>,
    register: Script,
    mark_used: Script,
    take_refresh: Script,
    spend: Script,
    hit: Script,
}

impl std::fmt::Debug for RedisState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisState")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl RedisState {
    /// A store on `url` (checked with [`check_url`]); nothing is connected until first use.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        check_url(url).map_err(|reason| StoreError::Unavailable {
            url: redacted(url),
            reason,
        })?;
        let client = redis::Client::open(url).map_err(|e| StoreError::Unavailable {
            url: redacted(url),
            reason: e.to_string(),
        })?;
        Ok(Self {
            client,
            url: redacted(url),
            conn: OnceCell::new(),
            register: Script::new(REGISTER),
            mark_used: Script::new(MARK_USED),
            take_refresh: Script::new(TAKE_REFRESH),
            spend: Script::new(SPEND),
            hit: Script::new(HIT),
        })
    }

    fn unavailable(&self, e: impl std::fmt::Display) -> StoreError {
        StoreError::Unavailable {
            url: self.url.clone(),
            reason: e.to_string(),
        }
    }

    /// The connection (made on first use; a failed attempt is retried by the next call).
    async fn conn(&self) -> Result<ConnectionManager, StoreError> {
        let made = self
            .conn
            .get_or_try_init(|| async {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(TIMEOUT))
                    .set_response_timeout(Some(TIMEOUT))
                    .set_number_of_retries(1)
                    .set_max_delay(Duration::from_millis(500));
                let mut conn =
                    ConnectionManager::new_with_config(self.client.clone(), config).await?;
                // The moment from which used confirmations are on record.
                let _: Option<String> = redis::cmd("SET")
                    .arg(key("epoch"))
                    .arg(now_ms())
                    .arg("NX")
                    .query_async(&mut conn)
                    .await?;
                Ok::<_, redis::RedisError>(conn)
            })
            .await;
        made.cloned().map_err(|e| self.unavailable(e))
    }

    /// Connect and ping: the start-up check, so a wrong URL stops the server at once.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let _: String = redis::cmd("PING")
            .query_async(&mut conn)
            .await
            .map_err(|e| self.unavailable(e))?;
        Ok(())
    }

    fn corrupt(&self, e: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt {
            path: self.url.clone(),
            reason: e.to_string(),
        }
    }

    async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        k: String,
    ) -> Result<Option<T>, StoreError> {
        let mut conn = self.conn().await?;
        let raw: Option<String> = conn.get(k).await.map_err(|e| self.unavailable(e))?;
        raw.map(|r| serde_json::from_str(&r).map_err(|e| self.corrupt(e)))
            .transpose()
    }
}

fn key(rest: &str) -> String {
    format!("{PREFIX}{rest}")
}

/// Seconds from now until `exp` (at least 1: Redis refuses a zero TTL).
fn ttl_until(exp: u64, now: u64) -> u64 {
    exp.saturating_sub(now).max(1)
}

impl OAuthStore for RedisState {
    fn register(&self, id: String, client: Client, max: usize) -> StoreFuture<'_, bool> {
        Box::pin(async move {
            let json = serde_json::to_string(&client).map_err(|e| self.corrupt(e))?;
            let mut conn = self.conn().await?;
            let done: i64 = self
                .register
                .key(key(&format!("client:{id}")))
                .key(key("clients:unused"))
                .key(key("clients:used"))
                .arg(&id)
                .arg(json)
                .arg(client.issued_at)
                .arg(UNUSED_CLIENT_TTL_SECS)
                .arg(max)
                .arg(now_secs())
                .arg(PREFIX)
                .invoke_async(&mut conn)
                .await
                .map_err(|e| self.unavailable(e))?;
            Ok(done == 1)
        })
    }

    fn client(&self, id: String) -> StoreFuture<'_, Option<Client>> {
        Box::pin(async move { self.get_json(key(&format!("client:{id}"))).await })
    }

    fn put_code(&self, k: String, code: Code) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let json = serde_json::to_string(&code).map_err(|e| self.corrupt(e))?;
            let ttl = ttl_until(code.exp, now_secs());
            let mut conn = self.conn().await?;
            let () = conn
                .set_ex(key(&format!("code:{k}")), json, ttl)
                .await
                .map_err(|e| self.unavailable(e))?;
            Ok(())
        })
    }

    fn take_code(&self, k: String) -> StoreFuture<'_, Option<Code>> {
        Box::pin(async move {
            let mut conn = self.conn().await?;
            let raw: Option<String> = conn
                .get_del(key(&format!("code:{k}")))
                .await
                .map_err(|e| self.unavailable(e))?;
            let code: Option<Code> = raw
                .map(|r| serde_json::from_str(&r).map_err(|e| self.corrupt(e)))
                .transpose()?;
            Ok(code.filter(|c| c.exp > now_secs()))
        })
    }

    fn mark_used(&self, client_id: String) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let mut conn = self.conn().await?;
            let _: i64 = self
                .mark_used
                .key(key(&format!("client:{client_id}")))
                .key(key("clients:unused"))
                .key(key("clients:used"))
                .arg(&client_id)
                .invoke_async(&mut conn)
                .await
                .map_err(|e| self.unavailable(e))?;
            Ok(())
        })
    }

    fn issue(&self, access: (String, Grant), refresh: (String, Grant)) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let now = now_secs();
            let a = serde_json::to_string(&access.1).map_err(|e| self.corrupt(e))?;
            let r = serde_json::to_string(&refresh.1).map_err(|e| self.corrupt(e))?;
            let family = key(&format!("family:{}", refresh.1.family));
            let family_ttl = ttl_until(access.1.exp.max(refresh.1.exp), now);
            let mut conn = self.conn().await?;
            let () = redis::pipe()
                .atomic()
                .set_ex(
                    key(&format!("access:{}", access.0)),
                    a,
                    ttl_until(access.1.exp, now),
                )
                .ignore()
                .set_ex(
                    key(&format!("refresh:{}", refresh.0)),
                    r,
                    ttl_until(refresh.1.exp, now),
                )
                .ignore()
                .sadd(
                    &family,
                    &[
                        format!("access:{}", access.0),
                        format!("refresh:{}", refresh.0),
                    ],
                )
                .ignore()
                .cmd("EXPIRE")
                .arg(&family)
                .arg(family_ttl)
                .arg("NX")
                .ignore()
                .cmd("EXPIRE")
                .arg(&family)
                .arg(family_ttl)
                .arg("GT")
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(|e| self.unavailable(e))?;
            Ok(())
        })
    }

    fn take_refresh(&self, k: String) -> StoreFuture<'_, RefreshTake> {
        Box::pin(async move {
            let mut conn = self.conn().await?;
            let answer: Vec<String> = self
                .take_refresh
                .key(key(&format!("spent:{k}")))
                .key(key(&format!("refresh:{k}")))
                .arg(now_secs())
                .arg(PREFIX)
                .invoke_async(&mut conn)
                .await
                .map_err(|e| self.unavailable(e))?;
            match answer.as_slice() {
                [tag] if tag == "reused" => Ok(RefreshTake::Reused),
                [tag, g] if tag == "taken" => {
                    let grant: Grant = serde_json::from_str(g).map_err(|e| self.corrupt(e))?;
                    Ok(if grant.exp > now_secs() {
                        RefreshTake::Taken(grant)
                    } else {
                        RefreshTake::Unknown
                    })
                }
                _ => Ok(RefreshTake::Unknown),
            }
        })
    }

    fn access(&self, k: String) -> StoreFuture<'_, Option<Grant>> {
        Box::pin(async move {
            let grant: Option<Grant> = self.get_json(key(&format!("access:{k}"))).await?;
            Ok(grant.filter(|g| g.exp > now_secs()))
        })
    }
}

impl Limiter for RedisState {
    fn check(&self, client: IpAddr) -> LimitFuture<'_> {
        Box::pin(async move {
            let mut conn = self.conn().await?;
            let member: [u8; 8] = rand::random();
            let member: String = member.iter().map(|b| format!("{b:02x}")).collect();
            let wait: i64 = self
                .hit
                .key(key(&format!("rate:{client}")))
                .arg(now_ms())
                .arg(u64::try_from(WINDOW.as_millis()).unwrap_or(60_000))
                .arg(PER_MINUTE)
                .arg(member)
                .invoke_async(&mut conn)
                .await
                .map_err(|e| self.unavailable(e))?;
            Ok(match u64::try_from(wait) {
                Ok(ms) => Err(Duration::from_millis(ms)),
                Err(_) => Ok(()),
            })
        })
    }
}

impl NonceStore for RedisState {
    fn spend<'a>(&'a self, nonce: &'a str, expires_ms: u64, now_ms: u64) -> SpendFuture<'a> {
        Box::pin(async move {
            let mut conn = self.conn().await.map_err(|e| NonceError(e.to_string()))?;
            let issued =
                expires_ms.saturating_sub(u64::try_from(CONFIRMATION_TTL.as_millis()).unwrap_or(0));
            let outcome: i64 = self
                .spend
                .key(key(&format!("nonce:{nonce}")))
                .key(key("epoch"))
                .arg(now_ms)
                .arg(expires_ms.saturating_sub(now_ms).max(1))
                .arg(issued)
                .invoke_async(&mut conn)
                .await
                .map_err(|e| NonceError(self.unavailable(e).to_string()))?;
            // 2: issued before the store lost its record of used confirmations; it may have
            // run already, so it counts as used (the user is asked again).
            Ok(if outcome == 1 {
                Spend::First
            } else {
                Spend::Replayed
            })
        })
    }
}

#[cfg(test)]
#[path = "redis_store_tests.rs"]
mod tests;
