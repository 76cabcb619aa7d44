//! Protocol revisions as a user meets them, with no switch set: a server that speaks only
//! 2026-07-28 (the Python SDK 2.3.0 behind a gate that refuses `initialize`) connects, and its
//! log messages arrive at the level `--mcp-log-level` chose (2026-07-28 has no
//! `logging/setLevel`: each request opts in through its metadata); a dual-era server (the same
//! SDK without the gate) is spoken to in 2026-07-28; `COYOTE_MCP_PROTOCOL` and mcp.json's
//! `protocol` pin a revision; a resource is watched at 2026-07-28 through `subscriptions/listen`.

use serde_json::{Value, json};

use super::common::Home;

/// A home whose mcp.json has the Python SDK server as `py` (`modern_only`: behind the gate),
/// with `extra` keys merged into its entry; `None` when the peer is not installed outside CI.
fn python_home(modern_only: bool, extra: Value) -> Option<Home> {
    let spec = coyote_test_support::peers::require(
        coyote_test_support::peers::python_sdk_stdio_command(modern_only),
    )?;
    let mut entry = coyote_test_support::peers::mcp_json_entry(&spec);
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    let home = Home::new();
    home.write_servers(json!({ "py": entry }));
    Some(home)
}

/// The levels of the server's `LEVEL: hi` messages on stderr, sorted.
fn levels_logged(err: &str) -> Vec<&'static str> {
    let mut levels: Vec<&'static str> = err
        .lines()
        .flat_map(|line| {
            ["debug", "info", "warning", "error"]
                .into_iter()
                .filter(move |level| line.contains(&format!("{level}: hi")))
        })
        .collect();
    levels.sort_unstable();
    levels
}

#[test]
fn a_server_that_speaks_only_2026_07_28_connects_with_no_variable_and_its_logs_arrive() {
    let Some(home) = python_home(true, json!({})) else {
        return;
    };
    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(servers[0]["state"], "ready", "{servers:#}");
    assert_eq!(servers[0]["protocol_version"], "2026-07-28", "{servers:#}");

    // The default threshold, warning: two of the four messages.
    let (code, out, err) = home.run(&["mcp", "call", "py", "log_and_echo", "text=hi"]);
    assert_eq!((code, out.as_str()), (0, "hi\n"), "{err}");
    // (Each notification is handled on its own, so their order on stderr is not fixed.)
    assert_eq!(levels_logged(&err), ["error", "warning"], "{err}");

    // --mcp-log-level debug: all four.
    let (code, _, err) = home.run(&[
        "--mcp-log-level",
        "debug",
        "mcp",
        "call",
        "py",
        "log_and_echo",
        "text=hi",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        levels_logged(&err),
        ["debug", "error", "info", "warning"],
        "{err}"
    );
}

#[test]
fn pins_choose_the_revision_and_a_refused_pin_says_what_to_do() {
    let Some(home) = python_home(false, json!({})) else {
        return;
    };
    let protocol = |env: Option<&str>| {
        let mut cmd = home.coyote();
        cmd.args(["mcp", "servers", "--json"]);
        if let Some(value) = env {
            cmd.env("COYOTE_MCP_PROTOCOL", value);
        }
        let out = cmd.output().unwrap();
        let servers: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            servers[0]["protocol_version"].clone(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(protocol(None).0, "2026-07-28");
    assert_eq!(protocol(Some("2025-11-25")).0, "2025-11-25");
    assert_eq!(protocol(Some("auto")).0, "2026-07-28");
    let (version, err) = protocol(Some("2026"));
    assert_eq!(version, "2026-07-28");
    assert!(
        err.contains("COYOTE_MCP_PROTOCOL=\"2026\" is not a protocol revision (auto, 2025-11-25 or 2026-07-28); negotiating"),
        "{err}"
    );

    // The entry's own pin, against the gated server: 2025-11-25 is refused, and the reason
    // says so.
    let Some(home) = python_home(true, json!({"protocol": "2025-11-25"})) else {
        return;
    };
    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(servers[0]["state"], "failed", "{servers:#}");
    let reason = servers[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("the server rejected initialize: Method not found: initialize"),
        "{reason}"
    );
}

/// The Python SDK server over streamable HTTP on 127.0.0.1, killed when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts it on a free port and waits (bounded) until it accepts connections.
fn python_http() -> Option<HttpServer> {
    let spec = coyote_test_support::peers::require(
        coyote_test_support::peers::python_sdk_stdio_command(false),
    )?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new(&spec.command)
        .args(&spec.args)
        .args(["--http", &port.to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let server = HttpServer {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the Python SDK server did not listen on {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Some(server)
}

/// At 2026-07-28 the SDK answers a request's JSON-RPC error with an HTTP 4xx (`Unknown
/// resource` → 400) and no session: coyote reports that error, not a failed connection, and
/// the server stays usable.
#[test]
fn a_2026_07_28_error_answered_with_http_400_is_the_server_s_error() {
    let Some(server) = python_http() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "py": { "url": server.url } }));
    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(servers[0]["protocol_version"], "2026-07-28", "{servers:#}");
    let (code, out, err) = home.run(&["mcp", "read", "py", "nope://x"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains("MCP server 'py' answered 'resources/read' with error -32602: Unknown resource: nope://x"),
        "{err}"
    );
    assert!(!err.contains("connection failed"), "{err}");
    let (code, out, err) = home.run(&["mcp", "call", "py", "log_and_echo", "text=hi"]);
    assert_eq!((code, out.as_str()), (0, "hi\n"), "{err}");
}

#[test]
fn a_resource_is_watched_at_2026_07_28_through_subscriptions_listen() {
    let Some(home) = python_home(true, json!({})) else {
        return;
    };
    let (code, out, err) = home.run(&[
        "mcp",
        "watch",
        "py",
        "note://counter",
        "--call",
        "bump",
        "--count",
        "1",
        "--read",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let update: Value = serde_json::from_str(out.lines().next().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(update["type"], "updated", "{update}");
    assert_eq!(update["uri"], "note://counter");
    let content: Value = serde_json::from_str(update["content"].as_str().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {update}"));
    assert_eq!(content["text"], "1", "read after the update: {update}");
    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(servers[0]["protocol_version"], "2026-07-28", "{servers}");
}
