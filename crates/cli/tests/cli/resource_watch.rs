//! `coyote mcp watch` (issue 19, acceptance 2 and 5): one line per
//! `notifications/resources/updated`, `--count` exits 0 after unsubscribing (the fake records
//! it), a server without `resources.subscribe` exits 1 with that reason, a server that dies
//! while watched exits 1 with a clear error.

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
