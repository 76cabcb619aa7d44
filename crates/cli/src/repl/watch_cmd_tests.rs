//! `.watch` / `.unwatch` against the in-process fake server (which sends one
//! `notifications/resources/updated` after each subscribe, and a `resources/list_changed` from
//! its `change` tool) and the fake model: the changes since the last message open the next
//! message — once — and `.unwatch` is recorded by the server as `resources/unsubscribe`.

use std::time::Duration;

use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::Timeouts;
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};
use coyote_test_support::{
    Capabilities, Event, FakeHandle, ResourceBody, ResourceUpdatesSpec, Scenario, ServerNotice,
    ToolBehavior, in_process,
};

use super::super::line::UserLine;
use super::*;

const DOC: &str = "fake://doc";

#[test]
fn a_note_has_one_line_per_uri_and_is_taken_once() {
    let watches = Watches::default();
    let all = |_: &str| true;
    assert_eq!(watches.take_note(&all), None);
    watches.note("fs", Change::Updated { uri: "/a".into() });
    watches.note("fs", Change::Updated { uri: "/b".into() });
    watches.note("fs", Change::Updated { uri: "/a".into() });
    watches.note("fs", Change::ListChanged);
    watches.note("fs", Change::ListChanged);
    // A server the session does not select is left out (and dropped).
    watches.note("off", Change::Updated { uri: "/c".into() });
    let note = watches.take_note(&|s: &str| s != "off").unwrap();
    let lines: Vec<&str> = note.lines().collect();
    assert_eq!(lines.len(), 6, "{note}");
    assert_eq!(lines[0], "<resource_updates>");
    assert!(
        lines[2].ends_with(" /b (MCP server `fs`) was updated; read it with mcp_read_fs"),
        "{note}"
    );
    assert!(lines[3].contains(" /a (MCP server `fs`)"), "{note}");
    assert!(
        lines[4].ends_with("the resource list of MCP server `fs` changed"),
        "{note}"
    );
    assert_eq!(lines[5], "</resource_updates>");
    assert_eq!(watches.take_note(&all), None);
}

struct World {
    rt: tokio::runtime::Runtime,
    llm: FakeLlm,
    repl: Repl,
    fake: FakeHandle,
    _dir: tempfile::TempDir,
}

fn world(script: Vec<Reply>) -> World {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let scenario = Scenario::builder()
        .capabilities(Capabilities::none().with_tools().with_resources())
        .resource(DOC, "doc", ResourceBody::Text { text: "v2".into() })
        .resource_updates(ResourceUpdatesSpec {
            count: 1,
            every_ms: 10,
            exit_after: false,
        })
        .safe_tool(
            "change",
            ToolBehavior::Notify {
                notifications: vec![ServerNotice::ResourcesListChanged],
            },
        )
        .build();
    let (runtime, llm, fake) = rt.block_on(async {
        let runtime = McpRuntime::new(RuntimeOptions::default());
        let ((r, w), fake) = in_process(scenario);
        let timeouts = Timeouts {
            startup: Duration::from_secs(30),
            call: Duration::from_secs(60),
        };
        runtime.attach_stream("fake", timeouts, r, w).await.unwrap();
        (runtime, FakeLlm::start(LlmWire::OpenAi, script).await, fake)
    });
    let repl =
        super::super::test_repl::fake_model_repl(&rt, runtime, &llm.api_base(), dir.path(), None);
    World {
        rt,
        llm,
        repl,
        fake,
        _dir: dir,
    }
}

/// Waits (bounded) until the board holds `n` pending changes.
fn wait_pending(repl: &Repl, n: usize) {
    for _ in 0..2000 {
        if repl.watches.board().pending.len() >= n {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{} change(s) pending", repl.watches.board().pending.len());
}

fn last_user_text(llm: &FakeLlm, request: usize) -> String {
    let requests = llm.requests();
    user_texts(LlmWire::OpenAi, &requests[request])
        .pop()
        .unwrap()
}

#[test]
fn updates_open_the_next_message_once_and_unwatch_unsubscribes() {
    let mut w = world(vec![
        Reply::text("one"),
        Reply::text("two"),
        Reply::text("three"),
    ]);
    w.repl
        .handle_line(UserLine::typed(format!(".watch fake {DOC}")));
    assert!(w.repl.watches.is_watched("fake", DOC));
    wait_pending(&w.repl, 1);
    // A resource list change of the watched server is listed too.
    let handle = w.repl.runtime().server("fake").unwrap();
    w.rt.block_on(handle.call_tool("change", serde_json::Map::new()))
        .unwrap();
    wait_pending(&w.repl, 2);

    w.repl.handle_line(UserLine::typed("what changed?".into()));
    let first = last_user_text(&w.llm, 0);
    assert!(first.starts_with("<resource_updates>\n"), "{first}");
    assert!(
        first.contains(&format!(
            " {DOC} (MCP server `fake`) was updated; read it with mcp_read_fake\n"
        )),
        "{first}"
    );
    assert!(
        first.contains("the resource list of MCP server `fake` changed"),
        "{first}"
    );
    assert!(
        first.ends_with("</resource_updates>\n\nwhat changed?"),
        "{first}"
    );
    // Told once: the next message carries nothing more.
    w.repl.handle_line(UserLine::typed("and now?".into()));
    assert_eq!(last_user_text(&w.llm, 1), "and now?");

    w.repl.handle_line(UserLine::typed(".unwatch".into()));
    assert!(!w.repl.watches.is_watched("fake", DOC));
    let events = w.fake.events().events;
    let subscribed = events
        .iter()
        .position(|e| matches!(e, Event::Subscribe { uri } if uri == DOC));
    let unsubscribed = events
        .iter()
        .position(|e| matches!(e, Event::Unsubscribe { uri } if uri == DOC));
    assert!(
        subscribed.is_some() && unsubscribed > subscribed,
        "{events:?}"
    );
    w.repl.shutdown();
}

#[test]
fn unknown_servers_and_second_watches_are_refused() {
    let mut w = world(vec![]);
    // Unknown server, then one that is watched twice.
    w.repl
        .handle_line(UserLine::typed(format!(".watch nobody {DOC}")));
    assert!(w.repl.watches.board().watched.is_empty());
    w.repl
        .handle_line(UserLine::typed(format!(".watch fake {DOC}")));
    w.repl
        .handle_line(UserLine::typed(format!(".watch fake {DOC}")));
    assert_eq!(w.repl.watches.board().watched.len(), 1);
    assert_eq!(w.repl.unwatch(None), vec![format!("{DOC} on `fake`")]);
    assert!(w.repl.unwatch(None).is_empty());
    w.repl.shutdown();
}
