//! Unit tests of the per-process nonce store.

use super::*;

#[tokio::test]
async fn a_nonce_is_spent_once_and_forgotten_after_its_expiry() {
    let store = MemoryNonces::new();
    assert_eq!(store.spend("n1", 2_000, 1_000).await, Ok(Spend::First));
    assert_eq!(store.spend("n1", 2_000, 1_500).await, Ok(Spend::Replayed));
    assert_eq!(store.spend("n2", 2_000, 1_500).await, Ok(Spend::First));
    assert_eq!(store.len(), 2);
    // Past the expiry both are forgotten (their states no longer open anyway).
    assert_eq!(store.spend("n3", 9_000, 2_001).await, Ok(Spend::First));
    assert_eq!(store.len(), 1);
}
