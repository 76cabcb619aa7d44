//! Tests of the peer helpers against the real, npm-installed peers (skipped locally when they are
//! not installed, failing under CI).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::*;

#[test]
fn repo_root_holds_the_workspace_and_the_npm_manifest() {
    let root = repo_root();
    let found: Vec<bool> = ["Cargo.toml", "package.json", "scripts/loopback.mjs"]
        .map(|f| root.join(f).is_file())
        .to_vec();
    assert_eq!(
        found,
        vec![true, true, true],
        "repo root {}",
        root.display()
    );
}

#[test]
fn node_options_import_the_absolute_preload() {
    let preload = loopback_preload();
    assert!(preload.is_absolute());
    assert_eq!(node_options(), format!("--import {}", preload.display()));
}

#[test]
fn missing_peer_is_a_skip_when_not_in_ci() {
    let missing: Result<(), PeerError> = Err(PeerError::NotInstalled {
        peer: "x",
        path: PathBuf::from("/nowhere"),
        fix: NPM_FIX,
    });
    assert_eq!(require_with(missing, MissingPeer::Skip), None);
}

#[test]
#[should_panic(expected = "x is not installed (looked for /nowhere); run `npm ci`")]
fn missing_peer_fails_in_ci() {
    let missing: Result<(), PeerError> = Err(PeerError::NotInstalled {
        peer: "x",
        path: PathBuf::from("/nowhere"),
        fix: NPM_FIX,
    });
    require_with(missing, MissingPeer::Fail);
}

#[test]
#[should_panic(expected = "did not become ready")]
fn broken_peer_fails_even_locally() {
    let broken: Result<(), PeerError> = Err(PeerError::NotReady {
        peer: "x",
        reason: "exited".to_owned(),
        output_tail: String::new(),
    });
    require_with(broken, MissingPeer::Skip);
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peers-test","version":"0"}}}"#;

fn expected_server_info() -> serde_json::Value {
    serde_json::json!({
        "name": "mcp-servers/everything",
        "title": "Everything Reference Server",
        "version": "2.0.0"
    })
}

#[test]
fn server_everything_answers_initialize_over_stdio() {
    let Some(spec) = require(server_everything_stdio_command()) else {
        return;
    };
    let mut child = Command::new(&spec.command)
        .args(&spec.args)
        .envs(&spec.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn server-everything");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{INITIALIZE}").expect("write initialize");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    // The server may send notifications first; take the first message with id 1.
    let response = stdout
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(&line).ok())
        .find(|message| message["id"] == 1);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let response = response.expect("an initialize response");
    assert_eq!(
        (
            &response["result"]["protocolVersion"],
            &response["result"]["serverInfo"]
        ),
        (&serde_json::json!("2025-11-25"), &expected_server_info())
    );
}

/// Local addresses (as `a.b.c.d` / `ipv6:<hex>`) of LISTEN sockets on `port`, from /proc/net.
fn listening_addresses(port: u16) -> Vec<String> {
    let mut found = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state)) = (fields.get(1), fields.get(3)) else {
                continue;
            };
            let Some((addr, port_hex)) = local.split_once(':') else {
                continue;
            };
            if *state != "0A" || u16::from_str_radix(port_hex, 16).ok() != Some(port) {
                continue;
            }
            found.push(match u32::from_str_radix(addr, 16) {
                Ok(v4) if addr.len() == 8 => Ipv4Addr::from(v4.swap_bytes()).to_string(),
                _ => format!("ipv6:{addr}"),
            });
        }
    }
    found
}

fn post_initialize(port: u16) -> String {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{INITIALIZE}",
        INITIALIZE.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    // Stop at the first complete SSE event holding the result; the stream may stay open.
    while let Ok(n) = stream.read(&mut chunk) {
        if n == 0 {
            break;
        }
        response.extend_from_slice(&chunk[..n]);
        if String::from_utf8_lossy(&response).contains("\"serverInfo\"") {
            break;
        }
    }
    String::from_utf8_lossy(&response).into_owned()
}

#[test]
fn server_everything_http_listens_on_loopback_only_and_dies_with_its_guard() {
    let Some(server) = require(ServerEverythingHttp::start()) else {
        return;
    };
    let port = server.port();
    assert_eq!(server.url(), format!("http://127.0.0.1:{port}/mcp"));
    assert_eq!(listening_addresses(port), vec!["127.0.0.1".to_owned()]);

    let response = post_initialize(port);
    let status = response.lines().next().unwrap_or_default().to_owned();
    let data = response
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<serde_json::Value>(data).ok())
        .find(|message| message["id"] == 1)
        .unwrap_or_else(|| panic!("no initialize result in {response:?}"));
    assert_eq!(
        (status.as_str(), &data["result"]["serverInfo"]),
        ("HTTP/1.1 200 OK", &expected_server_info())
    );

    drop(server);
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    assert!(
        !super::accepts_connections(&addr, Duration::from_secs(1)),
        "port {port} still accepts connections after the guard dropped"
    );
}
