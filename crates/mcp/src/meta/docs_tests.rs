//! The examples and tables in docs/meta-functions.md and docs/resources-and-prompts.md are run
//! here, so the docs cannot drift from the code. A block is the table or fenced code right
//! after a `<!-- doc-test: NAME -->` marker.

use std::collections::BTreeMap;

use super::*;
use crate::content::{ContentItem, PromptMessage, PromptMessageRole, PromptResult};
use crate::render::{self, LineFilter, RenderContext, SpillStore, page_text};

const META_DOC: &str = include_str!("../../../../docs/meta-functions.md");
const CONTENT_DOC: &str = include_str!("../../../../docs/resources-and-prompts.md");

/// The lines of the block after `<!-- doc-test: name -->` (a table, or a fenced block's body).
fn block(doc: &str, name: &str) -> Vec<String> {
    let marker = format!("<!-- doc-test: {name} -->");
    let start = doc
        .find(&marker)
        .unwrap_or_else(|| panic!("marker {name} missing"))
        + marker.len();
    let mut lines = doc[start..].lines().skip_while(|l| l.trim().is_empty());
    let first = lines.next().expect("block");
    if first.starts_with("```") {
        lines
            .take_while(|l| !l.starts_with("```"))
            .map(str::to_string)
            .collect()
    } else {
        std::iter::once(first)
            .chain(lines.take_while(|l| l.starts_with('|')))
            .map(str::to_string)
            .collect()
    }
}

fn cells(row: &str) -> Vec<String> {
    row.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

#[test]
fn gating_table_matches_the_code() {
    let rows = block(META_DOC, "gating");
    assert_eq!(rows.len(), 8, "{rows:?}");
    for row in &rows[2..] {
        let c = cells(row);
        let yes = |s: &str| s == "yes";
        let features = McpServerFeatures {
            name: "s".into(),
            tools: yes(&c[0]),
            resources: yes(&c[1]),
            prompts: yes(&c[2]),
            completions: false,
            skills: false,
            peer_info_missing: c[3] == "missing",
            tasks: false,
        };
        let declared: Vec<String> = enabled_kinds(&features)
            .iter()
            .map(|k| k.prefix().trim_start_matches("mcp_").to_string())
            .collect();
        assert_eq!(declared.join(", "), c[4], "row {row}");
    }
}

#[test]
fn name_examples_parse_as_documented() {
    for line in block(META_DOC, "names") {
        let (name, expected) = line.split_once("->").unwrap();
        let got = match MetaFunction::parse(name.trim()) {
            Some(f) => format!(
                "{} on server {}",
                f.kind.prefix().trim_start_matches("mcp_"),
                f.server
            ),
            None => "not a meta-function".to_string(),
        };
        assert_eq!(got, expected.trim(), "{line}");
    }
}

#[test]
fn limits_table_matches_the_constants() {
    let rows = block(CONTENT_DOC, "limits");
    let values: BTreeMap<String, String> = rows[2..]
        .iter()
        .map(|r| cells(r))
        .map(|c| (c[0].trim_matches('`').to_string(), c[1].clone()))
        .collect();
    let expected: BTreeMap<String, String> = [
        ("DEFAULT_MAX_BYTES", render::DEFAULT_MAX_BYTES as u64),
        ("MAX_BYTES_CLAMP", render::MAX_BYTES_CLAMP as u64),
        (
            "RESPONSE_CEILING_BYTES",
            render::RESPONSE_CEILING_BYTES as u64,
        ),
        (
            "TOOL_RESULT_TEXT_CEILING_BYTES",
            render::TOOL_RESULT_TEXT_CEILING_BYTES as u64,
        ),
        (
            "MAX_BLOB_DECODED_BYTES",
            render::MAX_BLOB_DECODED_BYTES as u64,
        ),
        (
            "SPILL_EVICTION_LIMIT_BYTES",
            render::SPILL_EVICTION_LIMIT_BYTES,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(values, expected);
}

#[test]
fn paging_example_runs() {
    let text = "héllo wörld";
    for line in block(CONTENT_DOC, "paging") {
        // offset N -> "TEXT" next_offset M|none
        let (offset, rest) = line
            .trim_start_matches("offset ")
            .split_once(" -> ")
            .unwrap();
        let page = page_text(text, offset.parse().unwrap(), 5);
        let next = page
            .next_offset
            .map_or("none".to_string(), |n| n.to_string());
        assert_eq!(
            rest,
            format!("{:?} next_offset {next}", page.text),
            "{line}"
        );
    }
}

#[test]
fn pattern_example_runs() {
    let lines = block(CONTENT_DOC, "pattern");
    let pattern = lines[0].strip_prefix("pattern: ").unwrap();
    let input_at = lines.iter().position(|l| l == "input:").unwrap();
    let output_at = lines.iter().position(|l| l == "output:").unwrap();
    let input = lines[input_at + 1..output_at].join("\n");
    let output: String = lines[output_at + 1..]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(LineFilter::new(pattern).unwrap().filter(&input), output);
}

#[test]
fn template_example_runs() {
    let lines = block(CONTENT_DOC, "template");
    let (left, expected) = lines[0].split_once("->").unwrap();
    let mut words = left.split_whitespace();
    let template = words.next().unwrap();
    let args = crate::prompt::parse_kv_args(&words.collect::<Vec<_>>().join(" ")).unwrap();
    assert_eq!(
        crate::uri_template::expand(template, &args).unwrap(),
        expected.trim()
    );
}

#[test]
fn prompt_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    let store = SpillStore::new(dir.path());
    let ctx = RenderContext {
        server: "s",
        spill: &store,
        read_function: &MetaKind::Read.function_name("s"),
        max_result_bytes: crate::render::MAX_RESULT_BYTES,
    };
    let text = |t: &str| ContentItem::Text {
        text: t.into(),
        annotations: None,
    };
    let result = PromptResult {
        description: None,
        messages: vec![
            PromptMessage {
                role: PromptMessageRole::User,
                content: text("Summarise issue 42"),
            },
            PromptMessage {
                role: PromptMessageRole::Assistant,
                content: text("Which repository?"),
            },
        ],
    };
    let expected: String = block(CONTENT_DOC, "prompt")
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(crate::prompt::flatten(&result, &ctx), expected);
}

#[test]
fn direct_name_examples_match_the_code() {
    let rows = block(META_DOC, "direct-names");
    assert_eq!(rows.len(), 5, "{rows:?}");
    let tools: Vec<DirectTool> = rows
        .iter()
        .map(|row| {
            let (pair, _) = row.split_once("->").unwrap();
            let (server, tool) = pair.trim().split_once('/').unwrap();
            DirectTool::new(server, tool)
        })
        .chain([DirectTool::new("x__y", "z")])
        .collect();
    let names = DirectNames::build(&tools, &std::collections::BTreeSet::new());
    for (row, tool) in rows.iter().zip(&tools) {
        let shown = row.split_once("->").unwrap().1.trim();
        let name = names.name_of(tool).unwrap();
        match shown.split_once(" (hashed") {
            Some((prefix, _)) => {
                assert!(name.starts_with(prefix), "{row}: {name}");
                assert_eq!(name.len(), prefix.len() + 8, "{row}: {name}");
            }
            None => assert_eq!(name, shown, "{row}"),
        }
    }
}

/// The `complete` example of docs/meta-functions.md, run against a fake server that completes
/// the documented prompt argument.
#[tokio::test]
async fn complete_example_runs() {
    use coyote_protocol::Timeouts;
    use coyote_test_support::{Capabilities, CompletionTarget, Scenario, in_process};

    let call: serde_json::Value =
        serde_json::from_str(&block(META_DOC, "complete-call").join("\n")).unwrap();
    let answer: serde_json::Value =
        serde_json::from_str(&block(META_DOC, "complete-answer").join("\n")).unwrap();
    let scenario = Scenario::builder()
        .capabilities(Capabilities::all())
        .completion(
            CompletionTarget::Prompt {
                name: "team".into(),
            },
            "department",
            &["Engineering", "Sales", "Marketing"],
        )
        .build();
    let runtime = crate::runtime::McpRuntime::new(crate::runtime::RuntimeOptions::default());
    let ((r, w), _fake) = in_process(scenario);
    let timeouts = Timeouts {
        startup: std::time::Duration::from_secs(20),
        call: std::time::Duration::from_secs(20),
    };
    runtime.attach_stream("srv", timeouts, r, w).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dispatcher = MetaDispatcher::new(
        runtime.clone(),
        SpillStore::new(dir.path().join("mcp-resources")),
    );
    let function = MetaFunction::new(MetaKind::Describe, "srv");
    let outcome = dispatcher
        .dispatch_target(
            &function.name(),
            FunctionTarget::Meta(function.clone()),
            call,
        )
        .await
        .unwrap();
    let DispatchBody::Json(got) = outcome.body else {
        panic!("expected JSON");
    };
    assert_eq!(got, answer);
    runtime.shutdown().await;
}

/// Asking a server without the completions capability for `complete` is refused with one
/// readable sentence (a line-continuation slip once put an 18-space run into it).
#[tokio::test]
async fn complete_without_the_capability_is_one_readable_sentence() {
    use coyote_protocol::Timeouts;
    use coyote_test_support::{Capabilities, Scenario, in_process};

    let scenario = Scenario::builder()
        .capabilities(Capabilities::none().with_prompts())
        .build();
    let runtime = crate::runtime::McpRuntime::new(crate::runtime::RuntimeOptions::default());
    let ((r, w), _fake) = in_process(scenario);
    let timeouts = Timeouts {
        startup: std::time::Duration::from_secs(20),
        call: std::time::Duration::from_secs(20),
    };
    runtime.attach_stream("srv", timeouts, r, w).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dispatcher = MetaDispatcher::new(
        runtime.clone(),
        SpillStore::new(dir.path().join("mcp-resources")),
    );
    let function = MetaFunction::new(MetaKind::Describe, "srv");
    let call = serde_json::json!({"kind": "prompt", "name": "team",
                                  "complete": {"argument": "department", "value": "E"}});
    let error = dispatcher
        .dispatch_target(
            &function.name(),
            FunctionTarget::Meta(function.clone()),
            call,
        )
        .await
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        error.ends_with(
            "server \"srv\" does not offer argument completion; describe the item without \
             `complete` to see its arguments"
        ),
        "{error}"
    );
    assert!(!error.contains("  "), "{error:?}");
    runtime.shutdown().await;
}
