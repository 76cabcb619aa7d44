use std::path::Path;
use std::time::Duration;

use coyote_protocol::{McpServerSpec, Timeouts};
use coyote_test_support::{Capabilities, Scenario, ScenarioFile};

use super::*;
use crate::meta::declarations_for_all;

/// Deadline for things that should happen promptly (a loaded 2-core machine).
const PROMPT: Duration = Duration::from_secs(20);

fn server(dir: &Path, name: &str, caps: Capabilities) -> (ScenarioFile, McpServerSpec) {
    let file = Scenario::builder()
        .server_name(name)
        .capabilities(caps)
        .write_to(dir)
        .expect("write scenario");
    let mut spec = file.stdio_spec(name);
    spec.timeouts = Timeouts {
        startup: PROMPT,
        call: PROMPT,
    };
    (file, spec)
}

fn resources_only() -> Capabilities {
    Capabilities {
        tools: false,
        resources: true,
        prompts: false,
        completions: false,
        logging: false,
    }
}

fn tools_only() -> Capabilities {
    Capabilities {
        tools: true,
        resources: false,
        prompts: false,
        completions: false,
        logging: false,
    }
}

fn names(runtime: &McpRuntime) -> Vec<String> {
    declarations_for_all(&runtime.server_features())
        .into_iter()
        .map(|d| d.name)
        .collect()
}

#[tokio::test]
async fn equal_specs_share_one_connection_closed_after_the_last_release() {
    let tmp = tempfile::tempdir().unwrap();
    let (file, spec) = server(tmp.path(), "kb", resources_only());
    let factory = McpFactory::new(RuntimeOptions::default());
    let first = factory.acquire(spec.clone()).await;
    // Another agent's mcp.json: same server, different file.
    let mut other = spec.clone();
    other.source = tmp.path().join("other/mcp.json");
    let second = factory.acquire(other).await;
    assert_eq!(first.state(), ServerState::Ready);
    assert_eq!(factory.live_connections(), 1);
    assert_eq!(
        first.handle().unwrap().info().pid,
        second.handle().unwrap().info().pid
    );

    first.release().await;
    assert_eq!(factory.live_connections(), 1);
    // Still usable by the second agent.
    second.handle().unwrap().list_resources().await.unwrap();

    second.release().await;
    assert_eq!(factory.live_connections(), 0);
    let log = file
        .wait_for(PROMPT, |l| l.disconnect_seen())
        .await
        .unwrap();
    assert_eq!(
        log.events
            .iter()
            .filter(|e| matches!(e, coyote_test_support::Event::Started { .. }))
            .count(),
        1
    );
}

#[tokio::test]
async fn delegate_runtime_gates_its_own_resources_only_server_r15() {
    let tmp = tempfile::tempdir().unwrap();
    let (app_file, app_spec) = server(tmp.path(), "fs", tools_only());
    let (_shadowed_file, shadowed_spec) = server(tmp.path(), "kb", tools_only());
    let (kb_file, kb_spec) = server(tmp.path(), "kb", resources_only());
    let app = McpRuntime::new(RuntimeOptions::default());
    app.start_all(vec![app_spec, shadowed_spec]).await;
    let factory = McpFactory::new(RuntimeOptions::default());

    let parent = factory
        .agent_runtime(AgentServers {
            own: vec![],
            app: &app,
            app_selected: vec!["fs".into()],
        })
        .await;
    let delegate = factory
        .agent_runtime(AgentServers {
            own: vec![kb_spec.clone()],
            app: &app,
            app_selected: vec!["fs".into(), "kb".into()],
        })
        .await;
    // A second agent with the same own server shares the connection.
    let sibling = factory
        .agent_runtime(AgentServers {
            own: vec![kb_spec],
            app: &app,
            app_selected: vec![],
        })
        .await;
    assert_eq!(factory.live_connections(), 1);
    assert!(delegate.problems.is_empty(), "{:?}", delegate.problems);
    assert_eq!(delegate.shadowed, vec!["kb".to_owned()]);

    let delegate_names = names(delegate.runtime());
    assert!(
        delegate_names.contains(&"mcp_read_kb".to_owned()),
        "{delegate_names:?}"
    );
    assert!(delegate_names.contains(&"mcp_search_kb".to_owned()));
    assert!(delegate_names.contains(&"mcp_describe_kb".to_owned()));
    assert!(
        !delegate_names.contains(&"mcp_invoke_kb".to_owned()),
        "{delegate_names:?}"
    );
    assert!(delegate_names.contains(&"mcp_invoke_fs".to_owned()));
    let parent_names = names(parent.runtime());
    assert!(
        parent_names.iter().all(|n| !n.ends_with("_kb")),
        "{parent_names:?}"
    );
    assert!(parent_names.contains(&"mcp_invoke_fs".to_owned()));

    parent.close().await;
    delegate.close().await;
    assert_eq!(factory.live_connections(), 1, "the sibling still uses it");
    assert_eq!(
        app.state("fs"),
        Some(ServerState::Ready),
        "closing agents never closes app servers"
    );
    sibling.close().await;
    assert_eq!(factory.live_connections(), 0);
    kb_file
        .wait_for(PROMPT, |l| l.disconnect_seen())
        .await
        .unwrap();
    assert!(!app_file.events().disconnect_seen());
    app.shutdown().await;
}

#[tokio::test]
async fn adopted_slots_follow_their_source() {
    let tmp = tempfile::tempdir().unwrap();
    let (_file, spec) = server(tmp.path(), "fs", tools_only());
    let app = McpRuntime::new(RuntimeOptions::default());
    app.start_all(vec![spec]).await;
    let agent = McpRuntime::new(RuntimeOptions::default());
    agent.adopt(&app, "fs").unwrap();
    assert!(matches!(
        agent.adopt(&app, "fs"),
        Err(McpError::ServerNotReady { .. })
    ));
    assert!(matches!(
        agent.adopt(&app, "nope"),
        Err(McpError::UnknownServer { .. })
    ));
    app.shutdown().await;
    let mut state = agent.state("fs");
    let deadline = tokio::time::Instant::now() + PROMPT;
    while state == Some(ServerState::Ready) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
        state = agent.state("fs");
    }
    assert!(matches!(state, Some(ServerState::Failed(_))), "{state:?}");
}

#[tokio::test]
async fn prompts_only_own_server_keeps_search_describe_prompt_r12() {
    let tmp = tempfile::tempdir().unwrap();
    let caps = Capabilities {
        tools: false,
        resources: false,
        prompts: true,
        completions: false,
        logging: false,
    };
    let (file, spec) = server(tmp.path(), "tpl", caps);
    let app = McpRuntime::new(RuntimeOptions::default());
    let factory = McpFactory::new(RuntimeOptions::default());
    let agent = factory
        .agent_runtime(AgentServers {
            own: vec![spec],
            app: &app,
            app_selected: vec![],
        })
        .await;
    let mut got = names(agent.runtime());
    got.sort();
    assert_eq!(
        got,
        vec![
            "mcp_describe_tpl".to_owned(),
            "mcp_prompt_tpl".to_owned(),
            "mcp_search_tpl".to_owned(),
        ]
    );
    agent.close().await;
    file.wait_for(PROMPT, |l| l.disconnect_seen())
        .await
        .unwrap();
}

/// An agent that uses an app server declared from its cached catalog does not start
/// it by being built; its first call starts the server once, in the app's runtime, and both
/// runtimes then serve the same connection.
#[tokio::test]
async fn an_agent_adopts_an_idle_app_server_idle_and_its_first_call_starts_it_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (_file, spec) = server(tmp.path(), "kb", tools_only());
    let options = RuntimeOptions {
        catalog_cache: Some(crate::catalog_cache::CatalogCache::new(
            tmp.path().join("catalogs"),
        )),
        ..RuntimeOptions::default()
    };
    // Cold: the server starts and its catalog is cached.
    let first = McpRuntime::new(options.clone());
    first.start_all_lazily(vec![spec.clone()]).await;
    assert_eq!(first.state("kb"), Some(ServerState::Ready));
    first.shutdown().await;

    // Warm: the app declares it Idle, and so does the agent built on it.
    let app = McpRuntime::new(options.clone());
    app.start_all_lazily(vec![spec]).await;
    assert_eq!(app.state("kb"), Some(ServerState::Idle));
    let factory = McpFactory::new(options);
    let agent = factory
        .agent_runtime(AgentServers {
            own: vec![],
            app: &app,
            app_selected: vec!["kb".into()],
        })
        .await;
    assert!(agent.problems.is_empty(), "{:?}", agent.problems);
    assert_eq!(agent.runtime().state("kb"), Some(ServerState::Idle));
    assert_eq!(app.state("kb"), Some(ServerState::Idle));
    assert!(names(agent.runtime()).contains(&"mcp_invoke_kb".to_owned()));

    // The agent's first call: started in the app, mirrored in the agent.
    let handle = agent.runtime().acquire("kb").await.unwrap();
    assert_eq!(app.state("kb"), Some(ServerState::Ready));
    assert_eq!(agent.runtime().state("kb"), Some(ServerState::Ready));
    assert!(handle.same_connection(&app.server("kb").unwrap()));
    agent.close().await;
    app.shutdown().await;
}
