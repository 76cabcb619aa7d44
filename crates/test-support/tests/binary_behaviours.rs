//! The binary's tool, resource, prompt, completion and start-up behaviours.

use anyhow::{Context as _, Result};
use base64::Engine as _;
use coyote_test_support::{
    CompletionMode, CompletionTarget, PromptArgSpec, PromptContent, PromptMessageSpec, PromptRole,
    PromptSpec, ResourceBody, Scenario, Startup, StartupMode, ToolBehavior, big_text,
    generated_blob,
};
use rmcp::model::{
    CallToolRequestParams, ClientRequest, CustomRequest, GetPromptRequestParams,
    ReadResourceRequestParams, Reference, ServerResult,
};
use serde_json::{Value, json};
use sha2::Digest as _;

use crate::support::{DEADLINE, TestClient, connect, read_stderr, spawn_raw, tempdir};

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[tokio::test]
async fn slow_tool_sends_progress_and_observes_cancellation() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .tool(
            "quick",
            ToolBehavior::Slow {
                duration_ms: 40,
                progress_every_ms: Some(10),
            },
        )
        .tool(
            "slow",
            ToolBehavior::Slow {
                duration_ms: 600_000,
                progress_every_ms: None,
            },
        )
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let done = spawned
        .client
        .call_tool(CallToolRequestParams::new("quick"))
        .await?;
    assert_eq!(
        serde_json::to_value(&done.content)?,
        json!([{"type": "text", "text": "done after 40 ms"}])
    );
    assert_eq!(file.events().progress_sent(), 4);

    // Boxed (not `pin!`ned) so that `drop` really drops the future.
    let mut call = Box::pin(spawned.client.call_tool(CallToolRequestParams::new("slow")));
    tokio::select! {
        result = &mut call => anyhow::bail!("slow tool answered: {result:?}"),
        seen = file.wait_for(DEADLINE, |l| l.tool_calls("slow") == 1) => { seen?; }
    }
    drop(call); // rmcp sends notifications/cancelled for a dropped call
    let log = file
        .wait_for(DEADLINE, |l| !l.tools_cancelled().is_empty())
        .await?;
    assert_eq!(log.tools_cancelled(), vec!["slow".to_owned()]);
    assert_eq!(log.cancelled_notifications(), 1);
    Ok(())
}

#[tokio::test]
async fn crash_mid_call_exits_with_its_stderr() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .tool(
            "boom",
            ToolBehavior::Crash {
                stderr: "fatal: fake crash".into(),
                exit_code: 7,
            },
        )
        .write_to(dir.path())?;
    let mut spawned = connect(&file, TestClient::default()).await?;
    let stderr = spawned.child.stderr.take().context("stderr")?;
    let result = spawned
        .client
        .call_tool(CallToolRequestParams::new("boom"))
        .await;
    assert!(
        result.is_err(),
        "a crashed server cannot answer: {result:?}"
    );
    let status = tokio::time::timeout(DEADLINE, spawned.child.wait()).await??;
    assert_eq!(status.code(), Some(7));
    assert_eq!(read_stderr(stderr).await, "fatal: fake crash\n");
    Ok(())
}

#[tokio::test]
async fn garbage_line_and_off_spec_result_are_written_raw() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .tool(
            "garbage",
            ToolBehavior::GarbageStdout {
                line: "this is not json".into(),
            },
        )
        .tool("offspec", ToolBehavior::off_spec_mixed())
        .tool(
            "failing",
            ToolBehavior::Error {
                text: "it failed".into(),
            },
        )
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let ok = spawned
        .client
        .call_tool(CallToolRequestParams::new("garbage"))
        .await?;
    assert_eq!(
        serde_json::to_value(&ok.content)?,
        json!([{"type": "text", "text": "ok"}])
    );

    let typed = spawned
        .client
        .call_tool(CallToolRequestParams::new("offspec"))
        .await;
    assert!(
        typed.is_err(),
        "rmcp's typed result rejects the off-spec block"
    );
    let raw = spawned
        .client
        .send_request(ClientRequest::CustomRequest(CustomRequest::new(
            "tools/call",
            Some(json!({"name": "offspec"})),
        )))
        .await?;
    let ServerResult::CustomResult(raw) = raw else {
        anyhow::bail!("expected a raw result, got {raw:?}")
    };
    let ToolBehavior::RawResult { result: expected } = ToolBehavior::off_spec_mixed() else {
        unreachable!()
    };
    assert_eq!(raw.0, expected);

    let failing = spawned
        .client
        .call_tool(CallToolRequestParams::new("failing"))
        .await?;
    assert_eq!(failing.is_error, Some(true));
    Ok(())
}

#[tokio::test]
async fn large_payloads_are_streamed_exactly() -> Result<()> {
    const BLOB: u64 = 20 << 20; // beyond rmcp's default 16 MiB line limit
    let dir = tempdir();
    let file = Scenario::builder()
        .resource(
            "fake://big",
            "big",
            ResourceBody::GeneratedBlob { bytes: BLOB },
        )
        .resource("fake://png", "png", ResourceBody::Png)
        .resource(
            "fake://b64",
            "b64",
            ResourceBody::Base64Text {
                text: "héllo".into(),
            },
        )
        .tool("oversized", ToolBehavior::Oversized { mib: 2 })
        .tool("text300k", ToolBehavior::BigText { bytes: 300 * 1024 })
        .tool("image", ToolBehavior::Image)
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let b64 = base64::engine::general_purpose::STANDARD;

    let big = spawned
        .client
        .read_resource(ReadResourceRequestParams::new("fake://big"))
        .await?;
    let blob = serde_json::to_value(&big.contents)?[0]["blob"]
        .as_str()
        .map(str::to_owned)
        .context("blob")?;
    let bytes = b64.decode(blob)?;
    assert_eq!(bytes.len() as u64, BLOB);
    assert_eq!(
        sha2::Sha256::digest(&bytes),
        sha2::Sha256::digest(generated_blob(BLOB))
    );

    let png = spawned
        .client
        .read_resource(ReadResourceRequestParams::new("fake://png"))
        .await?;
    let png = serde_json::to_value(&png.contents)?;
    assert_eq!(png[0]["blob"], json!(coyote_test_support::png_base64()));
    let text = spawned
        .client
        .read_resource(ReadResourceRequestParams::new("fake://b64"))
        .await?;
    assert_eq!(
        serde_json::to_value(&text.contents)?[0]["blob"],
        json!(b64.encode("héllo"))
    );

    let oversized = spawned
        .client
        .call_tool(CallToolRequestParams::new("oversized"))
        .await?;
    let text = oversized.content[0].as_text().map(|t| t.text.len());
    assert_eq!(text, Some(2 << 20));
    let big_text_result = spawned
        .client
        .call_tool(CallToolRequestParams::new("text300k"))
        .await?;
    assert_eq!(
        big_text_result.content[0].as_text().map(|t| t.text.clone()),
        Some(big_text(300 * 1024))
    );
    let image = spawned
        .client
        .call_tool(CallToolRequestParams::new("image"))
        .await?;
    assert_eq!(
        image.content[1].as_image().map(|i| i.data.clone()),
        Some(coyote_test_support::png_base64())
    );
    Ok(())
}

#[tokio::test]
async fn elicitation_returns_the_clients_answer() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .tool("ask", ToolBehavior::elicit_form())
        .destructive_tool(
            "wipe",
            ToolBehavior::Text {
                text: "wiped".into(),
            },
        )
        .write_to(dir.path())?;
    let answer = json!({"action": "accept", "content": {"name": "Bob", "count": 5, "confirm": true, "color": "red"}});
    let spawned = connect(&file, TestClient::answering(answer.clone())).await?;
    let result = spawned
        .client
        .call_tool(CallToolRequestParams::new("ask"))
        .await?;
    let text = result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .context("text")?;
    assert_eq!(serde_json::from_str::<Value>(&text)?, answer);
    assert_eq!(
        file.events().elicitations(),
        vec![("accept".to_owned(), Some(answer["content"].clone()))]
    );

    let tools = spawned.client.list_all_tools().await?;
    let wipe = tools
        .iter()
        .find(|t| t.name == "wipe")
        .context("wipe listed")?;
    assert_eq!(
        serde_json::to_value(&wipe.annotations)?,
        json!({"destructiveHint": true, "readOnlyHint": false})
    );
    Ok(())
}

#[tokio::test]
async fn prompts_templates_and_completion() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .prompt(PromptSpec {
            name: "review".into(),
            title: None,
            description: Some("review a file".into()),
            arguments: vec![
                PromptArgSpec {
                    name: "path".into(),
                    description: None,
                    required: true,
                },
                PromptArgSpec {
                    name: "tone".into(),
                    description: None,
                    required: false,
                },
            ],
            messages: vec![
                PromptMessageSpec {
                    role: PromptRole::User,
                    content: PromptContent::Text {
                        text: "!touch {path}".into(),
                    },
                },
                PromptMessageSpec {
                    role: PromptRole::Assistant,
                    content: PromptContent::Text {
                        text: ".session {tone}".into(),
                    },
                },
                PromptMessageSpec {
                    role: PromptRole::User,
                    content: PromptContent::Image,
                },
                PromptMessageSpec {
                    role: PromptRole::User,
                    content: PromptContent::Resource {
                        uri: "fake://doc".into(),
                        mime_type: Some("text/plain".into()),
                        text: "doc {path}".into(),
                    },
                },
            ],
        })
        .template("fake://item/{id}", "item", "item number {id}")
        .completion(
            CompletionTarget::ResourceTemplate {
                uri: "fake://item/{id}".into(),
            },
            "id",
            &["10", "11", "20"],
        )
        .completion(
            CompletionTarget::Prompt {
                name: "review".into(),
            },
            "tone",
            &["kind", "harsh"],
        )
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let client = &spawned.client;

    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("review")
                .with_arguments(args(json!({"path": "/tmp/x", "tone": "kind"}))),
        )
        .await?;
    let messages = serde_json::to_value(&prompt.messages)?;
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": {"type": "text", "text": "!touch /tmp/x"}})
    );
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": {"type": "text", "text": ".session kind"}})
    );
    assert_eq!(messages[2]["content"]["type"], json!("image"));
    assert_eq!(
        messages[3]["content"]["resource"],
        json!({"uri": "fake://doc", "mimeType": "text/plain", "text": "doc /tmp/x"})
    );
    let missing = client
        .get_prompt(GetPromptRequestParams::new("review"))
        .await;
    assert!(missing.is_err(), "path is required");

    let item = client
        .read_resource(ReadResourceRequestParams::new("fake://item/42"))
        .await?;
    assert_eq!(
        serde_json::to_value(&item.contents)?[0]["text"],
        json!("item number 42")
    );

    let ids = client
        .complete_resource_simple("fake://item/{id}", "id", "1")
        .await?;
    assert_eq!(ids, vec!["10".to_owned(), "11".to_owned()]);
    let tones = client.complete_prompt_simple("review", "tone", "h").await?;
    assert_eq!(tones, vec!["harsh".to_owned()]);
    let _ = Reference::for_prompt("review");
    Ok(())
}

#[tokio::test]
async fn never_answering_completion_is_logged() -> Result<()> {
    let dir = tempdir();
    let file = Scenario::builder()
        .completion_mode(CompletionMode::NeverAnswer)
        .write_to(dir.path())?;
    let spawned = connect(&file, TestClient::default()).await?;
    let call = spawned.client.complete_prompt_simple("any", "arg", "x");
    tokio::pin!(call);
    tokio::select! {
        result = &mut call => anyhow::bail!("completion answered: {result:?}"),
        seen = file.wait_for(DEADLINE, |l| l.complete_requests() == 1) => { seen?; }
    }
    Ok(())
}

#[tokio::test]
async fn startup_crash_hang_and_grandchild() -> Result<()> {
    let dir = tempdir();
    let crash = Scenario::builder()
        .startup(Startup {
            stderr_lines: vec!["noise line".into()],
            mode: StartupMode::CrashAtStart {
                stderr: "cannot start: missing token".into(),
                exit_code: 4,
            },
            ..Startup::default()
        })
        .write_to(dir.path())?;
    let mut child = spawn_raw(&crash)?;
    let stderr = child.stderr.take().context("stderr")?;
    let status = tokio::time::timeout(DEADLINE, child.wait()).await??;
    assert_eq!(status.code(), Some(4));
    assert_eq!(
        read_stderr(stderr).await,
        "noise line\ncannot start: missing token\n"
    );

    let hang = Scenario::builder()
        .startup_mode(StartupMode::HangAtInitialize)
        .write_to(dir.path())?;
    let hang_child = tokio::spawn({
        let hang = hang.clone();
        async move { connect(&hang, TestClient::default()).await.map(|_| ()) }
    });
    hang.wait_for(DEADLINE, |l| l.initialize_seen()).await?;
    assert!(!hang_child.is_finished(), "initialize must not be answered");
    hang_child.abort();

    let grand = Scenario::builder()
        .startup(Startup {
            spawn_grandchild: true,
            ..Startup::default()
        })
        .write_to(dir.path())?;
    let spawned = connect(&grand, TestClient::default()).await?;
    let pid = grand
        .events()
        .grandchild_pid()
        .context("grandchild pid logged")?;
    let alive = std::path::Path::new(&format!("/proc/{pid}")).exists();
    // Clean up the deliberately orphanable grandchild.
    let _ = std::process::Command::new("kill")
        .arg(pid.to_string())
        .status();
    drop(spawned);
    assert!(alive, "grandchild {pid} should be running");
    Ok(())
}
