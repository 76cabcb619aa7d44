//! Unit tests of the bearer check's cost: the state file is read again only after it changed.

use super::*;
use crate::config::{DEFAULT_MAX_CLIENTS, OAuthSpec};
use store::{Client, Grant};

#[tokio::test]
async fn a_bearer_check_reads_the_state_file_only_after_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = OAuthSpec {
        public_url: None,
        state_file: dir.path().join("state.json"),
        state_url: None,
        access_ttl_secs: 3600,
        refresh_ttl_secs: 28_800,
        trusted_proxies: Vec::new(),
        coolify_url: "http://127.0.0.1:9".into(),
        coolify_headers: Vec::new(),
        max_clients: DEFAULT_MAX_CLIENTS,
    };
    let a = Authority::new(spec, "http://127.0.0.1:8080".into()).unwrap();
    let store = Store::new(dir.path().join("state.json"));
    store
        .update(|st| {
            for i in 0..5000 {
                st.clients.insert(
                    format!("mcp_client_{i}"),
                    Client {
                        redirect_uris: vec!["http://127.0.0.1:9/cb".into()],
                        client_name: Some(format!("client {i}")),
                        issued_at: now_secs(),
                        used: false,
                    },
                );
            }
            st.access.insert(
                digest("cma_token"),
                Grant {
                    client_id: "mcp_client_7".into(),
                    exp: now_secs() + 600,
                    family: "fam".into(),
                    resource: a.resource_url(),
                    sealed_token: sealed::seal("users-own", "cma_token").unwrap(),
                },
            );
        })
        .unwrap();
    for _ in 0..100 {
        assert_eq!(
            a.client_for("cma_token").await.unwrap(),
            Some(("mcp_client_7".to_string(), "users-own".to_string()))
        );
        assert_eq!(a.client_for("cma_other").await.unwrap(), None);
    }
    assert_eq!(a.access_reads(), 1, "200 checks, one read");
    // A change (here: the token revoked) is seen by the next check.
    store.update(|st| st.access.clear()).unwrap();
    assert_eq!(a.client_for("cma_token").await.unwrap(), None);
    assert_eq!(a.access_reads(), 2);
}
