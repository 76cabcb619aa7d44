//! stdio servers that misbehave: each failure is explicit, names the server, and never
//! delays or breaks the other servers.

use std::time::Duration;

use coyote_mcp::{CatalogKind, McpError, McpRuntime, RuntimeOptions, ServerState, TimeoutPhase};
use coyote_protocol::{McpServerSpec, McpTransport, StdioSpec};
use coyote_test_support::{PaginationMode, Scenario, Startup, StartupMode, ToolBehavior};
use serde_json::{Map, json};

use super::support::{PROMPT, process_gone, relaxed, runtime, stdio, timeouts};

#[tokio::test]
async fn a_hanging_call_times_out_naming_its_server_while_another_keeps_answering() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hang = Scenario::builder().tool("hang", ToolBehavior::Hang);
    let (hang_file, hang_spec) = stdio(
        dir.path(),
        "stuck",
        hang,
        timeouts(PROMPT, Duration::from_millis(1500)),
    );
    let echo = Scenario::builder().tool("echo", ToolBehavior::Echo);
    let (_echo_file, echo_spec) = stdio(dir.path(), "lively", echo, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![hang_spec, echo_spec]).await;
    let stuck = runtime.server("stuck").expect("ready");
    let lively = runtime.server("lively").expect("ready");

    let hanging = tokio::spawn(async move { stuck.call_tool("hang", Map::new()).await });
    // While the hang is pending, the other server answers call after call.
    for i in 0..5 {
        let mut args = Map::new();
        args.insert("text".into(), json!(format!("ping {i}")));
        lively
            .call_tool("echo", args)
            .await
            .expect("the other server answers");
    }
    match hanging.await.expect("join") {
        Err(McpError::Timeout {
            server,
            phase,
            after,
        }) => {
            assert_eq!(server, "stuck");
            assert_eq!(
                phase,
                TimeoutPhase::Call {
                    method: "tools/call".into()
                }
            );
            assert_eq!(after, Duration::from_millis(1500));
        }
        other => panic!("expected a call timeout, got {other:?}"),
    }
    hang_file
        .wait_for(PROMPT, |e| e.cancelled_notifications() == 1)
        .await
        .expect("notifications/cancelled sent");
    assert_eq!(
        runtime.state("stuck"),
        Some(ServerState::Ready),
        "a timeout does not kill the server"
    );
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_server_hanging_at_initialize_fails_at_its_startup_deadline_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hang = Scenario::builder().startup_mode(StartupMode::HangAtInitialize);
    let (hang_file, hang_spec) = stdio(
        dir.path(),
        "mute",
        hang,
        timeouts(Duration::from_millis(1500), PROMPT),
    );
    let (_file, ok_spec) = stdio(dir.path(), "fine", Scenario::builder(), relaxed());
    let runtime = runtime();
    runtime.start_all(vec![hang_spec, ok_spec]).await;

    assert_eq!(runtime.state("fine"), Some(ServerState::Ready));
    assert_eq!(
        runtime.state("mute"),
        Some(ServerState::Failed(
            "MCP server 'mute' timed out during startup (spawn/connect and initialize) after 1.5 s; \
             raise startupTimeoutSec in mcp.json if the server is just slow"
                .into()
        ))
    );
    let pid = hang_file.events().server_pid().expect("started");
    assert!(
        process_gone(pid, PROMPT).await,
        "the hung server {pid} was killed"
    );
    runtime.shutdown().await;
}

#[tokio::test]
async fn an_oversized_message_is_an_explicit_error_and_the_server_stays_usable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder()
        .tool("huge", ToolBehavior::Oversized { mib: 81 })
        .tool("echo", ToolBehavior::Echo);
    let (_file, spec) = stdio(dir.path(), "huge", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    let handle = runtime.server("huge").expect("ready");

    match handle.call_tool("huge", Map::new()).await {
        Err(error @ McpError::MessageTooLarge { .. }) => {
            let McpError::MessageTooLarge {
                ref server,
                size,
                limit,
                ..
            } = error
            else {
                unreachable!()
            };
            assert_eq!(server, "huge");
            assert_eq!(limit, 80 * 1024 * 1024);
            assert!(size > limit);
            assert!(
                error
                    .to_string()
                    .contains("exceeds the limit of 80 MiB (MAX_MESSAGE_BYTES)"),
                "{error}"
            );
        }
        other => panic!("expected MessageTooLarge, got {other:?}"),
    }
    let mut args = Map::new();
    args.insert("text".into(), json!("still here"));
    let outcome = handle
        .call_tool("echo", args)
        .await
        .expect("the stream recovered");
    assert_eq!(outcome.content.len(), 1);
    runtime.shutdown().await;
}

#[tokio::test]
async fn the_size_limit_is_injectable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder().tool("big", ToolBehavior::Oversized { mib: 2 });
    let (_file, spec) = stdio(dir.path(), "small", builder, relaxed());
    let options = RuntimeOptions {
        max_message_bytes: 1024 * 1024,
        ..RuntimeOptions::default()
    };
    let runtime = McpRuntime::new(options);
    runtime.start_all(vec![spec]).await;
    let result = runtime
        .server("small")
        .expect("ready")
        .call_tool("big", Map::new())
        .await;
    assert!(
        matches!(
            result,
            Err(McpError::MessageTooLarge {
                limit: 1_048_576,
                ..
            })
        ),
        "{result:?}"
    );
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_crash_mid_call_fails_the_server_with_its_stderr_tail() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder()
        .startup(Startup {
            stderr_lines: vec!["starting up".into()],
            ..Startup::default()
        })
        .tool(
            "boom",
            ToolBehavior::Crash {
                stderr: "panic: disk on fire".into(),
                exit_code: 3,
            },
        );
    let (_file, spec) = stdio(dir.path(), "crashy", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;

    let expected = ServerState::Failed(
        "the server process exited with status 3; stderr tail:\n  starting up\n  panic: disk on fire".into(),
    );
    match runtime
        .server("crashy")
        .expect("ready")
        .call_tool("boom", Map::new())
        .await
    {
        Err(McpError::ServerNotReady { server, state }) => {
            assert_eq!((server.as_str(), state), ("crashy", expected.clone()));
        }
        other => panic!("expected ServerNotReady, got {other:?}"),
    }
    assert_eq!(runtime.state("crashy"), Some(expected));
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_crash_at_start_is_a_failed_handshake_with_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder().startup_mode(StartupMode::CrashAtStart {
        stderr: "error: missing API key".into(),
        exit_code: 1,
    });
    let (_file, spec) = stdio(dir.path(), "nokey", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    assert_eq!(
        runtime.state("nokey"),
        Some(ServerState::Failed(
            "MCP server 'nokey' failed the initialize handshake: the connection closed before the \
             server answered initialize (the process exited with status 1); check that the \
             command/URL points at an MCP server; stderr tail:\n  error: missing API key"
                .into()
        ))
    );
    runtime.shutdown().await;
}

#[tokio::test]
async fn a_missing_command_fails_with_the_fix() {
    let runtime = runtime();
    let spec = McpServerSpec {
        name: "ghost".into(),
        transport: McpTransport::Stdio(StdioSpec {
            command: "/nonexistent/coyote-no-such-server".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
        }),
        timeouts: relaxed(),
        approve: Default::default(),
        expose: Default::default(),
        retrieve: Default::default(),
        auto_approve: vec![],
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        source: "mcp.json".into(),
    };
    runtime.start_all(vec![spec]).await;
    assert_eq!(
        runtime.state("ghost"),
        Some(ServerState::Failed(
            "could not start MCP server 'ghost' (/nonexistent/coyote-no-such-server): No such file \
             or directory (os error 2); check that the command is installed and on PATH"
                .into()
        ))
    );
    runtime.shutdown().await;
}

#[tokio::test]
async fn no_grandchild_outlives_shutdown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder().startup(Startup {
        spawn_grandchild: true,
        ..Startup::default()
    });
    let (file, spec) = stdio(dir.path(), "parent", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    assert_eq!(runtime.state("parent"), Some(ServerState::Ready));
    let events = file
        .wait_for(PROMPT, |e| e.grandchild_pid().is_some())
        .await
        .expect("grandchild");
    let (server, grandchild) = (
        events.server_pid().expect("pid"),
        events.grandchild_pid().expect("pid"),
    );
    assert!(
        !process_gone(grandchild, Duration::ZERO).await,
        "the grandchild runs before shutdown"
    );

    runtime.shutdown().await;
    assert!(
        process_gone(server, PROMPT).await,
        "server {server} still running"
    );
    assert!(
        process_gone(grandchild, PROMPT).await,
        "grandchild {grandchild} still running"
    );
}

#[tokio::test]
async fn a_repeated_cursor_over_stdio_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let builder = Scenario::builder()
        .page_size(1)
        .generated_each(2)
        .pagination(PaginationMode::RepeatedCursor);
    let (_file, spec) = stdio(dir.path(), "loopy", builder, relaxed());
    let runtime = runtime();
    runtime.start_all(vec![spec]).await;
    let result = runtime.server("loopy").expect("ready").list_prompts().await;
    assert!(
        matches!(
            &result,
            Err(McpError::RepeatedCursor { server, kind: CatalogKind::Prompt, cursor })
                if server == "loopy" && cursor == "repeat"
        ),
        "{result:?}"
    );
    runtime.shutdown().await;
}
