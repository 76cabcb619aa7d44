//! `coyote mcp …` against the fake MCP server binary: pagination request counts, timeouts,
//! crashes with stderr tails, and no process left behind.

use std::time::{Duration, Instant};

use coyote_test_support::{Capabilities, ListKind, Scenario, StartupMode, ToolBehavior};
use serde_json::json;

use super::common::{Home, alive};

#[test]
fn page_size_2_lists_every_item_with_ceil_n_over_2_requests_per_kind() {
    let home = Home::new();
    let n = 7;
    let scenario = Scenario::builder()
        .page_size(2)
        .generated_each(n)
        .event_log(&home.path().join("events.jsonl"))
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let tools = home.json(&["mcp", "tools", "fake"]);
    let resources = home.json(&["mcp", "resources", "fake"]);
    let templates = home.json(&["mcp", "templates", "fake"]);
    let prompts = home.json(&["mcp", "prompts", "fake"]);
    for (list, what) in [
        (&tools, "tools"),
        (&resources, "resources"),
        (&templates, "templates"),
        (&prompts, "prompts"),
    ] {
        assert_eq!(list.as_array().unwrap().len(), n, "{what}: {list:#}");
    }
    assert_eq!(tools[6]["name"], "gen_tool_0006");
    let events = scenario.events();
    let pages = n.div_ceil(2);
    // One process per command, each listing its kind once.
    for kind in [
        ListKind::Tools,
        ListKind::Resources,
        ListKind::ResourceTemplates,
        ListKind::Prompts,
    ] {
        assert_eq!(events.list_requests(kind), pages, "{kind:?}");
    }
}

#[test]
fn repeated_cursor_is_an_error_not_a_hang() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .page_size(1)
        .pagination(coyote_test_support::PaginationMode::RepeatedCursor)
        .generated_each(3)
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "fake": scenario.mcp_json_entry() }));
    let (code, _out, err) = home.run(&["mcp", "tools", "fake"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("repeated the cursor"), "{err}");
}

#[test]
fn hanging_call_times_out_naming_the_server() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .tool("wait", ToolBehavior::Hang)
        .event_log(&home.path().join("events.jsonl"))
        .write_to(home.path())
        .unwrap();
    let mut entry = scenario.mcp_json_entry();
    entry["toolTimeoutSec"] = json!(1);
    home.write_servers(json!({ "slowpoke": entry }));
    let (code, _out, err) = home.run(&["mcp", "call", "slowpoke", "wait"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("'slowpoke' timed out"), "{err}");
    // The timed-out request was cancelled on the wire.
    assert_eq!(scenario.events().cancelled_notifications(), 1);
}

#[test]
fn crashing_server_is_failed_with_its_stderr_tail() {
    let home = Home::new();
    let scenario = Scenario::builder()
        .startup_mode(StartupMode::CrashAtStart {
            stderr: "fatal: missing API token".into(),
            exit_code: 3,
        })
        .write_to(home.path())
        .unwrap();
    std::fs::create_dir_all(home.path().join("ok")).unwrap();
    let ok = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .write_to(&home.path().join("ok"))
        .unwrap();
    home.write_servers(json!({ "crashy": scenario.mcp_json_entry(), "fine": ok.mcp_json_entry() }));
    let servers = home.json(&["mcp", "servers"]);
    let crashy = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "crashy")
        .unwrap();
    assert_eq!(crashy["state"], "failed");
    assert!(
        crashy["reason"]
            .as_str()
            .unwrap()
            .contains("fatal: missing API token"),
        "{crashy:#}"
    );
    let fine = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "fine")
        .unwrap();
    assert_eq!(fine["state"], "ready");
    // Calling into the failed server exits 1 with its state.
    let (code, _out, err) = home.run(&["mcp", "call", "crashy", "x"]);
    assert_eq!(code, 1);
    assert!(err.contains("fatal: missing API token"), "{err}");
}

#[test]
fn no_server_process_or_grandchild_outlives_the_command() {
    let home = Home::new();
    let log = home.path().join("events.jsonl");
    let startup = coyote_test_support::Startup {
        spawn_grandchild: true,
        ..Default::default()
    };
    let scenario = Scenario::builder()
        .startup(startup)
        .event_log(&log)
        .write_to(home.path())
        .unwrap();
    home.write_servers(json!({ "parent": scenario.mcp_json_entry() }));
    let (code, _out, err) = home.run(&["mcp", "tools", "parent"]);
    assert_eq!(code, 0, "{err}");
    let events = scenario.events();
    let server = events.server_pid().expect("server pid logged");
    let grandchild = events.grandchild_pid().expect("grandchild pid logged");
    // The command has exited; give the kernel a moment to reap, bounded.
    let deadline = Instant::now() + Duration::from_secs(10);
    while (alive(server) || alive(grandchild)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(server), "server {server} still running");
    assert!(!alive(grandchild), "grandchild {grandchild} still running");
}
