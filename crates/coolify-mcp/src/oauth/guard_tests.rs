//! Unit tests of the sign-in routes' `Host` allow-list.

use super::*;

#[test]
fn hosts_match_by_name_and_by_port_when_one_is_listed() {
    let hosts = AllowedHosts(vec![
        "localhost".into(),
        "::1".into(),
        "mcp.example.com:8443".into(),
    ]);
    for ok in [
        "localhost",
        "LOCALHOST:8080",
        "[::1]:9",
        "mcp.example.com:8443",
    ] {
        assert!(hosts.allows(ok), "{ok}");
    }
    for bad in [
        "",
        "evil.example",
        "localhost.evil.example",
        "mcp.example.com",
        "mcp.example.com:443",
        "a b",
    ] {
        assert!(!hosts.allows(bad), "{bad}");
    }
}
