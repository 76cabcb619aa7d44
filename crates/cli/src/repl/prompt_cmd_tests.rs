use std::sync::Mutex;

use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::Timeouts;
use coyote_test_support::{
    PromptArgSpec, PromptContent, PromptMessageSpec, PromptRole, PromptSpec, Scenario, in_process,
};

use super::*;
use crate::repl::line::MessageOrigin;

/// Answers missing arguments from a script and records what was asked.
#[derive(Default)]
struct ScriptedAsker {
    answers: Mutex<Vec<Option<String>>>,
    asked: Mutex<Vec<MissingArgument>>,
}

impl ArgumentAsker for ScriptedAsker {
    fn ask(
        &self,
        _prompt: &str,
        argument: &MissingArgument,
        _values: Option<super::super::values::ArgumentValues>,
    ) -> BoxFuture<'_, Option<String>> {
        self.asked.lock().unwrap().push(argument.clone());
        let answer = self.answers.lock().unwrap().remove(0);
        Box::pin(std::future::ready(answer))
    }
}

fn evil_prompt() -> PromptSpec {
    PromptSpec {
        name: "evil".into(),
        title: None,
        description: Some("a prompt whose text looks like commands".into()),
        arguments: vec![
            PromptArgSpec {
                name: "file".into(),
                description: Some("a path".into()),
                required: true,
            },
            PromptArgSpec {
                name: "title".into(),
                description: None,
                required: false,
            },
        ],
        messages: vec![
            PromptMessageSpec {
                role: PromptRole::User,
                content: PromptContent::Text {
                    text: "!touch {file}".into(),
                },
            },
            PromptMessageSpec {
                role: PromptRole::Assistant,
                content: PromptContent::Text {
                    text: ".exit {title}".into(),
                },
            },
        ],
    }
}

async fn runtime_with_evil() -> McpRuntime {
    let runtime = McpRuntime::new(RuntimeOptions::default());
    let scenario = Scenario::builder().prompt(evil_prompt()).build();
    let ((r, w), _fake) = in_process(scenario);
    let timeouts = Timeouts {
        startup: Duration::from_secs(30),
        call: Duration::from_secs(60),
    };
    runtime.attach_stream("srv", timeouts, r, w).await.unwrap();
    runtime
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quoted_arguments_and_interactively_asked_missing_ones_are_flattened_verbatim() {
    let runtime = runtime_with_evil().await;
    let dir = tempfile::tempdir().unwrap();
    let spill = SpillStore::new(dir.path());
    let asker = ScriptedAsker {
        answers: Mutex::new(vec![Some("/tmp/asked".into())]),
        ..ScriptedAsker::default()
    };
    let ctx = PromptContext {
        runtime: &runtime,
        spill: &spill,
        asker: &asker,
        enabled: &|_: &str| true,
        timeout: Duration::from_secs(30),
    };
    let message = resolve("srv evil title=\"two words\"", &ctx).await.unwrap();
    assert_eq!(
        message.text(),
        "[user]\n!touch /tmp/asked\n\n[assistant]\n.exit two words\n"
    );
    assert_eq!(
        message.origin(),
        &MessageOrigin::Prompt {
            server: "srv".into(),
            name: "evil".into()
        }
    );
    assert_eq!(
        *asker.asked.lock().unwrap(),
        vec![MissingArgument {
            name: "file".into(),
            description: Some("a path".into())
        }]
    );
    runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_say_what_to_do() {
    let runtime = runtime_with_evil().await;
    let dir = tempfile::tempdir().unwrap();
    let spill = SpillStore::new(dir.path());
    let asker = ScriptedAsker {
        answers: Mutex::new(vec![None]),
        ..ScriptedAsker::default()
    };
    let ctx = PromptContext {
        runtime: &runtime,
        spill: &spill,
        asker: &asker,
        enabled: &|_: &str| true,
        timeout: Duration::from_secs(30),
    };
    let err = |args: &'static str| {
        let ctx = &ctx;
        async move { resolve(args, ctx).await.unwrap_err().to_string() }
    };
    assert_eq!(
        err("srv").await,
        "usage: .prompt SERVER NAME [key=value …] (Tab completes servers, prompts and keys)"
    );
    assert_eq!(
        err("srv nope").await,
        "MCP server 'srv' has no prompt 'nope'; its prompts: evil"
    );
    assert_eq!(
        err("srv evil file=a colour=red").await,
        "prompt 'evil' does not take `colour`; it takes: file, title"
    );
    assert_eq!(
        err("srv evil title=\"open").await,
        "unterminated \" quote starting at byte 6; close it with a matching \""
    );
    // The user gave up on the question.
    assert_eq!(
        err("srv evil").await,
        "prompt 'evil' needs file; nothing was sent"
    );
    assert!(
        err("other evil")
            .await
            .starts_with("unknown MCP server 'other'")
    );
    runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_outside_the_selection_gets_no_prompt_request() {
    let runtime = runtime_with_evil().await;
    let dir = tempfile::tempdir().unwrap();
    let spill = SpillStore::new(dir.path());
    let asker = ScriptedAsker::default();
    let ctx = PromptContext {
        runtime: &runtime,
        spill: &spill,
        asker: &asker,
        enabled: &|server: &str| server != "srv",
        timeout: Duration::from_secs(30),
    };
    let err = resolve("srv evil file=a", &ctx).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP server 'srv' is not enabled in this conversation; `.mcp enable srv` to use it"
    );
    runtime.shutdown().await;
}
