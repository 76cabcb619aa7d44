//! The in-process (duplex) fake and the HTTP fakes (library and `--http` binary).

use std::process::Stdio;

use anyhow::{Context as _, Result};
use coyote_test_support::{FakeHttpServer, ListKind, Scenario, ToolBehavior, in_process};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use tokio::io::AsyncBufReadExt as _;

use crate::support::{DEADLINE, TestClient, tempdir};

#[tokio::test]
async fn in_process_pages_counts_and_disconnects() -> Result<()> {
    let scenario = Scenario::builder()
        .generated_each(5)
        .page_size(2)
        .tool("echo", ToolBehavior::Echo)
        .build();
    let (halves, handle) = in_process(scenario);
    let client = TestClient::default().serve(halves).await?;
    assert_eq!(client.list_all_tools().await?.len(), 6);
    assert_eq!(client.list_all_prompts().await?.len(), 5);
    let log = handle.events();
    assert_eq!(log.list_requests(ListKind::Tools), 3);
    assert_eq!(log.list_requests(ListKind::Prompts), 3);
    assert_eq!(log.list_requests(ListKind::Resources), 0);
    client.cancel().await?;
    handle.wait_for(DEADLINE, |l| l.disconnect_seen()).await?;
    Ok(())
}

#[tokio::test]
async fn in_process_crash_closes_the_stream() -> Result<()> {
    let scenario = Scenario::builder()
        .tool(
            "boom",
            ToolBehavior::Crash {
                stderr: "in-process crash".into(),
                exit_code: 1,
            },
        )
        .tool("raw", ToolBehavior::off_spec_mixed())
        .build();
    let (halves, handle) = in_process(scenario);
    let client = TestClient::default().serve(halves).await?;
    let result = client.call_tool(CallToolRequestParams::new("boom")).await;
    assert!(result.is_err(), "the transport is closed: {result:?}");
    assert_eq!(handle.events().tool_calls("boom"), 1);
    Ok(())
}

#[tokio::test]
async fn http_library_server_serves_and_logs() -> Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let server =
        FakeHttpServer::start(Scenario::builder().tool("echo", ToolBehavior::Echo).build()).await?;
    let client = TestClient::default()
        .serve(StreamableHttpClientTransport::from_uri(server.url()))
        .await?;
    let result = client
        .call_tool(
            CallToolRequestParams::new("echo").with_arguments(
                json!({"text": "over http"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        )
        .await?;
    assert_eq!(
        serde_json::to_value(&result.content)?,
        json!([{"type": "text", "text": "over http"}])
    );
    assert_eq!(server.handle().events().tool_calls("echo"), 1);
    Ok(())
}

#[tokio::test]
async fn http_binary_announces_its_url() -> Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = tempdir();
    let file = Scenario::builder()
        .generated_each(3)
        .page_size(2)
        .write_to(dir.path())?;
    let ready = dir.path().join("ready");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_coyote-fake-mcp"))
        .arg(&file.path)
        .arg("--http")
        .arg("--ready-file")
        .arg(&ready)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut lines = tokio::io::BufReader::new(child.stdout.take().context("stdout")?).lines();
    let url = tokio::time::timeout(DEADLINE, lines.next_line())
        .await??
        .context("url line")?;
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    assert_eq!(std::fs::read_to_string(&ready)?, format!("{url}\n"));
    let client = TestClient::default()
        .serve(StreamableHttpClientTransport::from_uri(url.as_str()))
        .await?;
    assert_eq!(client.list_all_tools().await?.len(), 3);
    assert_eq!(file.events().list_requests(ListKind::Tools), 2);
    child.kill().await?;
    Ok(())
}
