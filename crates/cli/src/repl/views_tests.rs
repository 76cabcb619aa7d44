use std::collections::BTreeMap;
use std::path::PathBuf;

use coyote_mcp::RuntimeOptions;
use coyote_protocol::{HttpSpec, StdioSpec, Timeouts};
use coyote_test_support::{Capabilities, Scenario, in_process};

use super::*;

fn spec(name: &str, transport: McpTransport) -> McpServerSpec {
    McpServerSpec {
        name: name.into(),
        transport,
        timeouts: Timeouts::default(),
        approve: Default::default(),
        expose: Default::default(),
        retrieve: Default::default(),
        auto_approve: Vec::new(),
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        source: PathBuf::from("mcp.json"),
    }
}

#[test]
fn secrets_from_specs_and_env_are_redacted() {
    let specs = vec![
        spec(
            "gh",
            McpTransport::Stdio(StdioSpec {
                command: "gh-mcp".into(),
                args: vec![],
                env: BTreeMap::from([("GITHUB_TOKEN".into(), "ghp_secret123".into())]),
                cwd: None,
            }),
        ),
        spec(
            "remote",
            McpTransport::Http(HttpSpec {
                url: "https://mcp.example/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer tok-abcdef".into())],
                bearer_token_env: Some("REMOTE_TOKEN".into()),
                oauth: Default::default(),
                fallback_to_sse: false,
            }),
        ),
    ];
    let env = |name: &str| (name == "REMOTE_TOKEN").then(|| "env-token-999".to_owned());
    let mut redactor = Redactor::from_specs(&specs, &env);
    redactor.add("sk-api-key");
    redactor.add("ab"); // too short to redact safely
    assert_eq!(
        redactor.redact(
            "failed: auth ghp_secret123 / Bearer tok-abcdef / tok-abcdef / env-token-999 / \
             sk-api-key / ab"
        ),
        "failed: auth <redacted> / <redacted> / <redacted> / <redacted> / <redacted> / ab"
    );
}

fn timeouts() -> Timeouts {
    Timeouts {
        startup: std::time::Duration::from_secs(30),
        call: std::time::Duration::from_secs(60),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_degrade_per_server() {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let with_prompts = Scenario::builder()
        .prompt(coyote_test_support::PromptSpec {
            name: "review".into(),
            title: None,
            description: Some("review a file".into()),
            arguments: vec![
                coyote_test_support::PromptArgSpec {
                    name: "path".into(),
                    description: None,
                    required: true,
                },
                coyote_test_support::PromptArgSpec {
                    name: "tone".into(),
                    description: None,
                    required: false,
                },
            ],
            messages: vec![],
        })
        .build();
    let ((r, w), _a) = in_process(with_prompts);
    runtime
        .attach_stream("alpha", timeouts(), r, w)
        .await
        .unwrap();
    let no_prompts = Scenario::builder()
        .capabilities(Capabilities {
            prompts: false,
            ..Capabilities::default()
        })
        .build();
    let ((r, w), _b) = in_process(no_prompts);
    runtime
        .attach_stream("beta", timeouts(), r, w)
        .await
        .unwrap();
    let ((r, w), gone) = in_process(Scenario::default());
    runtime
        .attach_stream("gamma", timeouts(), r, w)
        .await
        .unwrap();
    gone.kill().await;
    for _ in 0..200 {
        if matches!(runtime.state("gamma"), Some(ServerState::Failed(_))) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let enabled = |_: &str| true;
    let text = list(&runtime, &enabled, Listing::Prompts, &Redactor::default()).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["SERVER", "PROMPT", "DESCRIPTION", "ARGUMENTS"]
    );
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        ["alpha", "review", "review", "a", "file", "path*", "tone"]
    );
    assert_eq!(lines[2], "(* = required argument)");
    assert!(lines[3].starts_with("gamma: failed: "), "{text}");
    assert_eq!(lines.len(), 4, "{text}");

    let only_beta = |n: &str| n == "beta";
    let text = servers(&runtime, &only_beta, &Redactor::default());
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows[0],
        ["SERVER", "TRANSPORT", "STATE", "ENABLED", "OFFERS"]
    );
    assert_eq!(
        rows[1],
        [
            "alpha",
            "stream",
            "ready",
            "no",
            "tools,resources,prompts,completions"
        ]
    );
    assert_eq!(
        rows[2],
        [
            "beta",
            "stream",
            "ready",
            "yes",
            "tools,resources,completions"
        ]
    );
    assert_eq!(&rows[3][..3], ["gamma", "stream", "failed"]);
    assert!(rows[4][0] == "gamma:" && rows[4][1] == "failed:", "{text}");
    runtime.shutdown().await;
}

#[tokio::test]
async fn info_shows_each_enabled_server_s_exposure_and_estimate() {
    use coyote_mcp::meta::{ExposurePolicies, MetaDispatcher};
    use coyote_protocol::Exposure;
    use coyote_test_support::ToolBehavior;

    let runtime = McpRuntime::new(RuntimeOptions::default());
    let small = Scenario::builder()
        .capabilities(Capabilities::none().with_tools())
        .tool("echo", ToolBehavior::Echo)
        .build();
    let mut fakes = Vec::new();
    for name in ["small", "forced", "hidden"] {
        let ((r, w), fake) = in_process(small.clone());
        runtime
            .attach_stream(name, timeouts(), r, w)
            .await
            .expect("fake server ready");
        fakes.push(fake);
    }
    let spill = tempfile::tempdir().unwrap();
    let dispatcher =
        MetaDispatcher::new(runtime.clone(), coyote_mcp::SpillStore::new(spill.path()))
            .with_exposure(ExposurePolicies::default().with("forced", Exposure::Meta))
            .with_budgets({
                let mut budgets = coyote_mcp::render::ResultBudgets::default().with_default(51_200);
                budgets.set(
                    "forced",
                    coyote_protocol::ResultLimits {
                        max_result_bytes: Some(4_000),
                        tools: [("t".to_owned(), 300)].into(),
                    },
                );
                budgets
            });
    let enabled = |n: &str| n != "hidden";
    let text = exposure(&dispatcher, &enabled, &Redactor::default()).await;
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    let direct = dispatcher
        .exposure_report("small")
        .await
        .declared_tokens
        .to_string();
    let meta = dispatcher
        .exposure_report("forced")
        .await
        .declared_tokens
        .to_string();
    assert_eq!(
        rows,
        vec![
            vec![
                "SERVER", "EXPOSURE", "TOOLS", "DECLARED", "RESULT", "BUDGET"
            ],
            vec![
                "small",
                "auto→direct",
                "1",
                &format!("~{direct}"),
                "tokens",
                "51200",
                "bytes",
                "(default)"
            ],
            vec![
                "forced",
                "meta",
                "1",
                &format!("~{meta}"),
                "tokens",
                "4000",
                "bytes;",
                "t",
                "300"
            ],
        ]
    );
    runtime.shutdown().await;
}

#[test]
fn info_counts_discarded_attempts_apart_from_the_server_s_tokens() {
    let facts = |discarded| InfoFacts {
        model: "local:qwen".to_owned(),
        usage_input: 1_200,
        usage_output: 40,
        discarded,
        messages: 3,
        always_approved: Vec::new(),
        history_file: "/h".to_owned(),
        log_file: None,
    };
    let line = |discarded| {
        info(&facts(discarded), "", &Redactor::default())
            .lines()
            .find(|l| l.starts_with("tokens"))
            .map(str::to_owned)
            .unwrap()
    };
    assert_eq!(line((0, 0)), "tokens           1200 in, 40 out");
    assert_eq!(
        line((1, 900)),
        "tokens           1200 in, 40 out (+ about 900 in 1 discarded attempt)"
    );
    assert_eq!(
        line((2, 1_900)),
        "tokens           1200 in, 40 out (+ about 1900 in 2 discarded attempts)"
    );
}
