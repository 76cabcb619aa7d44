//! Scope through the REPL: the selection matrix against live fake servers — a
//! resources-only server (`res`), a prompts-only server (`prm`) and a tools server (`tls`).
//! What the model may call is read from the fake model's captured request; `.list` and
//! completion read the same shared selection ([`Repl::enabled_filter`]).

use std::time::Duration;

use coyote_config::{ConfigPaths, MapEnv, ServerList, parse_app_config};
use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::Timeouts;
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools};
use coyote_test_support::{
    Capabilities, PromptContent, PromptMessageSpec, PromptRole, PromptSpec, ResourceBody, Scenario,
    ToolBehavior, in_process,
};

use super::super::Repl;
use super::super::line::UserLine;
use crate::scope::*;

struct World {
    rt: tokio::runtime::Runtime,
    llm: FakeLlm,
    repl: Repl,
    _dir: tempfile::TempDir,
}

fn scenarios() -> Vec<(&'static str, Scenario)> {
    vec![
        (
            "res",
            Scenario::builder()
                .capabilities(Capabilities::none().with_resources())
                .resource(
                    "file:///notes.txt",
                    "notes",
                    ResourceBody::Text {
                        text: "hello".into(),
                    },
                )
                .build(),
        ),
        (
            "prm",
            Scenario::builder()
                .capabilities(Capabilities::none().with_prompts())
                .prompt(PromptSpec {
                    name: "greet".into(),
                    title: None,
                    description: None,
                    arguments: Vec::new(),
                    messages: vec![PromptMessageSpec {
                        role: PromptRole::User,
                        content: PromptContent::Text {
                            text: "Say hello".into(),
                        },
                    }],
                })
                .build(),
        ),
        (
            "tls",
            Scenario::builder()
                .capabilities(Capabilities::none().with_tools())
                .tool("echo", ToolBehavior::Echo)
                .build(),
        ),
    ]
}

/// `files` are written under the config dir (`roles/x.md`, `macros/y.yaml`, `sessions/…`).
fn world(config_yaml: &str, files: &[(&str, &str)], replies: usize) -> World {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let paths = ConfigPaths::under(dir.path());
    for (file, text) in files {
        let path = paths.config_dir().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let script = (0..replies)
        .map(|i| Reply::text(format!("ok {i}")))
        .collect();
    let (runtime, llm) = rt.block_on(async {
        let runtime = McpRuntime::new(RuntimeOptions::default());
        for (name, scenario) in scenarios() {
            let ((r, w), _fake) = in_process(scenario);
            let timeouts = Timeouts {
                startup: Duration::from_secs(30),
                call: Duration::from_secs(60),
            };
            runtime.attach_stream(name, timeouts, r, w).await.unwrap();
        }
        (runtime, FakeLlm::start(LlmWire::OpenAi, script).await)
    });
    let yaml = format!(
        "{config_yaml}\nmodel: fake:m\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: m\n",
        llm.api_base()
    );
    let config_file = paths.config_yaml();
    let app = parse_app_config(&yaml, &config_file, None, &MapEnv::new()).unwrap();
    let mut repl = super::super::test_repl::fake_model_repl(
        &rt,
        runtime,
        &llm.api_base(),
        dir.path(),
        Some(app),
    );
    repl.set_config_paths(paths);
    repl.apply_scope(Scope::default()).unwrap();
    World {
        rt,
        llm,
        repl,
        _dir: dir,
    }
}

impl World {
    fn line(&mut self, text: &str) {
        self.repl.handle_line(UserLine::typed(text.to_owned()));
    }

    /// Sends one message and returns the functions the request declared, sorted.
    fn declared(&mut self) -> Vec<String> {
        let before = self.llm.requests().len();
        self.line("hi");
        let requests = self.llm.requests();
        assert_eq!(requests.len(), before + 1, "one request per message");
        let mut names = declared_tools(LlmWire::OpenAi, &requests[before]);
        names.sort();
        names
    }

    /// The servers `.list` and completion consider enabled.
    fn enabled(&self) -> Vec<&'static str> {
        let filter = self.repl.enabled_filter();
        ["prm", "res", "tls"]
            .into_iter()
            .filter(|n| filter(n))
            .collect()
    }
}

fn names(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

const RES: [&str; 3] = ["mcp_describe_res", "mcp_read_res", "mcp_search_res"];
const PRM: [&str; 3] = ["mcp_describe_prm", "mcp_prompt_prm", "mcp_search_prm"];

fn without_tls(declared: Vec<String>) -> Vec<String> {
    declared
        .into_iter()
        .filter(|n| !n.contains("tls"))
        .collect()
}

#[test]
fn selection_matrix_config_role_agent_session_with_aliases_and_r12() {
    let roles = [
        (
            "roles/docs.md",
            "---\nenabled_mcp_servers: [prm]\ndescription: prompts only\n---\nYou write docs.",
        ),
        (
            "roles/both.md",
            "---\nenabled_mcp_servers: [reading]\n---\nRead and prompt.",
        ),
        (
            "roles/nothing.md",
            "---\nenabled_mcp_servers: []\n---\nNo servers.",
        ),
    ];
    let config = "enabled_mcp_servers: [res]\nmapping_mcp_servers:\n  reading: [res, prm]";
    let mut w = world(config, &roles, 9);

    // config.yaml: the resources-only server keeps search/describe/read.
    assert_eq!(w.declared(), names(&RES));
    assert_eq!(w.enabled(), vec!["res"]);

    // A role beats config.yaml; a prompts-only server keeps search/describe/prompt.
    w.line(".role docs");
    assert_eq!(w.declared(), names(&PRM));
    assert_eq!(w.enabled(), vec!["prm"]);
    assert_eq!(
        w.repl.conversation().system.as_deref(),
        Some("You write docs.")
    );

    // An alias expands to both servers, each with exactly what its features entitle it to.
    w.line(".role both");
    let both: Vec<&str> = RES.iter().chain(PRM.iter()).copied().collect();
    assert_eq!(w.declared(), names(&both));
    assert_eq!(w.enabled(), vec!["prm", "res"]);

    // The agent layer beats the role.
    let mut scope = w.repl.scope().clone();
    scope.agent = Some(AgentLayer {
        name: "helper".into(),
        enabled_mcp_servers: Some(ServerList::Names(vec!["res".into()])),
        ..AgentLayer::default()
    });
    w.repl.apply_scope(scope).unwrap();
    assert_eq!(w.declared(), names(&RES));

    // The session beats the agent: `.mcp enable` adds to the current selection.
    w.line(".mcp enable prm");
    assert_eq!(w.declared(), names(&both));
    assert_eq!(w.enabled(), vec!["prm", "res"]);
    w.line(".mcp disable reading");
    assert_eq!(w.declared(), Vec::<String>::new());
    assert_eq!(w.enabled(), Vec::<&str>::new());
    w.line(".mcp enable all");
    let all = w.declared();
    assert_eq!(without_tls(all.clone()), names(&both));
    assert!(all.iter().any(|n| n.contains("tls")), "{all:?}");
    assert_eq!(w.enabled(), vec!["prm", "res", "tls"]);

    // An empty list disables every server.
    let mut scope = w.repl.scope().clone();
    scope.agent = None;
    scope.session_servers = None;
    w.repl.apply_scope(scope).unwrap();
    w.line(".role nothing");
    assert_eq!(w.declared(), Vec::<String>::new());
    assert_eq!(w.enabled(), Vec::<&str>::new());

    // Leaving the role falls back to config.yaml.
    w.line(".role");
    assert_eq!(w.declared(), names(&RES));
    assert_eq!(w.repl.conversation().system, None);
    assert_eq!(w.llm.violations(), Vec::<String>::new());
    w.repl.shutdown();
    drop(w.rt);
}

#[test]
fn a_malformed_role_is_reported_and_changes_nothing() {
    let roles = [("roles/bad.md", "---\ntemperature: hot\n---\nprompt")];
    let mut w = world("", &roles, 1);
    let error = w.repl.change_role(Some("bad")).unwrap_err();
    let file = w.repl.paths.as_ref().unwrap().roles_dir().join("bad.md");
    assert_eq!(
        error,
        format!(
            "{} (key `temperature`): expected a number; write `temperature: 0.7`",
            file.display()
        )
    );
    assert_eq!(w.repl.scope().role, None);
    // Still running, still every server.
    assert_eq!(w.enabled(), vec!["prm", "res", "tls"]);
    assert_eq!(
        w.repl.handle_line(UserLine::typed(".role bad".into())),
        super::super::Flow::Continue
    );
    w.line("hi");
    assert_eq!(w.llm.requests().len(), 1);
    w.repl.shutdown();
    drop(w.rt);
}

// ---- macros ----

const PROMPT_MACRO: &str = "description: shadowed by the builtin\nsteps:\n  - macro ran\n";
const HELLO_MACRO: &str = "variables:\n  - name: who\n  - name: how\n    default: warmly\nsteps:\n  - \"greet {{who}} {{how}}\"\n  - .mcp disable tls\n";
const BAD_MACRO: &str = "steps:\n  - \"{{missing}}\"\n";

fn last_user_text(w: &World) -> String {
    let requests = w.llm.requests();
    let last = requests.last().expect("a request was made");
    coyote_test_support::fake_llm::user_texts(LlmWire::OpenAi, last)
        .pop()
        .unwrap()
}

#[test]
fn a_macro_named_prompt_is_warned_about_and_prompt_stays_the_builtin() {
    let files = [
        ("macros/prompt.yaml", PROMPT_MACRO),
        ("macros/hello.yaml", HELLO_MACRO),
        ("macros/bad.yaml", BAD_MACRO),
    ];
    let mut w = world("", &files, 3);
    let paths = w.repl.paths.clone().unwrap();
    let macros = paths.macros_dir();

    // Start-up: the shadowed macro is warned about once, the broken file is reported.
    assert_eq!(
        w.repl.startup_warnings(),
        vec![
            format!(
                "{}: macro `prompt` is shadowed by the builtin `.prompt`; run it with `.macro \
                 prompt` or rename the file",
                macros.join("prompt.yaml").display()
            ),
            format!(
                "{} (key `steps[0]`): `{{{{missing}}}}` is not a declared variable; declare it \
                 under `variables:` (`- name: missing`) or fix the spelling",
                macros.join("bad.yaml").display()
            ),
        ]
    );

    // `.prompt` runs the builtin: the server's prompt is chatted, the macro does not run.
    w.line(".prompt prm greet");
    assert_eq!(w.llm.requests().len(), 1);
    assert_eq!(last_user_text(&w), "[user]\nSay hello\n");

    // `.macro prompt` runs the macro.
    w.line(".macro prompt");
    assert_eq!(w.llm.requests().len(), 2);
    assert_eq!(last_user_text(&w), "macro ran");

    // A bare `.NAME` that is no builtin runs the macro; positional args, quotes, defaults; a
    // step may be a command.
    w.line(".hello \"the team\"");
    assert_eq!(w.llm.requests().len(), 3);
    assert_eq!(last_user_text(&w), "greet the team warmly");
    assert_eq!(w.enabled(), vec!["prm", "res"]);

    // `.list macros` marks the shadowed macro.
    let listing = w.repl.list_macros();
    assert!(
        listing.contains("prompt (shadowed by .prompt; run with .macro prompt)  .macro prompt"),
        "{listing}"
    );
    assert!(listing.contains("hello"), "{listing}");
    assert!(listing.contains("error: "), "{listing}");

    // A malformed macro, a missing argument, an unknown command: reported, nothing sent, the
    // REPL keeps running.
    for line in [".macro bad", ".hello", ".nope", ".macro nope"] {
        assert_eq!(
            w.repl.handle_line(UserLine::typed(line.to_owned())),
            super::super::Flow::Continue,
            "{line}"
        );
    }
    assert_eq!(w.llm.requests().len(), 3);
    assert_eq!(w.llm.violations(), Vec::<String>::new());
    w.repl.shutdown();
    drop(w.rt);
}

#[test]
fn a_macro_that_calls_itself_stops_at_the_depth_limit() {
    let files = [("macros/again.yaml", "steps:\n  - .again\n")];
    let mut w = world("", &files, 0);
    assert_eq!(
        w.repl.handle_line(UserLine::typed(".again".into())),
        super::super::Flow::Continue
    );
    assert_eq!(w.repl.macro_depth, 0);
    w.repl.shutdown();
    drop(w.rt);
}

// ---- sessions ----

#[test]
fn a_saved_session_loads_back_with_its_role_selection_and_history() {
    let files = [(
        "roles/docs.md",
        "---\nenabled_mcp_servers: [prm]\n---\nYou write docs.",
    )];
    let mut w = world("", &files, 2);
    w.line(".role docs");
    w.line(".mcp enable res");
    w.line("first question");
    w.line(".session save work");
    let file = w
        .repl
        .paths
        .as_ref()
        .unwrap()
        .sessions_dir()
        .join("work.yaml");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let saved = w.repl.conversation().clone();

    // A new session forgets everything but the role.
    w.line(".session new");
    assert!(w.repl.conversation().messages.is_empty());
    assert_eq!(w.repl.scope().session_name, None);
    assert_eq!(w.enabled(), vec!["prm"]);
    w.line(".role");
    assert_eq!(w.enabled(), vec!["prm", "res", "tls"]);

    w.line(".session load work");
    assert_eq!(w.repl.conversation(), &saved);
    assert_eq!(
        w.repl.scope().role.as_ref().map(|r| r.name.as_str()),
        Some("docs")
    );
    assert_eq!(w.repl.scope().session_name.as_deref(), Some("work"));
    assert_eq!(w.enabled(), vec!["prm", "res"]);

    // The next turn carries the whole history and is saved automatically.
    w.line("second question");
    let requests = w.llm.requests();
    assert_eq!(
        coyote_test_support::fake_llm::user_texts(LlmWire::OpenAi, &requests[1]),
        vec!["first question".to_owned(), "second question".to_owned()]
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("second question"), "{text}");
    assert_eq!(w.llm.violations(), Vec::<String>::new());
    w.repl.shutdown();
    drop(w.rt);
}

#[test]
fn a_corrupt_session_is_reported_and_left_untouched() {
    let garbage = "version: 1\nconversation: [not, a, conversation\n";
    let files = [("sessions/broken.yaml", garbage)];
    let mut w = world("", &files, 1);
    let file = w
        .repl
        .paths
        .as_ref()
        .unwrap()
        .sessions_dir()
        .join("broken.yaml");
    let error = w.repl.load_session("broken").unwrap_err();
    assert!(
        error.starts_with(&format!(
            "{} is not a readable session file",
            file.display()
        )),
        "{error}"
    );
    assert!(error.ends_with("it was left untouched: move it away or pick another name"));
    assert_eq!(w.repl.scope().session_name, None);
    // Saving over it is refused; the file stays as it was.
    w.line("hi");
    w.line(".session save broken");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), garbage);
    w.repl.shutdown();
    drop(w.rt);
}

/// docs/agents.md's saved-session example is a session coyote can load.
#[test]
fn the_documented_session_example_loads_as_a_conversation() {
    let docs = include_str!("../../../../docs/agents.md");
    let start = docs
        .find("<!-- file: sessions/triage.yaml -->\n```yaml\n")
        .expect("docs/agents.md has the session example")
        + "<!-- file: sessions/triage.yaml -->\n```yaml\n".len();
    let end = start + docs[start..].find("```").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("triage.yaml"), &docs[start..end]).unwrap();
    let file: coyote_config::SessionFile<coyote_session::Conversation> =
        coyote_config::SessionStore::new(dir.path())
            .load("triage")
            .unwrap();
    assert_eq!(file.meta.role.as_deref(), Some("reviewer"));
    assert_eq!(file.conversation.messages.len(), 2);
    assert_eq!(
        file.conversation.last_assistant_text(),
        Some("Line 12 reads past the end of the buffer.")
    );
    assert_eq!(file.conversation.usage.input, 120);
}

/// `.info`'s scope lines: role, agent, session, the selection with its layer, the context.
#[test]
fn info_shows_the_scope_and_the_context_used() {
    let files = [(
        "roles/docs.md",
        "---\nenabled_mcp_servers: [prm]\n---\nYou write docs.",
    )];
    let config = "compact_threshold: 70\nenabled_mcp_servers: [res]";
    let mut w = world(config, &files, 1);
    let info = w.repl.scope_info();
    assert_eq!(
        info,
        "role             none\n\
         agent            none\n\
         session          none (not saved)\n\
         mcp selection    res (from config.yaml)\n\
         context          ~0 of 128000 tokens (0 %), compacts at 70 %\n"
    );
    w.line(".role docs");
    w.line(".session save notes");
    let role_file = w.repl.paths.as_ref().unwrap().roles_dir().join("docs.md");
    let info = w.repl.scope_info();
    let used = w.repl.session.context_usage(w.repl.conversation()).used;
    assert!(used > 0);
    assert_eq!(
        info,
        format!(
            "role             docs ({})\n\
             agent            none\n\
             session          notes\n\
             mcp selection    prm (from the role)\n\
             context          ~{used} of 128000 tokens (0 %), compacts at 70 %\n",
            role_file.display()
        )
    );
    w.repl.shutdown();
    drop(w.rt);
}
