//! `coyote mcp …` against server-everything's legacy `sse` mode: an entry with `url` and no
//! `type` falls back to legacy SSE, and `mcp servers` says so — when 2026-07-28 is offered
//! first (the default: `server/discover`, then `initialize`, both refused by the POST) and when
//! 2025-11-25 is pinned.

use serde_json::json;

use super::common::Home;

#[test]
fn an_untyped_url_reaches_an_sse_only_server() {
    let Some(server) = coyote_test_support::peers::require(
        coyote_test_support::peers::ServerEverythingHttp::start_sse(),
    ) else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": { "url": server.url() } }));
    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(servers[0]["state"], "ready", "{servers:#}");
    assert_eq!(servers[0]["transport"], "sse", "{servers:#}");
    let tools = home.json(&["mcp", "tools", "everything"]);
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "echo"),
        "{tools:#}"
    );
    let (code, out, err) = home.run(&["mcp", "call", "everything", "echo", "message=over sse"]);
    assert_eq!((code, out.as_str()), (0, "Echo: over sse\n"), "{err}");

    let pinned = home
        .coyote()
        .args(["mcp", "servers", "--json"])
        .env("COYOTE_MCP_PROTOCOL", "2025-11-25")
        .output()
        .unwrap();
    let servers: serde_json::Value = serde_json::from_slice(&pinned.stdout).unwrap();
    assert_eq!(servers[0]["state"], "ready", "{servers:#}");
    assert_eq!(servers[0]["transport"], "sse", "{servers:#}");
    assert_eq!(servers[0]["protocol_version"], "2025-11-25", "{servers:#}");
}
