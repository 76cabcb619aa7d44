//! Unit tests of token sealing.

use super::*;

#[test]
fn a_sealed_token_opens_only_with_its_secret_and_unaltered() {
    let sealed = seal("1|users-own-token", "cma_grant").unwrap();
    assert!(!sealed.contains("users-own-token"));
    assert_ne!(sealed, seal("1|users-own-token", "cma_grant").unwrap());
    assert_eq!(
        open(&sealed, "cma_grant").as_deref(),
        Some("1|users-own-token")
    );
    assert_eq!(open(&sealed, "cma_other"), None);
    let mut altered = sealed.clone().into_bytes();
    let last = altered.len() - 2;
    altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
    assert_eq!(
        open(&String::from_utf8(altered).unwrap(), "cma_grant"),
        None
    );
    assert_eq!(open("", "cma_grant"), None);
}
