//! Unit tests of the `--state` URL checks and their redaction.

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
