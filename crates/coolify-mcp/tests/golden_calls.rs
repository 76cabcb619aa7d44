//! Tool-call parity with the reference: every case `tests/golden/record-calls.mjs` recorded
//! from `@masonator/coolify-mcp@3.5.0` on the same fixture is replayed here, in the same
//! server configuration, and must give the same answer (the whole `tools/call` result or
//! JSON-RPC error, byte for byte after the recorder's placeholders), send the same requests
//! upstream (method, path, query, body — bodies compared as JSON text, so key order counts)
//! and ask the human the same questions.
//!
//! Deliberate differences live in `tests/golden/exceptions.json`, at most five, each with a
//! reason; a listed case that matches fails the test, so the list cannot go stale.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::common::{Harness, Human, Setup, as_map};

fn calls_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/calls")
}

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The recorder's closed loopback port (`UNREACHABLE` in record-calls.mjs).
const UNREACHABLE: &str = "http://127.0.0.1:9";

/// The server setup of a recorded configuration.
fn setup(config: &str) -> Setup {
    match config {
        "single" => Setup::default(),
        "fleet" => Setup::default().fleet(),
        "readonly" => Setup::default().read_only(),
        "require-human" => Setup::default().require_human(),
        "elicit" => Setup::default().human(Human::Decline),
        "elicit-fleet" => Setup::default().fleet().human(Human::Decline),
        "unreachable" => Setup::default().base_url(UNREACHABLE),
        other => panic!("unknown configuration {other}"),
    }
}

/// The recorder's placeholders, applied to our text: the boundary nonce, the fixture URL and
/// the one-off task name.
fn stable(text: &str, fixture_url: &str) -> String {
    let mut out = text.replace(fixture_url, "<fixture>");
    let marker = "UNTRUSTED LOG OUTPUT ";
    let mut rest = text;
    while let Some(i) = rest.find(marker) {
        let tail = &rest[i + marker.len()..];
        let nonce: String = tail.chars().take(12).collect();
        if nonce.len() == 12 && nonce.chars().all(|c| c.is_ascii_hexdigit()) {
            out = out.replace(&nonce, "<nonce>");
        }
        rest = tail;
    }
    let mut result = String::new();
    let mut rest = out.as_str();
    while let Some(i) = rest.find("oneoff-") {
        result.push_str(&rest[..i]);
        result.push_str("oneoff-<random>");
        let after = &rest[i + "oneoff-".len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    result.push_str(rest);
    result
}

fn stable_value(v: &Value, fixture_url: &str) -> Value {
    match v {
        Value::String(s) => Value::String(stable(s, fixture_url)),
        Value::Array(a) => Value::Array(a.iter().map(|x| stable_value(x, fixture_url)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), stable_value(x, fixture_url)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What one replay produced, in the recorded shape.
struct Replay {
    response: Value,
    requests: BTreeSet<String>,
    elicitations: Vec<Value>,
}

async fn replay(h: &Harness, request: &Value) -> Replay {
    h.fixture.clear_requests();
    let before = h.asked().len();
    let mut params =
        CallToolRequestParams::new(request["name"].as_str().unwrap_or_default().to_string());
    params.arguments = Some(as_map(request["arguments"].clone()));
    let url = h.fixture.url().to_string();
    let response = match h.client.peer().call_tool(params).await {
        Ok(r) => serde_json::to_value(&r).unwrap(),
        Err(rmcp::ServiceError::McpError(e)) => json!({"error": serde_json::to_value(&e).unwrap()}),
        Err(other) => json!({"error": other.to_string()}),
    };
    let requests = h
        .fixture
        .requests()
        .iter()
        .map(|r| {
            let body: Value = if r.body.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()))
            };
            let body = stable_value(&body, &url);
            format!("{} {:?} {:?} {body}", r.method, segments(&r.path), r.query)
        })
        .collect();
    let elicitations = h.asked()[before..]
        .iter()
        .map(|p| json!({"message": p["message"], "requestedSchema": p["requestedSchema"]}))
        .collect();
    Replay {
        response: stable_value(&response, &url),
        requests,
        elicitations,
    }
}

/// A request path as the segments Coolify sees (split on `/`, each decoded once): the
/// reference sends ids raw and we encode them, which is the same request to Coolify.
fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .map(|s| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect()
}

fn recorded_requests(golden: &Value) -> BTreeSet<String> {
    golden["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let query = r["query"].as_str().map(str::to_string);
            let path = segments(r["path"].as_str().unwrap());
            format!(
                "{} {path:?} {query:?} {}",
                r["method"].as_str().unwrap(),
                r["body"]
            )
        })
        .collect()
}

/// Differences between our replay and the recording (empty = parity).
fn differences(golden: &Value, ours: &Replay) -> Vec<String> {
    let mut diffs = Vec::new();
    if ours.response != golden["response"] {
        diffs.push(format!(
            "response\n  reference: {}\n  ours:      {}",
            golden["response"], ours.response
        ));
    }
    let theirs = recorded_requests(golden);
    if ours.requests != theirs {
        diffs.push(format!(
            "upstream requests\n  reference: {theirs:#?}\n  ours:      {:#?}",
            ours.requests
        ));
    }
    let asked: Vec<Value> = golden["elicitations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"message": p["message"], "requestedSchema": p["requestedSchema"]}))
        .collect();
    if ours.elicitations != asked {
        diffs.push(format!(
            "elicitations\n  reference: {asked:#?}\n  ours:      {:#?}",
            ours.elicitations
        ));
    }
    diffs
}

/// `config/case` names of the listed exceptions, with their reasons.
fn exceptions() -> Vec<(Vec<String>, String)> {
    let list =
        json_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/exceptions.json"));
    let entries = list.as_array().expect("exceptions.json is an array");
    assert!(entries.len() <= 5, "at most five deliberate differences");
    entries
        .iter()
        .map(|e| {
            let reason = e["reason"].as_str().expect("every exception has a reason");
            assert!(reason.len() > 20, "a real reason: {reason}");
            let cases = e["cases"]
                .as_array()
                .expect("cases")
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            (cases, reason.to_string())
        })
        .collect()
}

const CONFIGS: [&str; 7] = [
    "single",
    "fleet",
    "readonly",
    "require-human",
    "elicit",
    "elicit-fleet",
    "unreachable",
];

#[tokio::test]
async fn item_11_golden_tool_calls_match_the_reference() {
    let exceptions = exceptions();
    let listed: Vec<&String> = exceptions.iter().flat_map(|(c, _)| c).collect();
    let mut failures = Vec::new();
    let mut excepted_seen = Vec::new();
    let mut replayed = 0;
    for config in CONFIGS {
        let h = Harness::start(setup(config)).await.unwrap();
        let mut files: Vec<PathBuf> = std::fs::read_dir(calls_dir().join(config))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for path in files {
            let golden = json_file(&path);
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            let name = format!("{config}/{stem}");
            let ours = replay(&h, &golden["request"]).await;
            let diffs = differences(&golden, &ours);
            replayed += 1;
            if listed.iter().any(|c| **c == name) {
                assert!(
                    !diffs.is_empty(),
                    "{name} is listed in exceptions.json but now matches the reference: remove it from the list"
                );
                excepted_seen.push(name);
            } else if !diffs.is_empty() {
                failures.push(format!("{name}:\n{}", diffs.join("\n")));
            }
        }
    }
    for c in listed {
        assert!(
            excepted_seen.contains(c),
            "exceptions.json lists {c}, which was not recorded"
        );
    }
    assert!(
        replayed > 400,
        "the recording covers every configuration ({replayed} cases)"
    );
    assert!(
        failures.is_empty(),
        "{} case(s) differ from the reference:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[tokio::test]
async fn search_docs_ranks_pages_like_the_reference() {
    let golden = json_file(&calls_dir().join("search-docs.json"));
    let h = Harness::start(Setup::default()).await.unwrap();
    let mut failures = Vec::new();
    for case in golden.as_array().unwrap() {
        let mut args = json!({"query": case["query"]});
        if !case["limit"].is_null() {
            args["limit"] = case["limit"].clone();
        }
        let ours = h.call_json("search_docs", args).await;
        let titles: Vec<Value> = ours["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["title"].clone())
            .collect();
        if Value::Array(titles.clone()) != case["titles"] {
            failures.push(format!(
                "{}: reference {} / ours {}",
                case["query"],
                case["titles"],
                Value::Array(titles)
            ));
        }
    }
    assert!(golden.as_array().unwrap().len() >= 20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(h.log().is_empty(), "search_docs makes no request");
}
