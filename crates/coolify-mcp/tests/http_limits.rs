//! HTTP limits: 413 over 5 MB, the 15 s header and 30 s body deadlines
//! (tokio's paused clock: nothing waits for real), a lowercase `bearer` scheme.

use std::time::Duration;

use coolify_mcp::http::{HttpHandle, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::common::{Setup, bearer_http, build_server};

const TOKEN: &str = "limits-test-token-0123456789abcdef";

async fn serve() -> HttpHandle {
    // Nothing here reaches Coolify: the address only has to parse.
    let server = build_server("http://127.0.0.1:9", &Setup::default());
    let spec = bearer_http(TOKEN, false);
    start(server, &spec).await.unwrap()
}

/// Send `head` (and `body`), read until the server closes: the raw response.
async fn exchange(handle: &HttpHandle, head: &str, body: &[u8]) -> String {
    let mut s = TcpStream::connect(handle.addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    // The server may answer (and close) before taking the whole body.
    let _ = s.write_all(body).await;
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    String::from_utf8_lossy(&out).into_owned()
}

fn init_body(pad: usize) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x".repeat(pad), "version": "1"}}})).unwrap()
}

fn post_head(auth: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {auth}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nConnection: close\r\n{extra}\r\n"
    )
}

#[tokio::test]
async fn body_over_5_mb_is_413_payload_too_large_announced_or_streamed() {
    let h = serve().await;
    let auth = format!("Bearer {TOKEN}");
    let big = init_body(5 * 1024 * 1024);
    let r = exchange(
        &h,
        &post_head(&auth, &format!("Content-Length: {}\r\n", big.len())),
        &big,
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 413"), "{}", &r[..r.len().min(200)]);
    assert!(r.ends_with(r#"{"error":"payload_too_large"}"#), "{r}");
    // Chunked, no length announced: cut while streaming.
    let mut chunked = Vec::new();
    for chunk in big.chunks(1 << 20) {
        chunked.extend(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend(chunk);
        chunked.extend(b"\r\n");
    }
    chunked.extend(b"0\r\n\r\n");
    let r = exchange(
        &h,
        &post_head(&auth, "Transfer-Encoding: chunked\r\n"),
        &chunked,
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 413"), "{}", &r[..r.len().min(200)]);
    assert!(r.ends_with(r#"{"error":"payload_too_large"}"#), "{r}");
    // 4.5 MB (over rmcp's own 4 MiB default) is still served.
    let fits = init_body(4_500_000);
    let r = exchange(
        &h,
        &post_head(&auth, &format!("Content-Length: {}\r\n", fits.len())),
        &fits,
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 200"), "{}", &r[..r.len().min(300)]);
    h.shutdown.cancel();
}

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive_and_the_token_is_not() {
    let h = serve().await;
    let body = init_body(1);
    let len = format!("Content-Length: {}\r\n", body.len());
    for auth in [format!("bearer {TOKEN}"), format!("BEARER {TOKEN}")] {
        let r = exchange(&h, &post_head(&auth, &len), &body).await;
        assert!(r.starts_with("HTTP/1.1 200"), "{auth}: {r}");
    }
    let upper = format!("Bearer {}", TOKEN.to_uppercase());
    let r = exchange(&h, &post_head(&upper, &len), &body).await;
    assert!(r.starts_with("HTTP/1.1 401"), "{r}");
    assert!(!r.contains(&TOKEN.to_uppercase()), "never echoed: {r}");
    h.shutdown.cancel();
}

#[tokio::test(start_paused = true)]
async fn a_slow_header_is_cut_at_15_s_and_a_slow_body_at_30_s() {
    let h = serve().await;
    // 14 s into its head, a client is still served.
    let mut s = TcpStream::connect(h.addr).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(14)).await;
    s.write_all(b"Connection: close\r\n\r\n").await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");

    // One that never finishes its head is cut at 15 s.
    let mut s = TcpStream::connect(h.addr).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let t0 = Instant::now();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    let waited = t0.elapsed();
    assert!(
        waited >= Duration::from_secs(15) && waited < Duration::from_secs(16),
        "cut after {waited:?}"
    );
    assert!(
        !String::from_utf8_lossy(&out).contains("200 OK"),
        "never served"
    );

    // A body that stops halfway is answered 408 at 30 s.
    let mut s = TcpStream::connect(h.addr).await.unwrap();
    s.write_all(post_head(&format!("Bearer {TOKEN}"), "Content-Length: 100\r\n").as_bytes())
        .await
        .unwrap();
    s.write_all(b"{\"jsonrpc\":").await.unwrap();
    let t0 = Instant::now();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out).await;
    let waited = t0.elapsed();
    assert!(out.starts_with("HTTP/1.1 408"), "{out}");
    assert!(
        waited >= Duration::from_secs(30) && waited < Duration::from_secs(31),
        "answered after {waited:?}"
    );
    h.shutdown.cancel();
}

/// The server's side of the connection from `client`, found among this process's descriptors:
/// whether it has `TCP_NODELAY`.
#[expect(
    unsafe_code,
    reason = "the server's accepted socket is only reachable as a descriptor of this process; it is borrowed (never closed) to read one socket option"
)]
fn server_side_nodelay(server: std::net::SocketAddr, client: std::net::SocketAddr) -> Option<bool> {
    use std::mem::ManuallyDrop;
    use std::os::fd::FromRawFd;
    for entry in std::fs::read_dir("/proc/self/fd").ok()?.flatten() {
        let Ok(fd) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let is_socket = std::fs::read_link(entry.path())
            .is_ok_and(|t| t.to_string_lossy().starts_with("socket:"));
        if !is_socket {
            continue;
        }
        // SAFETY: `fd` is an open socket of this process (the server's, kept open by the live
        // connection); ManuallyDrop never closes it.
        let stream = ManuallyDrop::new(unsafe { std::net::TcpStream::from_raw_fd(fd) });
        if stream.local_addr().ok() == Some(server) && stream.peer_addr().ok() == Some(client) {
            return stream.nodelay().ok();
        }
    }
    None
}

#[tokio::test]
async fn accepted_connections_have_tcp_nodelay() {
    // Without it, a response written in two segments waits for the client's delayed ACK
    // (Nagle): ~40 ms per call for Node clients.
    let h = serve().await;
    let mut s = TcpStream::connect(h.addr).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 12];
    s.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"HTTP/1.1 200");
    // The connection is open (keep-alive), so the server's socket exists.
    let client = s.local_addr().unwrap();
    assert_eq!(server_side_nodelay(h.addr, client), Some(true));
}
