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
    client.cancel().await?;
    server
        .handle()
        .wait_for(DEADLINE, |l| l.disconnect_seen())
        .await?;
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

#[tokio::test]
async fn in_process_notifications_reach_the_client() -> Result<()> {
    use coyote_test_support::ServerNotice;
    let scenario = Scenario::builder()
        .capabilities(coyote_test_support::Capabilities::all())
        .tool(
            "notify",
            ToolBehavior::Notify {
                notifications: vec![
                    ServerNotice::ToolsListChanged,
                    ServerNotice::ResourcesListChanged,
                    ServerNotice::PromptsListChanged,
                    ServerNotice::ResourceUpdated {
                        uri: "fake://x".into(),
                    },
                    ServerNotice::Log {
                        level: "warning".into(),
                        data: json!("careful"),
                    },
                ],
            },
        )
        .build();
    let (halves, _handle) = in_process(scenario);
    let handler = TestClient::default();
    let client = handler.clone().serve(halves).await?;
    client
        .call_tool(CallToolRequestParams::new("notify"))
        .await?;
    // Notifications precede the response on the same pipe; give the client's handler tasks
    // a moment to run by waiting on one more round trip.
    client.list_all_tools().await?;
    assert_eq!(
        handler.notices(),
        vec![
            "tools_list_changed",
            "resources_list_changed",
            "prompts_list_changed",
            "resource_updated:fake://x",
            "log:warning"
        ]
    );
    Ok(())
}

#[tokio::test]
async fn in_process_hang_and_elicitation_outcomes() -> Result<()> {
    for action in ["accept", "decline", "cancel"] {
        let scenario = Scenario::builder()
            .tool("ask", ToolBehavior::elicit_form())
            .tool("hang", ToolBehavior::Hang)
            .build();
        let (halves, handle) = in_process(scenario);
        let answer = if action == "accept" {
            json!({"action": "accept", "content": {"name": "Ada", "count": 3, "confirm": false, "color": "green"}})
        } else {
            json!({"action": action})
        };
        let client = TestClient::answering(answer.clone()).serve(halves).await?;
        let result = client.call_tool(CallToolRequestParams::new("ask")).await?;
        let text = result.content[0]
            .as_text()
            .map(|t| t.text.clone())
            .context("text")?;
        let mut expected = answer.clone();
        if action != "accept" {
            expected["content"] = serde_json::Value::Null;
        }
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text)?, expected);

        let mut hang = Box::pin(client.call_tool(CallToolRequestParams::new("hang")));
        tokio::select! {
            result = &mut hang => anyhow::bail!("hang answered: {result:?}"),
            seen = handle.wait_for(DEADLINE, |l| l.tool_calls("hang") == 1) => { seen?; }
        }
        drop(hang);
        let log = handle
            .wait_for(DEADLINE, |l| l.tools_cancelled() == ["hang"])
            .await?;
        assert_eq!(log.cancelled_notifications(), 1);
    }
    Ok(())
}

#[tokio::test]
async fn scenario_md_example_parses_and_runs() -> Result<()> {
    let doc = include_str!("../SCENARIO.md");
    let start = doc.find("```json\n").context("json block")? + "```json\n".len();
    let end = start + doc[start..].find("```").context("end of json block")?;
    let mut scenario: Scenario = serde_json::from_str(&doc[start..end])?;
    scenario.event_log = None;
    let (halves, handle) = in_process(scenario);
    let client = TestClient::default().serve(halves).await?;
    assert_eq!(client.list_all_tools().await?.len(), 3 + 16);
    assert_eq!(client.list_all_resources().await?.len(), 3 + 6);
    assert_eq!(client.list_all_resource_templates().await?.len(), 2);
    assert_eq!(client.list_all_prompts().await?.len(), 3);
    assert_eq!(handle.events().list_requests(ListKind::Tools), 10);
    Ok(())
}

#[tokio::test]
async fn fake_mcp_bin_finds_the_built_binary() -> Result<()> {
    let found = coyote_test_support::fake_mcp_bin();
    assert_eq!(
        found.canonicalize()?,
        std::path::Path::new(env!("CARGO_BIN_EXE_coyote-fake-mcp")).canonicalize()?
    );
    Ok(())
}
