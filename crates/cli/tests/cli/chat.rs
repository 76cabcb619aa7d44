//! One-shot chat end to end: the real `coyote` binary against the scripted fake model
//! (test-support `fake_llm`, OpenAI and Anthropic wire formats) and real MCP servers
//! (server-everything from npm, the fake MCP server binary): tool calls, `--json`
//! events, exit codes, piped input, approval, Ctrl-C, and secrets never printed.

use std::process::{Command, Stdio};
use std::time::Duration;

use coyote_test_support::fake_llm::{
    FakeLlm, LlmWire, Reply, declared_tools, tool_results, user_texts,
};
use coyote_test_support::{Capabilities, Scenario, ScenarioFile, ToolBehavior};
use serde_json::{Value, json};

use super::common::{Home, everything_entry, output_async};

/// The key the fake model's client reads; it must never appear in any output.
const KEY_VAR: &str = "FAKE_LLM_KEY";
const KEY: &str = "sk-fake-SECRET-4242";

fn wire_type(wire: LlmWire) -> &'static str {
    match wire {
        LlmWire::OpenAi => "openai-compatible",
        LlmWire::Anthropic => "anthropic",
    }
}

/// config.yaml pointing `fake:fake-model` at `llm`.
fn write_config(home: &Home, llm: &FakeLlm, extra: &str) {
    let text = format!(
        "model: fake:fake-model\n{extra}clients:\n  - type: {}\n    name: fake\n    api_base: {}\n    api_key_env: {KEY_VAR}\n    models:\n      - name: fake-model\n",
        wire_type(llm.wire()),
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

/// Runs `coyote ARGS` (stdin: `input` or nothing) off the async runtime.
async fn run(home: &Home, args: &[&str], input: Option<&str>) -> Run {
    let mut cmd = home.coyote();
    cmd.args(args).env(KEY_VAR, KEY);
    if let Some(input) = input {
        cmd.write_stdin(input.to_owned());
    }
    let (code, out, err) = output_async(cmd).await;
    let run = Run { code, out, err };
    assert_no_secret(home, &run);
    run
}

fn assert_no_secret(home: &Home, run: &Run) {
    assert!(!run.out.contains(KEY), "stdout leaks the key: {}", run.out);
    assert!(!run.err.contains(KEY), "stderr leaks the key: {}", run.err);
    let log = home.path().join("state/logs/coyote.log");
    let log = std::fs::read_to_string(log).unwrap_or_default();
    assert!(!log.contains(KEY), "the log leaks the key");
}

/// The fake server's mcp.json entry declared through meta-functions (`expose: meta`): these
/// tests script `mcp_invoke_fake` calls, which a direct-exposed server does not declare.
fn meta_entry(server: &ScenarioFile) -> Value {
    let mut entry = server.mcp_json_entry();
    entry["expose"] = json!("meta");
    entry
}

fn fake_server(home: &Home) -> ScenarioFile {
    Scenario::builder()
        .server_name("fake")
        .capabilities(Capabilities::none().with_tools())
        .safe_tool("echo", ToolBehavior::Echo)
        .destructive_tool(
            "wipe",
            ToolBehavior::Text {
                text: "wiped".into(),
            },
        )
        .safe_tool("hang", ToolBehavior::Hang)
        .write_to(home.path())
        .unwrap()
}

/// On both wire formats: the scripted search/invoke calls run against
/// server-everything, the next request carries its real output, the answer is printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_tools_do_you_have_against_server_everything() {
    let Some(entry) = everything_entry() else {
        return;
    };
    for wire in [LlmWire::OpenAi, LlmWire::Anthropic] {
        let script = vec![
            Reply::call("mcp_search_everything", json!({"query": "echo"})),
            Reply::call(
                "mcp_invoke_everything",
                json!({"tool": "echo", "arguments": {"message": "hello from coyote"}}),
            ),
            Reply::text("I can use **echo** and more."),
        ];
        let llm = FakeLlm::start(wire, script).await;
        let home = Home::new();
        home.write_servers(json!({ "everything": entry.clone() }));
        write_config(&home, &llm, "");
        let r = run(&home, &["what tools do you have?"], None).await;
        assert_eq!(r.code, 0, "{wire:?}: {}", r.err);
        // Piped stdout: the answer exactly as the model wrote it.
        assert_eq!(r.out, "I can use **echo** and more.\n");
        assert!(
            r.err.contains("tool mcp_search_everything: ok"),
            "{}",
            r.err
        );
        assert!(
            r.err
                .contains("tool mcp_invoke_everything (everything: echo): ok"),
            "{}",
            r.err
        );
        let requests = llm.requests();
        assert_eq!(requests.len(), 3);
        assert_eq!(
            user_texts(wire, &requests[0]),
            vec!["what tools do you have?"]
        );
        let declared = declared_tools(wire, &requests[0]);
        for name in [
            "mcp_search_everything",
            "mcp_describe_everything",
            "mcp_invoke_everything",
            "mcp_read_everything",
            "mcp_prompt_everything",
        ] {
            assert!(declared.contains(&name.to_string()), "{declared:?}");
        }
        let search = &tool_results(wire, &requests[1])[0].1;
        assert!(search.contains("\"echo\""), "{search}");
        let invoke = &tool_results(wire, &requests[2])[1].1;
        assert!(invoke.contains("Echo: hello from coyote"), "{invoke}");
        assert_eq!(llm.violations(), Vec::<String>::new());
    }
}

/// The same flow against the fake MCP server binary (always available), with `--json`
/// Every line is a JSON object, tool calls carry arguments and durations, and
/// usage comes last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_output_is_valid_json_lines() {
    for wire in [LlmWire::OpenAi, LlmWire::Anthropic] {
        let script = vec![
            Reply::calls(
                "Checking.",
                vec![(
                    "mcp_invoke_fake",
                    json!({"tool": "echo", "arguments": {"text": "ping"}}),
                )],
            ),
            Reply::text("pong"),
        ];
        let llm = FakeLlm::start(wire, script).await;
        let home = Home::new();
        let server = fake_server(&home);
        home.write_servers(json!({ "fake": meta_entry(&server) }));
        write_config(&home, &llm, "");
        let r = run(&home, &["--json", "ping the fake"], None).await;
        assert_eq!(r.code, 0, "{}", r.err);
        let lines: Vec<Value> = r
            .out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect();
        let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
        let mut compact = types.clone();
        compact.dedup();
        assert_eq!(
            compact,
            vec![
                "request_started",
                "text_delta",
                "usage",
                "tool_call_started",
                "tool_call_finished",
                "round_finished",
                "request_started",
                "text_delta",
                "usage",
                "turn_finished"
            ]
        );
        let text: String = lines
            .iter()
            .filter(|l| l["type"] == "text_delta")
            .map(|l| l["text"].as_str().unwrap())
            .collect();
        assert_eq!(text, "Checking.pong");
        let started = lines
            .iter()
            .find(|l| l["type"] == "tool_call_started")
            .unwrap();
        assert_eq!(
            started["arguments"],
            json!({"tool": "echo", "arguments": {"text": "ping"}})
        );
        assert_eq!(started["server"], "fake");
        let finished = lines
            .iter()
            .find(|l| l["type"] == "tool_call_finished")
            .unwrap();
        assert_eq!(finished["status"], "ok");
        assert!(finished["duration_ms"].is_u64(), "{finished}");
        assert!(finished["output"].as_str().unwrap().contains("ping"));
        let last = lines.last().unwrap();
        assert_eq!(last["stop"], json!({"reason": "answered"}));
        assert_eq!(last["usage"]["output"], 14);
        assert_eq!(llm.violations(), Vec::<String>::new());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn piped_stdin_follows_the_argument_text() {
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("looks fine")]).await;
    let home = Home::new();
    write_config(&home, &llm, "");
    let r = run(
        &home,
        &["review this"],
        Some("diff --git a/x b/x\n+new line\n"),
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "looks fine\n");
    assert_eq!(
        user_texts(LlmWire::OpenAi, &llm.requests()[0]),
        vec!["review this\n\n<stdin>\ndiff --git a/x b/x\n+new line\n</stdin>"]
    );
    // Piped text alone is the whole message; --no-stream asks for a whole answer.
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("hi back")]).await;
    write_config(&home, &llm, "");
    let r = run(&home, &["--no-stream"], Some("just this\n")).await;
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "hi back\n");
    let request = &llm.requests()[0];
    assert_eq!(user_texts(LlmWire::OpenAi, request), vec!["just this"]);
    assert_eq!(request["stream"], json!(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destructive_tools_need_yes() {
    let home = Home::new();
    let server = fake_server(&home);
    home.write_servers(json!({ "fake": meta_entry(&server) }));
    let script = || {
        vec![
            Reply::call(
                "mcp_invoke_fake",
                json!({"tool": "wipe", "arguments": {"text": "all"}}),
            ),
            Reply::text("done"),
        ]
    };
    let llm = FakeLlm::start(LlmWire::OpenAi, script()).await;
    write_config(&home, &llm, "");
    let r = run(&home, &["wipe everything"], None).await;
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.err
            .contains("tool mcp_invoke_fake (fake: wipe): refused (not approved)"),
        "{}",
        r.err
    );
    assert!(r.err.contains("rerun with --yes"), "{}", r.err);
    assert_eq!(server.events().tool_calls("wipe"), 0);
    let refusal = &tool_results(LlmWire::OpenAi, &llm.requests()[1])[0].1;
    assert!(
        refusal.contains("only when started with --yes"),
        "{refusal}"
    );

    let llm = FakeLlm::start(LlmWire::OpenAi, script()).await;
    write_config(&home, &llm, "");
    let r = run(&home, &["--yes", "wipe everything"], None).await;
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(server.events().tool_calls("wipe"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_codes() {
    let home = Home::new();
    // No model anywhere: 2, and the message says how to configure one.
    let r = run(&home, &["hi"], None).await;
    assert_eq!(r.code, 2);
    assert!(r.err.contains("no model configured"), "{}", r.err);
    assert!(r.err.contains("config.yaml"), "{}", r.err);
    // Nothing to ask: 2.
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![Reply::status(
            401,
            json!({"error": {"message": "invalid key", "type": "invalid_request_error"}}),
        )],
    )
    .await;
    write_config(&home, &llm, "");
    let r = run(&home, &[], None).await;
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("nothing to ask"), "{}", r.err);
    // Unknown client: 2.
    let r = run(&home, &["-m", "nope:x", "hi"], None).await;
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("no client named \"nope\""), "{}", r.err);
    // Malformed config.yaml: 2, naming the file and key.
    std::fs::write(home.config_dir().join("config.yaml"), "clients: 3\n").unwrap();
    let r = run(&home, &["hi"], None).await;
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("config.yaml"), "{}", r.err);
    assert!(r.err.contains("clients"), "{}", r.err);
    // The model rejects the key: 1, in --json as an error line too.
    write_config(&home, &llm, "");
    let r = run(&home, &["--json", "hi"], None).await;
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(r.err.contains("API key was rejected"), "{}", r.err);
    let last: Value = serde_json::from_str(r.out.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["exit_code"], 1);
    // The round limit: 1, with the stop message.
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![Reply::call("mcp_search_fake", json!({"query": "x"}))],
    )
    .await;
    let server = fake_server(&home);
    home.write_servers(json!({ "fake": meta_entry(&server) }));
    write_config(&home, &llm, "max_tool_rounds: 1\n");
    let r = run(&home, &["loop"], None).await;
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(
        r.err.contains("stopped after 1 rounds of tool calls"),
        "{}",
        r.err
    );
    assert_eq!(llm.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_cancels_the_call_and_exits_130() {
    let llm = FakeLlm::start(
        LlmWire::OpenAi,
        vec![Reply::call("mcp_invoke_fake", json!({"tool": "hang"}))],
    )
    .await;
    let home = Home::new();
    let server = fake_server(&home);
    home.write_servers(json!({ "fake": meta_entry(&server) }));
    write_config(&home, &llm, "");
    let child = Command::new(assert_cmd::cargo::cargo_bin("coyote"))
        .arg("hang please")
        .current_dir(home.work_dir())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("COYOTE_CONFIG_DIR", home.config_dir())
        .env("COYOTE_STATE_DIR", home.path().join("state"))
        .env("COYOTE_CACHE_DIR", home.path().join("cache"))
        .env(KEY_VAR, KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    server
        .wait_for(Duration::from_secs(60), |log| log.tool_calls("hang") == 1)
        .await
        .expect("the hang call reached the server");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(
        err.contains("tool mcp_invoke_fake (fake: hang): cancelled"),
        "{err}"
    );
    let events = server
        .wait_for(Duration::from_secs(30), |log| {
            log.cancelled_notifications() >= 1 && log.disconnect_seen()
        })
        .await
        .expect("cancelled, then shut down");
    assert!(events.tools_cancelled().contains(&"hang".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_lists_clients_without_secrets() {
    let llm = FakeLlm::start(LlmWire::Anthropic, vec![]).await;
    let home = Home::new();
    write_config(&home, &llm, "");
    let r = run(&home, &["models", "--json"], None).await;
    assert_eq!(r.code, 0, "{}", r.err);
    let models: Value = serde_json::from_str(&r.out).unwrap();
    assert_eq!(
        models,
        json!([{
            "client": "fake",
            "type": "anthropic",
            "api_base": llm.api_base(),
            "source": "config.yaml",
            "key": {"status": "set", "variable": KEY_VAR},
            "models": [{"id": "fake:fake-model", "max_tokens": null, "context_window": null, "default": true}]
        }])
    );
    let r = run(&home, &["models"], None).await;
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("fake:fake-model (default)"), "{}", r.out);
    assert!(r.out.contains(&format!("${KEY_VAR} (set)")), "{}", r.out);
}

/// `coyote models CLIENT` asks the client's server (here Ollama's `/api/tags`) and prints
/// `CLIENT:MODEL` ids; an unknown client is a usage error naming the known ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_of_a_client_are_asked_from_its_server() {
    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/api/tags"))
        .respond_with(
            wiremock::ResponseTemplate::new(200).set_body_json(json!({"models": [
                {"name": "qwen3:latest", "model": "qwen3:latest", "size": 5_200_000_000_u64},
                {"name": "llama3.2:1b", "model": "llama3.2:1b", "size": 1_300_000_000_u64}
            ]})),
        )
        .mount(&server)
        .await;
    let home = Home::new();
    std::fs::write(
        home.config_dir().join("config.yaml"),
        format!(
            "clients:\n  - type: ollama\n    api_base: {}\n",
            server.uri()
        ),
    )
    .unwrap();
    let r = run(&home, &["models", "ollama", "--json"], None).await;
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(
        serde_json::from_str::<Value>(&r.out).unwrap(),
        json!([{"id": "ollama:qwen3:latest"}, {"id": "ollama:llama3.2:1b"}])
    );
    let r = run(&home, &["models", "ollama"], None).await;
    assert_eq!(
        (r.code, r.out.as_str()),
        (0, "MODEL\nollama:qwen3:latest\nollama:llama3.2:1b\n")
    );
    let r = run(&home, &["models", "nope"], None).await;
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("no client named \"nope\""), "{}", r.err);
}

/// Splits a shell line into words, honouring single and double quotes.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(current.take()),
            (None, c) => current.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(current);
    words
}

/// The fenced blocks of `lang` in a Markdown file.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start().strip_prefix("```")) {
            (None, Some(tag)) if tag.trim() == lang => current = Some(String::new()),
            (Some(_), Some(_)) => out.extend(current.take()),
            (Some(block), None) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    out
}

/// docs/chat.md: the config.yaml example is valid as written, and every `coyote` command of
/// its `sh` blocks runs (exit 0) with that config pointed at the fake model; a command that
/// reads a pipe gets piped text, and `--json` output is JSON lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documented_examples_run() {
    let root = coyote_test_support::peers::repo_root();
    let doc = std::fs::read_to_string(root.join("docs/chat.md")).unwrap();
    let yaml = blocks(&doc, "yaml");
    assert_eq!(yaml.len(), 1, "one config.yaml example");
    let env = coyote_config::MapEnv::new().with("ANTHROPIC_API_KEY", "k");
    let path = std::path::Path::new("config.yaml");
    let config = coyote_config::parse_app_config(&yaml[0], path, None, &env).unwrap();
    assert_eq!(
        config.resolve_model(None).unwrap().id(),
        "local:qwen2.5-coder"
    );

    let commands: Vec<(bool, Vec<String>)> = blocks(&doc, "sh")
        .iter()
        .flat_map(|b| b.lines().map(str::to_owned).collect::<Vec<_>>())
        .filter_map(|line| {
            let (piped, command) = match line.split_once(" | ") {
                Some((_, after)) if after.starts_with("coyote ") => (true, after.to_owned()),
                Some((before, _)) if before.starts_with("coyote ") => (false, before.to_owned()),
                _ => (false, line.clone()),
            };
            command
                .starts_with("coyote ")
                .then(|| (piped, shell_words(&command)))
        })
        .collect();
    assert!(commands.len() >= 8, "{commands:?}");
    let chats = commands.iter().filter(|(_, w)| w[1] != "models").count();
    let script = (0..chats)
        .map(|i| Reply::text(format!("answer {i}")))
        .collect();
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    let home = Home::new();
    let local = format!("api_base: {}", llm.api_base());
    std::fs::write(
        home.config_dir().join("config.yaml"),
        yaml[0].replace("api_base: http://127.0.0.1:8080/v1", &local),
    )
    .unwrap();
    for (piped, words) in &commands {
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let input = piped.then_some("piped example text\n");
        let r = run(&home, &args, input).await;
        assert_eq!(r.code, 0, "{words:?}: {}", r.err);
        if args[0] == "models" && args.contains(&"--json") {
            serde_json::from_str::<Value>(&r.out)
                .unwrap_or_else(|e| panic!("{words:?}: not JSON ({e}): {}", r.out));
        } else if args.contains(&"--json") {
            for line in r.out.lines() {
                serde_json::from_str::<Value>(line)
                    .unwrap_or_else(|e| panic!("{words:?}: not JSON ({e}): {line}"));
            }
        }
    }
    assert_eq!(llm.remaining(), 0);
    let piped_request = llm
        .requests()
        .into_iter()
        .find(|r| user_texts(LlmWire::OpenAi, r)[0].starts_with("review this"))
        .expect("the piped example ran");
    assert_eq!(
        user_texts(LlmWire::OpenAi, &piped_request),
        vec!["review this\n\n<stdin>\npiped example text\n</stdin>"]
    );
}

/// Regression: global options before a subcommand must not turn it into chat text
/// (`coyote --config-dir DIR models` lists models; it is not the question "models").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_before_a_subcommand_still_select_it() {
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![]).await;
    let home = Home::new();
    write_config(&home, &llm, "");
    let dir = home.config_dir().display().to_string();
    let r = run(&home, &["--config-dir", &dir, "models", "--json"], None).await;
    assert_eq!(r.code, 0, "{}", r.err);
    let models: Value = serde_json::from_str(&r.out).unwrap();
    assert_eq!(models[0]["client"], "fake");
    assert_eq!(llm.requests().len(), 0);
}
