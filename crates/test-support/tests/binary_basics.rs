//! The binary over stdio: paging, counters, capabilities, repeated cursors, disconnect.

use anyhow::Result;
use coyote_test_support::{
    Capabilities, Event, ListKind, PaginationMode, REPEATED_CURSOR, Scenario, ToolBehavior,
};
use rmcp::model::{CallToolRequestParams, PaginatedRequestParams};
use serde_json::json;

use crate::support::{DEADLINE, TestClient, connect, tempdir};

#[tokio::test]
async fn pages_every_kind_and_counts_list_requests() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .generated_each(5)
        .page_size(2)
        .tool("echo", ToolBehavior::Echo)
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let client = &spawned.client;

    let tools: Vec<String> = client
        .list_all_tools()
        .await?
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    let resources: Vec<String> = client
        .list_all_resources()
        .await?
        .into_iter()
        .map(|r| r.uri.clone())
        .collect();
    let templates = client.list_all_resource_templates().await?;
    let prompts = client.list_all_prompts().await?;
    assert_eq!(
        tools,
        vec![
            "gen_tool_0000",
            "gen_tool_0001",
            "gen_tool_0002",
            "gen_tool_0003",
            "gen_tool_0004",
            "echo"
        ]
    );
    assert_eq!(
        resources,
        (0..5)
            .map(|i| format!("fake://gen/{i:04}"))
            .collect::<Vec<_>>()
    );
    assert_eq!(templates.len(), 5);
    assert_eq!(prompts.len(), 5);

    let result = client
        .call_tool(
            CallToolRequestParams::new("echo").with_arguments(
                json!({"text": "hi"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        )
        .await?;
    assert_eq!(
        serde_json::to_value(&result.content)?,
        json!([{"type": "text", "text": "hi"}])
    );

    let log = file.events();
    assert_eq!(log.list_requests(ListKind::Tools), 3);
    assert_eq!(log.list_requests(ListKind::Resources), 3);
    assert_eq!(log.list_requests(ListKind::ResourceTemplates), 3);
    assert_eq!(log.list_requests(ListKind::Prompts), 3);
    assert_eq!(log.tool_calls("echo"), 1);
    assert!(log.initialize_seen());
    assert_eq!(log.server_pid(), spawned.child.id());

    spawned.client.cancel().await?;
    let log = file.wait_for(DEADLINE, |l| l.disconnect_seen()).await?;
    assert!(matches!(log.events.first(), Some(Event::Started { .. })));
    Ok(())
}

#[tokio::test]
async fn repeated_cursor_mode_answers_the_same_cursor_forever() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .generated_each(3)
        .page_size(2)
        .pagination(PaginationMode::RepeatedCursor)
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let first = spawned.client.list_tools(None).await?;
    let second = spawned
        .client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(first.next_cursor.clone()),
        ))
        .await?;
    assert_eq!(first.next_cursor.as_deref(), Some(REPEATED_CURSOR));
    assert_eq!(second.next_cursor.as_deref(), Some(REPEATED_CURSOR));
    assert_eq!(first.tools, second.tools);
    Ok(())
}

#[tokio::test]
async fn capabilities_follow_the_scenario() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .capabilities(Capabilities::none().with_resources())
        .generated_each(1)
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let info = spawned.client.peer_info().expect("peer info");
    let caps = serde_json::to_value(&info.capabilities)?;
    assert_eq!(
        caps,
        json!({"resources": {"subscribe": false, "listChanged": false}})
    );
    assert!(
        spawned.client.list_tools(None).await.is_err(),
        "tools are not advertised"
    );
    assert_eq!(spawned.client.list_all_resources().await?.len(), 1);
    Ok(())
}

#[tokio::test]
async fn forced_protocol_version_and_stdout_banner() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .protocol_version("2025-03-26")
        .startup(coyote_test_support::Startup {
            stdout_lines: vec!["Welcome to a chatty server!".into()],
            ..Default::default()
        })
        .tool("echo", ToolBehavior::Echo)
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let info = spawned.client.peer_info().expect("peer info");
    assert_eq!(
        serde_json::to_value(&info.protocol_version)?,
        json!("2025-03-26")
    );
    assert_eq!(spawned.client.list_all_tools().await?.len(), 1);
    Ok(())
}
