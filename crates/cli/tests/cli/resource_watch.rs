//! `coyote mcp watch` one line per
//! `notifications/resources/updated`, `--count` exits 0 after unsubscribing (the fake records
//! it), a server without `resources.subscribe` exits 1 with that reason, a server that dies
//! while watched exits 1 with a clear error; against server-everything with `--call
//! toggle-subscriber-updates`, whose log records the unsubscribe.

use coyote_test_support::events::Event;
use coyote_test_support::{
    Capabilities, ResourceBody, ResourceUpdatesSpec, Scenario, ScenarioFile,
};
use serde_json::{Value, json};

use super::common::Home;

const URI: &str = "fake://doc";

fn fake(home: &Home, updates: Option<ResourceUpdatesSpec>) -> ScenarioFile {
    let mut builder = Scenario::builder()
        .capabilities(Capabilities::none().with_resources())
        .resource(
            URI,
            "doc",
            ResourceBody::Text {
                text: "version two\n".into(),
            },
        );
    if let Some(spec) = updates {
        builder = builder.resource_updates(spec);
    }
    let file = builder.write_to(home.path()).unwrap();
    home.write_servers(json!({ "fake": file.mcp_json_entry() }));
    file
}

#[test]
fn watch_prints_one_line_per_update_and_unsubscribes_after_count() {
    let home = Home::new();
    let file = fake(
        &home,
        Some(ResourceUpdatesSpec {
            count: 5,
            every_ms: 20,
            exit_after: false,
        }),
    );
    let (code, out, err) = home.run(&["mcp", "watch", "fake", URI, "--count", "3"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for line in &lines {
        let (time, uri) = line.split_once(' ').unwrap();
        assert!(time.ends_with('Z') && time.contains('T'), "{line}");
        assert_eq!(uri, URI);
    }
    let events = file.events().events;
    let subscribed = events
        .iter()
        .position(|e| matches!(e, Event::Subscribe { uri } if uri == URI));
    let unsubscribed = events
        .iter()
        .position(|e| matches!(e, Event::Unsubscribe { uri } if uri == URI));
    assert!(
        subscribed.is_some() && unsubscribed > subscribed,
        "{events:?}"
    );
}

#[test]
fn watch_read_and_json_give_the_content_per_update() {
    let home = Home::new();
    fake(
        &home,
        Some(ResourceUpdatesSpec {
            count: 2,
            every_ms: 20,
            exit_after: false,
        }),
    );
    let (code, out, err) = home.run(&[
        "mcp", "watch", "fake", URI, "--count", "2", "--read", "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 2, "{out}");
    assert_eq!(events[0]["type"], "updated");
    assert_eq!(events[0]["server"], "fake");
    assert_eq!(events[0]["uri"], URI);
    assert!(
        events[1]["content"]
            .as_str()
            .unwrap()
            .contains("version two"),
        "{out}"
    );
}

#[test]
fn a_server_without_subscriptions_exits_1_with_the_reason() {
    let home = Home::new();
    let file = fake(&home, None);
    let (code, out, err) = home.run(&["mcp", "watch", "fake", URI, "--count", "1"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("resources.subscribe"), "{err}");
    // Refused before anything was sent.
    let events = file.events().events;
    assert!(
        !events.iter().any(|e| matches!(e, Event::Subscribe { .. })),
        "{events:?}"
    );
}

#[test]
fn a_watched_server_that_dies_is_a_clear_error() {
    let home = Home::new();
    fake(
        &home,
        Some(ResourceUpdatesSpec {
            count: 2,
            every_ms: 20,
            exit_after: true,
        }),
    );
    let (code, out, err) = home.run(&["mcp", "watch", "fake", URI]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        err.contains("MCP server `fake` went away while fake://doc was watched"),
        "{err}"
    );
}

/// Against server-everything: it sends updates only to a session that called its
/// `toggle-subscriber-updates` tool (at once, then every 5 s), so `--call` runs the tool after
/// subscribing. One line per update, exit 0 after `--count`, and the server's own log records
/// the unsubscribe.
#[test]
fn watch_against_server_everything_prints_updates_and_unsubscribes() {
    let Some(entry) = super::common::everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let features = "demo://resource/static/document/features.md";
    let (code, out, err) = home.run(&[
        "--mcp-log-level",
        "info",
        "mcp",
        "watch",
        "everything",
        features,
        "--count",
        "2",
        "--call",
        "toggle-subscriber-updates",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    for line in &lines {
        let (time, uri) = line.split_once(' ').unwrap();
        assert!(time.ends_with('Z') && time.contains('T'), "{line}");
        assert_eq!(uri, features);
    }
    let subscribed = err.find(&format!(
        "Received Subscribe Resource request for URI: {features}"
    ));
    let unsubscribed = err.find(&format!(
        "Received Unsubscribe Resource request: {features}"
    ));
    assert!(
        subscribed.is_some() && unsubscribed > subscribed,
        "the server logged the subscribe, then the unsubscribe: {err}"
    );
}

#[test]
fn a_failing_call_undoes_the_subscription_and_exits_1() {
    let home = Home::new();
    let file = fake(
        &home,
        Some(ResourceUpdatesSpec {
            count: 0,
            every_ms: 20,
            exit_after: false,
        }),
    );
    let (code, out, err) = home.run(&["mcp", "watch", "fake", URI, "--call", "no-such-tool"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("no-such-tool"), "{err}");
    let events = file.events().events;
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Unsubscribe { uri } if uri == URI)),
        "{events:?}"
    );
}

/// The REPL's `.watch` against server-everything (tmux): the model turns the server's updates
/// on (`toggle-subscriber-updates`, which sends one at once); the next message opens with the
/// update — URI, time, the function that reads it — and `.unwatch` unsubscribes.
#[tokio::test]
async fn the_repl_lists_a_watched_update_to_the_model_with_the_next_message() {
    use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};

    use super::client_repl::wait_ready;
    use super::repl::write_config;
    use super::terminal::{Terminal, tmux_available};

    if !tmux_available() {
        return;
    }
    let Some(entry) = super::common::everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let features = "demo://resource/static/document/features.md";
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![
            Reply::call(
                "mcp_invoke_everything",
                json!({"tool": "toggle-subscriber-updates"}),
            ),
            Reply::text("TOGGLED"),
            Reply::text("NOTED"),
        ],
    )
    .await;
    write_config(&home, &llm);
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    let prompts = wait_ready(&term, "everything", 1).await;

    term.type_text(&format!(".watch everything {features}"));
    term.keys(&["Enter"]);
    term.wait_text(&format!("Watching {features} on MCP server `everything`"))
        .await;
    term.type_text("turn the updates on");
    term.keys(&["Enter"]);
    term.wait_text("TOGGLED").await;
    // `.watch` shows the update waiting for the next message (asked until it is there).
    let mut prompts = prompts + 2;
    loop {
        term.wait_prompts(prompts).await;
        term.type_text(".watch");
        term.keys(&["Enter"]);
        prompts += 1;
        let screen = term.wait_prompts(prompts).await;
        if screen.contains("1 change(s) go to the model with your next message.") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    term.type_text("what changed?");
    term.keys(&["Enter"]);
    term.wait_text("NOTED").await;
    let requests = llm.requests();
    let texts = user_texts(LlmWire::OpenAi, requests.last().unwrap());
    let last = texts.last().unwrap();
    assert!(last.starts_with("<resource_updates>\n"), "{last}");
    assert!(
        last.contains(&format!(
            " {features} (MCP server `everything`) was updated; read it with mcp_read_everything\n"
        )),
        "{last}"
    );
    assert!(
        last.ends_with("</resource_updates>\n\nwhat changed?"),
        "{last}"
    );
    // The first message went without a note: nothing had changed yet.
    let first = user_texts(LlmWire::OpenAi, &requests[0]);
    assert_eq!(first, ["turn the updates on"]);

    term.type_text(".unwatch");
    term.keys(&["Enter"]);
    term.wait_text(&format!("Stopped watching {features} on `everything`."))
        .await;
}
