use rmcp::model::RequestId;
use serde_json::{Value, json};

use super::{TaskFacts, TaskSupport};

fn bytes(value: Value) -> Vec<u8> {
    serde_json::to_vec(&value).unwrap()
}

#[test]
fn the_server_s_task_capability_and_each_tool_s_support_are_recorded() {
    let facts = TaskFacts::default();
    assert!(!facts.server_runs_tool_tasks());
    facts.tap(&bytes(json!({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"},
        "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {},
                         "requests": {"tools": {"call": {}}}}}}})));
    assert!(facts.server_runs_tool_tasks());
    assert!(facts.server_lists_tasks());
    facts.tap(&bytes(
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "slow", "inputSchema": {}, "execution": {"taskSupport": "required"}},
        {"name": "maybe", "inputSchema": {}, "execution": {"taskSupport": "optional"}},
        {"name": "plain", "inputSchema": {}}]}}),
    ));
    assert_eq!(facts.tool_support("slow"), TaskSupport::Required);
    assert_eq!(facts.tool_support("maybe"), TaskSupport::Optional);
    assert_eq!(facts.tool_support("plain"), TaskSupport::Forbidden);
    assert_eq!(facts.tool_support("unknown"), TaskSupport::Forbidden);
}

#[test]
fn a_server_without_tasks_is_not_taken_for_one() {
    let facts = TaskFacts::default();
    // `"task` appears (in a tool's text), so the message is read, and nothing is learned.
    facts.tap(&bytes(json!({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-11-25", "serverInfo": {"name": "a \"task\" server", "version": "1"},
        "capabilities": {"tools": {"listChanged": true}}}})));
    assert!(!facts.server_runs_tool_tasks());
    assert!(!facts.server_lists_tasks());
}

#[test]
fn a_sampling_request_that_asks_for_a_task_is_remembered_once() {
    let facts = TaskFacts::default();
    facts.tap(&bytes(
        json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage",
        "params": {"task": {"ttl": 300000}, "messages": [], "maxTokens": 5}}),
    ));
    facts.tap(&bytes(
        json!({"jsonrpc": "2.0", "id": 8, "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 5}}),
    ));
    facts.tap(&bytes(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"task": {"ttl": 1}}}),
    ));
    assert_eq!(facts.take_asked(&RequestId::Number(7)), Some(Some(300_000)));
    assert_eq!(facts.take_asked(&RequestId::Number(7)), None, "taken once");
    assert_eq!(
        facts.take_asked(&RequestId::Number(8)),
        None,
        "no task asked"
    );
    assert_eq!(
        facts.take_asked(&RequestId::Number(9)),
        None,
        "not a client task"
    );
}
