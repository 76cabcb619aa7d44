//! Unit tests of the Redis store's URL handling (the store itself is tested against a real
//! redis-server in tests/redis_state.rs).

use super::*;

#[tokio::test]
async fn an_unreachable_server_is_unavailable_naming_the_url_without_its_password() {
    // Port 9 (discard) on loopback: nothing listens there.
    let store = RedisState::open("redis://:s3cret@127.0.0.1:9/").unwrap();
    let e = store.ping().await.unwrap_err().to_string();
    assert!(
        e.starts_with("the state store redis://127.0.0.1:9/ is unavailable"),
        "{e}"
    );
    assert!(e.contains("--state / COOLIFY_MCP_STATE_URL"), "{e}");
    assert!(!e.contains("s3cret"), "{e}");
    let spent = store.spend("n", 10, 1).await;
    assert!(spent.is_err(), "no store, no spend: {spent:?}");
}
