//! Issue 5 acceptance 1: the selection matrix through the REPL against live fake servers — a
//! resources-only server (`res`), a prompts-only server (`prm`) and a tools server (`tls`).
//! What the model may call is read from the fake model's captured request; `.list` and
//! completion read the same shared selection ([`Repl::enabled_filter`]).

use std::time::Duration;

use coyote_config::{ConfigPaths, MapEnv, ServerList, parse_app_config};
use coyote_llm::{ModelConfig, ProviderConfig, ProviderKind};
use coyote_mcp::{McpRuntime, RuntimeOptions, SpillStore};
use coyote_protocol::Timeouts;
use coyote_session::{ModelSettings, Session};
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools};
use coyote_test_support::{
    Capabilities, PromptSpec, ResourceBody, Scenario, ToolBehavior, in_process,
};

use super::super::line::UserLine;
use super::super::questions::{Interactivity, Questions};
use super::super::screen::Screen;
use super::super::views::Redactor;
use super::super::{Repl, ReplParts};
use super::*;

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
                    messages: Vec::new(),
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

fn world(config_yaml: &str, roles: &[(&str, &str)], replies: usize) -> World {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let paths = ConfigPaths::under(dir.path());
    std::fs::create_dir_all(paths.roles_dir()).unwrap();
    for (name, text) in roles {
        std::fs::write(paths.roles_dir().join(format!("{name}.md")), text).unwrap();
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
    let provider = coyote_llm::build_provider(
        ProviderConfig::new(ProviderKind::OpenAiCompatible, "fake", llm.api_base())
            .with_models(vec![ModelConfig::named("m")]),
    )
    .unwrap();
    let spill = SpillStore::new(dir.path().join("spill"));
    let session =
        Session::builder(provider, ModelSettings::named("m"), runtime, spill.clone()).build();
    let screen = Screen::new();
    let mut repl = Repl::new(ReplParts {
        runtime_handle: rt.handle().clone(),
        session,
        questions: Questions::new(screen.clone(), Interactivity::None),
        screen,
        specs: Vec::new(),
        spill,
        redactor: Redactor::default(),
        app_config: Some(app),
        history_file: dir.path().join("history.txt"),
        log_file: None,
    });
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
            "docs",
            "---\nenabled_mcp_servers: [prm]\ndescription: prompts only\n---\nYou write docs.",
        ),
        (
            "both",
            "---\nenabled_mcp_servers: [reading]\n---\nRead and prompt.",
        ),
        ("nothing", "---\nenabled_mcp_servers: []\n---\nNo servers."),
    ];
    let config = "enabled_mcp_servers: [res]\nmapping_mcp_servers:\n  reading: [res, prm]";
    let mut w = world(config, &roles, 9);

    // config.yaml: the resources-only server keeps search/describe/read (R12).
    assert_eq!(w.declared(), names(&RES));
    assert_eq!(w.enabled(), vec!["res"]);

    // A role beats config.yaml; a prompts-only server keeps search/describe/prompt (R12).
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
    let roles = [("bad", "---\ntemperature: hot\n---\nprompt")];
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
