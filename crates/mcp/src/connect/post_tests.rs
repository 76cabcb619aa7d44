use rmcp::transport::streamable_http_client::StreamableHttpClient;

use super::*;

#[test]
fn media_types_compare_by_essence() {
    let v = |s: &'static str| HeaderValue::from_static(s);
    assert!(media_type_is(
        &v("Application/JSON; charset=utf-8"),
        JSON_MIME_TYPE
    ));
    assert!(media_type_is(
        &v(" text/event-stream "),
        EVENT_STREAM_MIME_TYPE
    ));
    assert!(!media_type_is(&v("application/jsonx"), JSON_MIME_TYPE));
}

/// A one-shot HTTP server on 127.0.0.1 that reads one request and answers `response` (a
/// whole HTTP/1.1 response without `Content-Length`, which is added).
async fn answering(status: &str, headers: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let response = format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        // The request: headers, then the body its Content-Length announces.
        loop {
            let n = socket.read(&mut buf).await.expect("read");
            seen.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&seen);
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                    })
                    .unwrap_or(0);
                if seen.len() >= end + 4 + length || n == 0 {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        socket.write_all(response.as_bytes()).await.expect("write");
        let _ = socket.shutdown().await;
    });
    url
}

fn list_tools_request() -> ClientJsonRpcMessage {
    serde_json::from_value(serde_json::json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}
    }))
    .expect("a request")
}

fn client() -> StatusClient {
    lazy_tls::install_crypto_provider();
    StatusClient::new(reqwest::Client::new())
}

async fn post_to(url: String, session: Option<&str>) -> PostResult {
    client()
        .post_message_with_response_limits(
            url.into(),
            list_tools_request(),
            session.map(Arc::from),
            None,
            HashMap::new(),
            StreamableHttpResponseLimits::default(),
        )
        .await
}

const JSON: &str = "Content-Type: application/json\r\n";
const RPC_ERROR: &str =
    r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: cursor"}}"#;

#[tokio::test]
async fn a_400_with_a_json_rpc_error_fails_with_the_status_and_the_body() {
    let url = answering("400 Bad Request", JSON, RPC_ERROR).await;
    let error = post_to(url, Some("s1")).await.expect_err("a 400 fails");
    let StreamableHttpError::UnexpectedServerResponse(text) = &error else {
        panic!("{error:?}");
    };
    // Sent in a session: said so, because a server that no longer takes the session is no
    // use until it is started afresh.
    assert_eq!(
        text,
        &format!("HTTP 400 Bad Request (to this session): {RPC_ERROR}")
    );
    let said = crate::connect::describe_http_error(&error);
    assert!(
        said.starts_with("the server rejected the request with HTTP 400 Bad Request: {"),
        "{said}"
    );
    // Without a session (a stateless 2026-07-28 server answers a method's error this way):
    // the JSON-RPC error of this very request is its answer, not a broken connection.
    let url = answering("400 Bad Request", JSON, RPC_ERROR).await;
    match post_to(url, None).await {
        Ok(StreamableHttpPostResponse::Json(JsonRpcMessage::Error(e), _)) => {
            assert_eq!(e.error.message, "Invalid params: cursor");
        }
        other => panic!("{other:?}"),
    }
    // Another request's error (or none) is still the HTTP failure.
    let other_id = RPC_ERROR.replace(r#""id":3"#, r#""id":99"#);
    let url = answering("400 Bad Request", JSON, &other_id).await;
    let error = post_to(url, None).await.expect_err("a 400 fails");
    let StreamableHttpError::UnexpectedServerResponse(text) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(text, &format!("HTTP 400 Bad Request: {other_id}"));
}

#[tokio::test]
async fn a_long_4xx_body_is_quoted_to_200_bytes() {
    let body = "x".repeat(5000);
    let url = answering("422 Unprocessable Entity", "", &body).await;
    let error = post_to(url, None).await.expect_err("a 422 fails");
    let said = crate::connect::describe_http_error(&error);
    assert_eq!(
        said,
        format!(
            "the server rejected the request with HTTP 422 Unprocessable Entity: {}…",
            "x".repeat(200)
        )
    );
}

#[tokio::test]
async fn a_500_with_a_json_rpc_error_is_that_error() {
    let url = answering("500 Internal Server Error", JSON, RPC_ERROR).await;
    match post_to(url, None).await {
        Ok(StreamableHttpPostResponse::Json(JsonRpcMessage::Error(error), _)) => {
            assert_eq!(error.error.message, "Invalid params: cursor");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_503_without_json_keeps_its_status_and_retry_after() {
    let url = answering("503 Service Unavailable", "Retry-After: 7\r\n", "busy").await;
    match post_to(url, None).await {
        Err(StreamableHttpError::HttpStatus(status)) => {
            assert_eq!(status.status, 503);
            assert_eq!(status.retry_after.as_deref(), Some("7"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_404_with_a_session_is_an_expired_session_and_without_one_a_rejection() {
    let url = answering("404 Not Found", "", "gone").await;
    assert!(matches!(
        post_to(url, Some("s1")).await,
        Err(StreamableHttpError::SessionExpired)
    ));
    let url = answering("404 Not Found", "", "no such endpoint").await;
    match post_to(url, None).await {
        Err(StreamableHttpError::UnexpectedServerResponse(text)) => {
            assert_eq!(text, "HTTP 404 Not Found: no such endpoint");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn challenges_go_to_sign_in() {
    let url = answering(
        "401 Unauthorized",
        "WWW-Authenticate: Bearer resource_metadata=\"http://x/.well-known/oauth-protected-resource\"\r\n",
        "",
    )
    .await;
    assert!(matches!(
        post_to(url, None).await,
        Err(StreamableHttpError::AuthRequired(_))
    ));
    let url = answering(
        "403 Forbidden",
        "WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"a b\"\r\n",
        "",
    )
    .await;
    match post_to(url, None).await {
        Err(StreamableHttpError::InsufficientScope(e)) => {
            assert_eq!(e.required_scope.as_deref(), Some("a b"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_json_answer_within_the_limit_is_the_message_and_over_it_an_error() {
    let answer = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#;
    let url = answering(
        "200 OK",
        "Content-Type: application/json\r\nMcp-Session-Id: s9\r\n",
        answer,
    )
    .await;
    match post_to(url, None).await {
        Ok(StreamableHttpPostResponse::Json(JsonRpcMessage::Response(_), session)) => {
            assert_eq!(session.as_deref(), Some("s9"));
        }
        other => panic!("{other:?}"),
    }
    let url = answering("200 OK", JSON, answer).await;
    let mut limits = StreamableHttpResponseLimits::default();
    limits.max_json_response_size = 10;
    let result = client()
        .post_message_with_response_limits(
            url.into(),
            list_tools_request(),
            None,
            None,
            HashMap::new(),
            limits,
        )
        .await;
    match result {
        Ok(StreamableHttpPostResponse::Json(JsonRpcMessage::Error(error), _)) => {
            assert_eq!(error.id, Some(RequestId::Number(3)));
            assert_eq!(
                crate::connect::line::too_large_details(&error.error),
                Some((11, true, 10))
            );
        }
        other => panic!("{other:?}"),
    }
}
