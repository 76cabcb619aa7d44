//! The REPL end to end, through a real terminal: tmux runs the `coyote repl` binary (reedline
//! asks the terminal for the cursor position, which tmux answers), the test types with
//! `send-keys` and reads the screen with `capture-pane`, polling with a bounded deadline.
//! Peers: the scripted fake model (test-support `fake_llm`) and the fake MCP server binary,
//! whose event log shows what the server saw.
//!
//! Deadlines only bound the polling; every assertion is about which path was taken (what the
//! server or the model received), never about how long something took.

use std::time::Duration;

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, tool_results, user_texts};
use coyote_test_support::{
    Capabilities, PromptArgSpec, PromptContent, PromptMessageSpec, PromptRole, PromptSpec,
    Scenario, ScenarioFile, StartupMode, ToolBehavior,
};
use serde_json::{Value, json};

use super::common::Home;
use super::terminal::{POLL, Terminal, WAIT, tmux_available};

/// config.yaml pointing `fake:fake-model` at `llm` (no key needed).
pub(super) fn write_config(home: &Home, llm: &FakeLlm) {
    let text = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

fn text_message(role: PromptRole, text: &str) -> PromptMessageSpec {
    PromptMessageSpec {
        role,
        content: PromptContent::Text { text: text.into() },
    }
}

/// The MCP fake: prompts (`evil`, whose text is a shell line), a destructive tool, a tool
/// that asks, a tool that hangs.
fn fake_server(home: &Home) -> ScenarioFile {
    Scenario::builder()
        .server_name("everything")
        .capabilities(Capabilities::none().with_tools().with_prompts())
        .prompt(PromptSpec {
            name: "evil".into(),
            title: None,
            description: Some("looks like a command".into()),
            arguments: vec![
                PromptArgSpec {
                    name: "file".into(),
                    description: Some("where to touch".into()),
                    required: true,
                },
                PromptArgSpec {
                    name: "mode".into(),
                    description: Some("how".into()),
                    required: false,
                },
            ],
            messages: vec![text_message(PromptRole::User, "!touch {file}")],
        })
        .prompt(PromptSpec {
            name: "explain".into(),
            title: None,
            description: Some("explain a topic".into()),
            arguments: vec![],
            messages: vec![text_message(PromptRole::User, "explain")],
        })
        .safe_tool("echo", ToolBehavior::Echo)
        .destructive_tool(
            "wipe",
            ToolBehavior::Text {
                text: "wiped".into(),
            },
        )
        .safe_tool("ask", ToolBehavior::elicit_form())
        .safe_tool("hang", ToolBehavior::Hang)
        .write_to(home.path())
        .unwrap()
}

async fn setup(script: Vec<Reply>, server_extra: Value) -> (Home, FakeLlm, ScenarioFile) {
    let llm = FakeLlm::start(LlmWire::OpenAi, script).await;
    let home = Home::new();
    let server = fake_server(&home);
    let mut entry = server.mcp_json_entry();
    // The scripts call `mcp_invoke_everything`: declared only through meta-functions.
    entry["expose"] = json!("meta");
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), server_extra.as_object()) {
        entry.extend(extra.clone());
    }
    home.write_servers(json!({ "everything": entry }));
    write_config(&home, &llm);
    (home, llm, server)
}

/// Waits until the server is Ready (`.mcp status` shows it), so completion has a server.
async fn wait_ready(term: &Terminal, prompts_so_far: usize) -> usize {
    let mut prompts = prompts_so_far;
    loop {
        term.type_text(".mcp status");
        term.keys(&["Enter"]);
        prompts += 1;
        let screen = term.wait_prompts(prompts).await;
        if screen.contains("everything  stdio      ready") {
            return prompts;
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn last_user_text(llm: &FakeLlm) -> Vec<String> {
    llm.requests()
        .last()
        .map(|r| user_texts(LlmWire::OpenAi, r))
        .unwrap_or_default()
}

/// Acceptance 2 and the terminal half of 3: `.prompt ev<TAB>` completes the server, the
/// prompt and its `key=`, and the prompt whose content is `!touch FILE` reaches the model as
/// user text while FILE is never created.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_completion_and_a_shell_looking_prompt_is_chatted() {
    if !tmux_available() {
        return;
    }
    let script = vec![
        Reply::text("I will not touch anything."),
        Reply::text("Still not touching it."),
    ];
    let (home, llm, _server) = setup(script, json!({})).await;
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    let prompts = wait_ready(&term, 1).await;

    // Stage 1: the only matching server is inserted at once.
    term.type_text(".prompt ev");
    term.keys(&["Tab"]);
    term.wait_for("server completion", |s| {
        s.lines()
            .any(|l| l.trim_end() == "coyote> .prompt everything")
    })
    .await;
    // Stage 2: the server's prompts, with descriptions.
    term.keys(&["Tab"]);
    let screen = term.wait_text("explain a topic").await;
    assert!(screen.contains("looks like a command"), "{screen}");
    // Ctrl-C clears the line (and the menu), like a shell; a fresh prompt follows.
    term.keys(&["C-c"]);
    let prompts = prompts + 1;
    term.wait_prompts(prompts).await;
    // Stage 3: `key=` per argument, required ones marked.
    term.type_text(".prompt everything evil ");
    term.keys(&["Tab"]);
    let screen = term.wait_text("where to touch (required)").await;
    assert!(screen.contains("file="), "{screen}");
    assert!(screen.contains("mode="), "{screen}");
    term.keys(&["C-c"]);
    let prompts = prompts + 1;
    term.wait_prompts(prompts).await;

    let marker = home.path().join("pwned");
    term.type_text(&format!(
        ".prompt everything evil file={}",
        marker.display()
    ));
    term.keys(&["Enter"]);
    term.wait_text("I will not touch anything.").await;
    term.wait_prompts(prompts + 1).await;
    assert_eq!(
        last_user_text(&llm).await,
        vec![format!("[user]\n!touch {}\n", marker.display())]
    );
    assert!(!marker.exists(), "the prompt's `!touch` must never run");

    // A missing required argument is asked for; the answer fills the prompt.
    term.type_text(".prompt everything evil");
    term.keys(&["Enter"]);
    term.wait_text("file for prompt `evil`").await;
    term.type_text(&marker.display().to_string());
    term.keys(&["Enter"]);
    term.wait_text("Still not touching it.").await;
    term.wait_prompts(prompts + 2).await;
    let texts = last_user_text(&llm).await;
    assert_eq!(
        texts.last(),
        Some(&format!("[user]\n!touch {}\n", marker.display()))
    );
    assert!(!marker.exists());
    assert_eq!(llm.violations(), Vec::<String>::new());

    term.type_text(".exit");
    term.keys(&["Enter"]);
    term.wait_text("[coyote exited 0]").await;
}

/// The tool results of the latest model request.
fn last_tool_results(llm: &FakeLlm) -> Vec<(String, String)> {
    llm.requests()
        .last()
        .map(|r| tool_results(LlmWire::OpenAi, r))
        .unwrap_or_default()
}

/// Acceptance 4, approval: "no" keeps the destructive tool from running and the model is told;
/// "yes" runs it; each call gets a status line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_tool_runs_only_after_yes() {
    if !tmux_available() {
        return;
    }
    let wipe = json!({"tool": "wipe", "arguments": {"target": "prod"}});
    let script = vec![
        Reply::call("mcp_invoke_everything", wipe.clone()),
        Reply::text("Understood, nothing was wiped."),
        Reply::call("mcp_invoke_everything", wipe),
        Reply::text("Wiped as asked."),
    ];
    let (home, llm, server) = setup(script, json!({})).await;
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    let prompts = wait_ready(&term, 1).await;

    term.type_text("please wipe prod");
    term.keys(&["Enter"]);
    let screen = term
        .wait_text("Run tool `wipe` on MCP server `everything` (it is marked destructive)?")
        .await;
    assert!(
        screen.contains(r#"Arguments: {"target":"prod"}"#),
        "{screen}"
    );
    // The cursor starts on "no": Enter refuses.
    term.keys(&["Enter"]);
    term.wait_text("Understood, nothing was wiped.").await;
    let prompts = prompts + 1;
    let screen = term.wait_prompts(prompts).await;
    assert!(
        screen.contains("✗ wipe (everything, via mcp_invoke_everything) 0 ms refused"),
        "{screen}"
    );
    assert_eq!(
        server.events().tool_calls("wipe"),
        0,
        "refused: never invoked"
    );
    let results = last_tool_results(&llm);
    assert_eq!(results.len(), 1);
    assert!(
        results[0]
            .1
            .contains("The user did not approve running tool `wipe`"),
        "{results:?}"
    );

    term.type_text("really, wipe it");
    term.keys(&["Enter"]);
    term.wait_for("the second approval question", |s| {
        s.matches("Run tool `wipe` on MCP server `everything`")
            .count()
            == 2
    })
    .await;
    term.keys(&["Up", "Enter"]);
    term.wait_text("Wiped as asked.").await;
    term.wait_prompts(prompts + 1).await;
    assert_eq!(server.events().tool_calls("wipe"), 1);
    let results = last_tool_results(&llm);
    assert_eq!(
        results.len(),
        2,
        "both turns' calls are answered: {results:?}"
    );
    // The result opens with the line saying whose output it is, then the tool's result.
    let (header, body) = results[1]
        .1
        .split_once('\n')
        .expect("header line then the result");
    assert!(
        header.starts_with("Result of tool `wipe` on MCP server `everything`"),
        "{header}"
    );
    // A plain text answer is passed on as that text.
    assert_eq!(body, "wiped");
    assert_eq!(llm.violations(), Vec::<String>::new());
}

/// Acceptance 4, elicitation: accept (defaults filled in), decline and cancel round trips
/// against a server tool that asks; with a 1 s call timeout, the call is not timed out while
/// the form stays open for longer than that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_accept_decline_cancel_and_no_timeout_while_open() {
    if !tmux_available() {
        return;
    }
    let ask = json!({"tool": "ask", "arguments": {}});
    let script = vec![
        Reply::call("mcp_invoke_everything", ask.clone()),
        Reply::text("accepted turn done"),
        Reply::call("mcp_invoke_everything", ask.clone()),
        Reply::text("declined turn done"),
        Reply::call("mcp_invoke_everything", ask),
        Reply::text("cancelled turn done"),
    ];
    let (home, llm, server) = setup(script, json!({"toolTimeoutSec": 1})).await;
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    let mut prompts = wait_ready(&term, 1).await;

    // Accept, with every default.
    term.type_text("ask me");
    term.keys(&["Enter"]);
    term.wait_text("MCP server `everything` asks: Please fill in the form")
        .await;
    // Keep the form open for several call timeouts; the call must survive it.
    tokio::time::sleep(Duration::from_secs(3)).await;
    term.keys(&["Enter"]); // answer (fill in the form)
    term.wait_text("Name").await;
    term.keys(&["Enter"]); // name: default Ada
    term.wait_text("Count (optional)").await;
    term.keys(&["Enter"]); // count: default 3
    term.wait_text("Confirm (optional)").await;
    term.keys(&["Enter"]); // confirm: default false
    term.wait_text("Color (optional)").await;
    term.keys(&["Enter"]); // color: default green
    term.wait_text("accepted turn done").await;
    prompts += 1;
    let screen = term.wait_prompts(prompts).await;
    assert!(
        screen.contains("✓ ask (everything, via mcp_invoke_everything)"),
        "{screen}"
    );

    // Decline.
    term.type_text("ask again");
    term.keys(&["Enter"]);
    term.wait_for("the second question", |s| {
        s.matches("asks: Please fill in the form").count() >= 2
    })
    .await;
    term.keys(&["Down", "Enter"]);
    term.wait_text("declined turn done").await;
    prompts += 1;
    term.wait_prompts(prompts).await;

    // Cancel.
    term.type_text("and again");
    term.keys(&["Enter"]);
    term.wait_for("the third question", |s| {
        s.matches("asks: Please fill in the form").count() >= 3
    })
    .await;
    term.keys(&["Down", "Down", "Enter"]);
    term.wait_text("cancelled turn done").await;
    prompts += 1;
    term.wait_prompts(prompts).await;

    assert_eq!(
        server.events().elicitations(),
        vec![
            (
                "accept".to_owned(),
                Some(json!({"name": "Ada", "count": 3, "confirm": false, "color": "green"}))
            ),
            ("decline".to_owned(), None),
            ("cancel".to_owned(), None),
        ]
    );
    assert_eq!(
        server.events().cancelled_notifications(),
        0,
        "nothing timed out"
    );
    assert_eq!(llm.violations(), Vec::<String>::new());
}

/// Acceptance 5: Ctrl-C during a tool call that never ends cancels it (the server sees
/// `notifications/cancelled`), the model gets a result for the call, and the REPL keeps
/// working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_cancels_a_hanging_tool_call_and_the_repl_stays_usable() {
    if !tmux_available() {
        return;
    }
    let script = vec![
        Reply::call("mcp_invoke_everything", json!({"tool": "hang"})),
        Reply::text("still here"),
    ];
    let (home, llm, server) = setup(script, json!({})).await;
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    let prompts = wait_ready(&term, 1).await;

    term.type_text("hang please");
    term.keys(&["Enter"]);
    server
        .wait_for(WAIT, |log| log.tool_calls("hang") == 1)
        .await
        .expect("the hang call reached the server");
    term.keys(&["C-c"]);
    server
        .wait_for(WAIT, |log| log.cancelled_notifications() >= 1)
        .await
        .expect("the server saw notifications/cancelled");
    let prompts = prompts + 1;
    let screen = term.wait_prompts(prompts).await;
    assert!(
        screen.contains("hang (everything, via mcp_invoke_everything)"),
        "{screen}"
    );
    assert!(screen.contains("cancelled"), "{screen}");

    term.type_text("are you there?");
    term.keys(&["Enter"]);
    term.wait_text("still here").await;
    term.wait_prompts(prompts + 1).await;
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let results = tool_results(LlmWire::OpenAi, &requests[1]);
    assert_eq!(results.len(), 1, "the cancelled call still got its result");
    assert_eq!(
        user_texts(LlmWire::OpenAi, &requests[1]),
        vec!["hang please".to_owned(), "are you there?".to_owned()]
    );
    assert_eq!(llm.violations(), Vec::<String>::new());
    assert!(
        server
            .events()
            .tools_cancelled()
            .contains(&"hang".to_owned())
    );
}

/// Shell-like keys and the history file: `!cmd` runs, a `\` line continues, Ctrl-D on an
/// empty line exits with 0, and the history is private (0600).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_commands_multi_line_input_history_and_ctrl_d() {
    use std::os::unix::fs::PermissionsExt;

    if !tmux_available() {
        return;
    }
    let (home, llm, _server) = setup(vec![Reply::text("two lines received")], json!({})).await;
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;

    let marker = home.path().join("from-bang");
    term.type_text(&format!("!touch {} && echo touched", marker.display()));
    term.keys(&["Enter"]);
    term.wait_text("touched").await;
    term.wait_prompts(2).await;
    assert!(marker.exists());
    assert!(llm.requests().is_empty(), "`!cmd` never reaches the model");

    term.type_text("first line \\");
    term.keys(&["Enter"]);
    term.type_text("second line");
    term.keys(&["Enter"]);
    term.wait_text("two lines received").await;
    term.wait_prompts(3).await;
    assert_eq!(
        last_user_text(&llm).await,
        vec!["first line \nsecond line".to_owned()]
    );

    term.keys(&["C-d"]);
    term.wait_text("[coyote exited 0]").await;
    let history = home.path().join("state/history.txt");
    let mode = std::fs::metadata(&history).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let text = std::fs::read_to_string(&history).unwrap();
    assert!(text.contains("second line"), "{text}");
}

/// `.info`, `.mcp status` and `.list prompts`: a failed server is reported with its reason,
/// the others are still listed, and mcp.json `env` values never appear (the failed server's
/// stderr echoes one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn info_and_listings_report_failures_and_redact_secrets() {
    if !tmux_available() {
        return;
    }
    const SECRET: &str = "supersecret-4711";
    let (home, _llm, server) = setup(vec![], json!({"env": {"API_TOKEN": SECRET}})).await;
    let broken = Scenario::builder()
        .server_name("broken")
        .startup_mode(StartupMode::CrashAtStart {
            stderr: format!("auth failed for token {SECRET}"),
            exit_code: 3,
        })
        .write_to(home.path())
        .unwrap();
    let mut broken_entry = broken.mcp_json_entry();
    broken_entry["env"] = json!({"API_TOKEN": SECRET});
    home.write_servers(json!({
        "everything": {
            "command": server.mcp_json_entry()["command"],
            "args": server.mcp_json_entry()["args"],
            "env": {"API_TOKEN": SECRET}
        },
        "broken": broken_entry,
    }));
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;
    let mut prompts = wait_ready(&term, 1).await;
    // Wait until `broken` has failed too.
    loop {
        term.type_text(".mcp status");
        term.keys(&["Enter"]);
        prompts += 1;
        let screen = term.wait_prompts(prompts).await;
        if screen.contains("broken: failed:") {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    term.type_text(".info");
    term.keys(&["Enter"]);
    prompts += 1;
    let screen = term.wait_prompts(prompts).await;
    assert!(
        screen.contains("model            fake:fake-model"),
        "{screen}"
    );
    assert!(
        screen.contains(
            "built-in tools   none (the model reaches the world only through MCP servers)"
        ),
        "{screen}"
    );
    assert!(
        screen.contains("auth failed for token <redacted>"),
        "{screen}"
    );

    term.type_text(".list prompts");
    term.keys(&["Enter"]);
    prompts += 1;
    let screen = term.wait_prompts(prompts).await;
    let listing: Vec<Vec<&str>> = screen
        .lines()
        .skip_while(|l| !l.starts_with("coyote> .list prompts"))
        .skip(1)
        .take_while(|l| !l.starts_with("coyote> "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        listing[..4],
        [
            vec!["SERVER", "PROMPT", "DESCRIPTION", "ARGUMENTS"],
            vec![
                "everything",
                "evil",
                "looks",
                "like",
                "a",
                "command",
                "file*",
                "mode"
            ],
            vec!["everything", "explain", "explain", "a", "topic"],
            vec!["(*", "=", "required", "argument)"],
        ],
        "{screen}"
    );
    assert!(listing[4].starts_with(&["broken:", "failed:"]), "{screen}");
    assert!(!screen.contains(SECRET), "a secret leaked:\n{screen}");

    term.type_text(".help");
    term.keys(&["Enter"]);
    prompts += 1;
    let screen = term.wait_prompts(prompts).await;
    assert!(
        screen.contains("The model has no built-in file or shell tools"),
        "{screen}"
    );
    assert!(!screen.contains(SECRET));

    // `.mcp restart`: the server is closed and connects again in the background.
    term.type_text(".mcp restart everything");
    term.keys(&["Enter"]);
    term.wait_text("Restarting MCP server 'everything' in the background")
        .await;
    server
        .wait_for(WAIT, |log| {
            log.events
                .iter()
                .filter(|e| matches!(e, coyote_test_support::Event::Initialized))
                .count()
                == 2
        })
        .await
        .expect("the restarted server completed a second handshake");
}

/// In a real terminal: a macro named `prompt` is warned about once at
/// start-up, `.prompt` still runs the builtin, `.macro prompt` runs the macro, and
/// `.list macros` marks it as shadowed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_macro_named_prompt_is_warned_about_and_prompt_stays_the_builtin() {
    if !tmux_available() {
        return;
    }
    let script = vec![Reply::text("Explained."), Reply::text("Macro answer.")];
    let (home, llm, _server) = setup(script, json!({})).await;
    let macros = home.config_dir().join("macros");
    std::fs::create_dir_all(&macros).unwrap();
    std::fs::write(
        macros.join("prompt.yaml"),
        "description: mine\nsteps:\n  - from the macro\n",
    )
    .unwrap();
    let term = Terminal::start(&home, &[]);
    let screen = term.wait_prompts(1).await;
    let warning = "macro `prompt` is shadowed by the builtin `.prompt`; run it with `.macro \
                   prompt` or rename the file";
    assert_eq!(screen.matches(warning).count(), 1, "{screen}");
    let prompts = wait_ready(&term, 1).await;

    term.type_text(".prompt everything explain");
    term.keys(&["Enter"]);
    term.wait_text("Explained.").await;
    assert_eq!(last_user_text(&llm).await, vec!["[user]\nexplain\n"]);
    let prompts = prompts + 1;
    term.wait_prompts(prompts).await;

    term.type_text(".macro prompt");
    term.keys(&["Enter"]);
    term.wait_text("Macro answer.").await;
    assert_eq!(
        last_user_text(&llm).await,
        vec!["[user]\nexplain\n", "from the macro"]
    );
    let prompts = prompts + 1;
    term.wait_prompts(prompts).await;

    term.type_text(".list macros");
    term.keys(&["Enter"]);
    let screen = term
        .wait_text("prompt (shadowed by .prompt; run with .macro prompt)")
        .await;
    // Still one warning: it is shown at start-up only.
    assert_eq!(screen.matches(warning).count(), 1, "{screen}");
    assert_eq!(llm.violations(), Vec::<String>::new());
    assert_eq!(llm.remaining(), 0);
}

/// Agents in a real terminal: `.agent NAME` asks for a variable without a default
/// (inquire), the agent's instructions with the answer reach the model, `.list agents` marks it
/// active, and `.agent` leaves it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_variables_are_asked_and_leaving_restores_the_plain_conversation() {
    if !tmux_available() {
        return;
    }
    let script = vec![Reply::text("Planned."), Reply::text("Plain again.")];
    let (home, llm, _server) = setup(script, json!({})).await;
    let agent_dir = home.config_dir().join("agents/planner");
    std::fs::create_dir_all(&agent_dir).unwrap();
    std::fs::write(
        agent_dir.join("config.yaml"),
        "description: plans things\ninstructions: Plan {{project}}.\nvariables:\n  - name: \
         project\n    description: which project\n",
    )
    .unwrap();
    let term = Terminal::start(&home, &[]);
    term.wait_prompts(1).await;

    term.type_text(".agent planner");
    term.keys(&["Enter"]);
    term.wait_text("project (agent planner)").await;
    term.type_text("mars");
    term.keys(&["Enter"]);
    term.wait_text("Agent 'planner' (model fake:fake-model")
        .await;
    term.wait_prompts(2).await;

    term.type_text("make a plan");
    term.keys(&["Enter"]);
    term.wait_text("Planned.").await;
    term.wait_prompts(3).await;
    let request = llm.requests().last().cloned().unwrap();
    assert_eq!(request["messages"][0]["role"], "system");
    assert_eq!(request["messages"][0]["content"], "Plan mars.");

    term.type_text(".list agents");
    term.keys(&["Enter"]);
    term.wait_text("planner (active)").await;
    term.wait_prompts(4).await;

    term.type_text(".agent");
    term.keys(&["Enter"]);
    term.wait_text("Left agent 'planner'.").await;
    term.wait_prompts(5).await;
    term.type_text("hello");
    term.keys(&["Enter"]);
    term.wait_text("Plain again.").await;
    let request = llm.requests().last().cloned().unwrap();
    assert_eq!(user_texts(LlmWire::OpenAi, &request), vec!["hello"]);
    // The agent's system prompt is gone (coyote's meta-function guide may remain).
    let systems: Vec<&Value> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .collect();
    assert!(
        systems
            .iter()
            .all(|m| m["content"].as_str() == Some(coyote_mcp::meta::META_GUIDE)),
        "{systems:?}"
    );
    assert_eq!(llm.violations(), Vec::<String>::new());
}

/// `.mcp status` shows a remote server that needs sign-in and the command to run;
/// `.mcp login NAME` signs in through `$BROWSER` and restarts the server, which is then ready.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_login_signs_in_and_restarts_the_server() {
    use coyote_test_support::oauth_peers::{SdkOAuthDemo, browser_command};
    use coyote_test_support::peers;
    if !tmux_available() {
        return;
    }
    let Some(demo) = peers::require(
        tokio::task::spawn_blocking(SdkOAuthDemo::start)
            .await
            .unwrap(),
    ) else {
        return;
    };
    let Some(browser) = peers::require(browser_command()) else {
        return;
    };
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![]).await;
    let home = Home::new();
    home.write_servers(json!({"demo": {"url": demo.url()}}));
    write_config(&home, &llm);
    let node_options = peers::node_options();
    let term = Terminal::start(
        &home,
        &[("BROWSER", &browser), ("NODE_OPTIONS", &node_options)],
    );
    term.wait_prompts(1).await;
    let mut prompts = 1;
    loop {
        term.type_text(".mcp status");
        term.keys(&["Enter"]);
        prompts += 1;
        let screen = term.wait_prompts(prompts).await;
        if screen.contains("demo: needs sign-in: run `.mcp login demo`") {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    term.type_text(".mcp login demo");
    term.keys(&["Enter"]);
    term.wait_text("Signed in to MCP server 'demo' (7 tools)")
        .await;
    prompts += 1;
    term.wait_prompts(prompts).await;
    loop {
        term.type_text(".mcp status");
        term.keys(&["Enter"]);
        prompts += 1;
        let screen = term.wait_prompts(prompts).await;
        let last = screen.rsplit("coyote> .mcp status").next().unwrap_or("");
        if last
            .lines()
            .any(|l| l.starts_with("demo") && l.contains("ready"))
        {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
}
