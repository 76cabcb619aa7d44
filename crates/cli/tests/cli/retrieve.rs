//! `coyote mcp retrieve SERVER TEXT`: what the `retrieve` exposure
//! would declare of the committed 250-tool fixture for fixed user messages, pinned by a
//! snapshot so that a ranking change shows up in review.

use std::path::Path;

use coyote_test_support::Scenario;
use serde_json::json;

use super::common::Home;

const QUERIES: [&str; 7] = [
    "What is the email address of the user alice?",
    "Find the user with the email bob@example.com",
    "use get_users for the ids 4 and 7",
    "merge pull request 42 of the api repository",
    "the last CI run failed, run it again",
    "how many words are in this sentence?",
    // Only weak matches (eight `list_*` tools on "list"): the relevance floor declares none.
    "How do I reverse a list in Python?",
];

#[test]
fn retrieve_shows_what_a_request_would_declare_of_the_large_fixture() {
    let home = Home::new();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-support/data/large-server.json");
    let fixture = Scenario::load(&path).unwrap();
    assert_eq!(fixture.tools.len(), 250);
    let dir = home.path().join("big");
    std::fs::create_dir_all(&dir).unwrap();
    let mut builder = Scenario::builder().capabilities(fixture.capabilities);
    for tool in fixture.tools {
        builder = builder.tool_spec(tool);
    }
    let entry = builder.write_to(&dir).unwrap().mcp_json_entry();
    home.write_servers(json!({ "big": entry }));

    let mut snapshot = String::new();
    for query in QUERIES {
        let (code, out, err) = home.run(&["mcp", "retrieve", "big", query]);
        assert_eq!(code, 0, "{err}");
        snapshot.push_str(&format!(
            "$ coyote mcp retrieve big {query:?}\n{out}{err}\n"
        ));
    }
    insta::assert_snapshot!(snapshot);

    let chosen = home.json(&["mcp", "retrieve", "big", QUERIES[2]]);
    assert_eq!(chosen[0]["function"], "big__get_users");
    assert_eq!(chosen[0]["reason"], "mention");
    let servers = home.json(&["mcp", "servers"]);
    assert_eq!(servers[0]["exposure"]["label"], "auto→retrieve");
}
