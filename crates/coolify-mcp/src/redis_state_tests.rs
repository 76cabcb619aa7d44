//! Unit tests of the Redis store's URL handling (the store itself is tested against a real
//! redis-server in tests/redis_state.rs).

use super::*;

#[test]
fn the_url_shown_in_messages_leaves_the_password_out() {
    assert_eq!(
        redacted("redis://user:s3cret@10.0.0.5:6379/3"),
        "redis://user@10.0.0.5:6379/3"
    );
    assert_eq!(redacted("redis://:s3cret@h/"), "redis://h/");
    assert_eq!(redacted("redis://h:1/"), "redis://h:1/");
    assert!(!redacted("not a url s3cret").contains("s3cret"));
}

#[test]
fn only_plain_redis_and_valkey_urls_are_accepted() {
    for ok in [
        "redis://127.0.0.1:6379/0",
        "valkey://h",
        "redis+unix:///run/redis.sock",
    ] {
        assert_eq!(check_url(ok), Ok(()), "{ok}");
    }
    assert!(check_url("rediss://h").unwrap_err().contains("TLS"));
    assert!(
        check_url("memcached://h")
            .unwrap_err()
            .contains("not a redis://")
    );
}

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
