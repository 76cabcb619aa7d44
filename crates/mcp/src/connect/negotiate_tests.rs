use rmcp::model::{ErrorCode, ErrorData};

use super::*;

#[test]
fn the_plan_follows_the_pin_then_what_is_remembered() {
    use Lifecycle::{Discover as D, Initialize as I};
    use ProtocolRevisions::{Discover, Initialize, Newest};
    for remembered in [None, Some(D), Some(I)] {
        assert_eq!(Plan::new(Initialize, remembered), Plan::Initialize);
        assert_eq!(Plan::new(Discover, remembered), Plan::Discover);
    }
    assert_eq!(Plan::new(Newest, None), Plan::DiscoverThenInitialize);
    assert_eq!(Plan::new(Newest, Some(D)), Plan::DiscoverThenInitialize);
    assert_eq!(Plan::new(Newest, Some(I)), Plan::InitializeThenDiscover);
    assert!(Plan::DiscoverThenInitialize.learns() && Plan::InitializeThenDiscover.learns());
    assert!(!Plan::Initialize.learns() && !Plan::Discover.learns());
}

#[test]
fn only_the_server_s_own_answer_means_it_does_not_speak_a_revision() {
    let rpc = |code: i32| {
        ClientInitializeError::JsonRpcError(ErrorData::new(ErrorCode(code), "no", None))
    };
    // Method not found (TypeScript SDK 1.x), invalid params (Python SDK 1.x): older servers.
    for code in [-32601, -32602, -32600] {
        assert!(
            answered_without_it(&rpc(code), Lifecycle::Discover),
            "{code}"
        );
        assert!(
            answered_without_it(&rpc(code), Lifecycle::Initialize),
            "{code}"
        );
    }
    // A 2026-07-28 server rejecting the request's metadata speaks 2026-07-28.
    for code in [
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        ErrorCode::HEADER_MISMATCH,
    ] {
        assert!(!answered_without_it(&rpc(code.0), Lifecycle::Discover));
    }
    let supports =
        |versions: &[ProtocolVersion]| ClientInitializeError::NoCompatibleProtocolVersion {
            client_supported: vec![ProtocolVersion::V_2026_07_28],
            server_supported: versions.to_vec(),
        };
    assert!(answered_without_it(
        &supports(&[ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25]),
        Lifecycle::Discover
    ));
    // A later revision than ours is not a reason to go back to `initialize`.
    let later: ProtocolVersion = serde_json::from_value(serde_json::json!("2027-01-01")).unwrap();
    assert!(!answered_without_it(
        &supports(&[later]),
        Lifecycle::Discover
    ));
    // A closed connection is not an answer.
    assert!(!answered_without_it(
        &ClientInitializeError::ConnectionClosed("eof".into()),
        Lifecycle::Discover
    ));
}
