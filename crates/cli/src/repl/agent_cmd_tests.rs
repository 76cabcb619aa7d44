//! Agents in the REPL against live fakes: an in-process tools server in the app runtime (`tls`)
//! and, for the agent, its own resources-only server from its mcp.json (the fake MCP binary).
//! What the model may call and the system prompt are read from the fake model's captured
//! requests; the agent's connection is closed when it is left (the fake sees the disconnect).
//! A malformed agent file is reported with file, key and fix, and the REPL keeps running.

use std::path::Path;
use std::time::Duration;

use coyote_config::{ConfigPaths, MapEnv, parse_agent, parse_app_config};
use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::Timeouts;
use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, declared_tools};
use coyote_test_support::{
    Capabilities, ResourceBody, Scenario, ScenarioFile, ToolBehavior, in_process,
};
use serde_json::Value;

use super::super::line::UserLine;
use super::super::{Flow, Repl};
use super::*;

/// Deadline for things that should happen promptly (a loaded 2-core machine).
const PROMPT: Duration = Duration::from_secs(30);

struct World {
    rt: tokio::runtime::Runtime,
    llm: FakeLlm,
    repl: Repl,
    paths: ConfigPaths,
    _dir: tempfile::TempDir,
}

fn world(replies: usize) -> World {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let paths = ConfigPaths::under(dir.path());
    std::fs::create_dir_all(paths.agents_dir()).unwrap();
    let script = (0..replies)
        .map(|i| Reply::text(format!("ok {i}")))
        .collect();
    let (runtime, llm) = rt.block_on(async {
        let runtime = McpRuntime::new(RuntimeOptions::default());
        let tools = Scenario::builder()
            .capabilities(Capabilities::none().with_tools())
            .tool("echo", ToolBehavior::Echo)
            .build();
        let ((r, w), _fake) = in_process(tools);
        let timeouts = Timeouts {
            startup: PROMPT,
            call: PROMPT,
        };
        runtime.attach_stream("tls", timeouts, r, w).await.unwrap();
        (runtime, FakeLlm::start(LlmWire::OpenAi, script).await)
    });
    let yaml = format!(
        "model: fake:m\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: \
         {}\n    models:\n      - name: m\n      - name: agent-model\n",
        llm.api_base()
    );
    let app = parse_app_config(&yaml, &paths.config_yaml(), None, &MapEnv::new()).unwrap();
    let mut repl = super::super::test_repl::fake_model_repl(
        &rt,
        runtime,
        &llm.api_base(),
        dir.path(),
        Some(app),
    );
    repl.set_config_paths(paths.clone());
    World {
        rt,
        llm,
        repl,
        paths,
        _dir: dir,
    }
}

impl World {
    fn line(&mut self, text: &str) -> Flow {
        self.repl.handle_line(UserLine::typed(text.to_owned()))
    }

    /// Sends one message; the request it made.
    fn request(&mut self) -> Value {
        let before = self.llm.requests().len();
        self.line("hi");
        let requests = self.llm.requests();
        assert_eq!(requests.len(), before + 1, "one request per message");
        requests[before].clone()
    }

    fn write_agent(&self, name: &str, yaml: &str, mcp: Option<Value>) {
        let dir = self.paths.agents_dir().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.yaml"), yaml).unwrap();
        if let Some(mcp) = mcp {
            std::fs::write(dir.join("mcp.json"), mcp.to_string()).unwrap();
        }
    }
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

fn strs(names: &[&str]) -> Vec<String> {
    sorted(names.iter().map(|s| (*s).to_owned()).collect())
}

fn system_prompt(request: &Value) -> Option<String> {
    request["messages"]
        .as_array()?
        .iter()
        .find(|m| m["role"] == "system")
        .and_then(|m| m["content"].as_str())
        .map(str::to_owned)
}

fn kb_server(dir: &Path) -> ScenarioFile {
    Scenario::builder()
        .server_name("kb")
        .capabilities(Capabilities::none().with_resources())
        .resource(
            "kb://facts",
            "facts",
            ResourceBody::Text { text: "42".into() },
        )
        .write_to(dir)
        .expect("write scenario")
}

#[test]
fn an_agent_brings_its_model_instructions_and_own_servers_and_leaving_closes_them() {
    let mut w = world(3);
    let kb = kb_server(w._dir.path());
    w.write_agent(
        "helper",
        "model: fake:agent-model\ndescription: reads the kb\ninstructions: You help with \
         {{project}}.\nvariables:\n  - name: project\n    default: coyote\nenabled_mcp_servers: []\n",
        Some(serde_json::json!({"mcpServers": {"kb": kb.mcp_json_entry()}})),
    );
    // The app's tools server, however its tools are exposed (meta-functions or direct).
    let tls = sorted(declared_tools(LlmWire::OpenAi, &w.request()));
    assert!(
        !tls.is_empty() && tls.iter().all(|n| n.contains("tls")),
        "{tls:?}"
    );

    w.repl.try_start_agent("helper", &BTreeMap::new()).unwrap();
    let request = w.request();
    // Its own resources-only server, gated from its runtime; `enabled_mcp_servers: []` hides
    // the app's servers but never its own.
    assert_eq!(
        sorted(declared_tools(LlmWire::OpenAi, &request)),
        strs(&["mcp_describe_kb", "mcp_read_kb", "mcp_search_kb"])
    );
    assert_eq!(request["model"], "agent-model");
    assert_eq!(
        system_prompt(&request).as_deref(),
        Some("You help with coyote.")
    );
    assert!(
        w.repl.list_agents().contains("helper (active)"),
        "{}",
        w.repl.list_agents()
    );

    assert_eq!(w.line(".agent"), Flow::Continue);
    let request = w.request();
    assert_eq!(sorted(declared_tools(LlmWire::OpenAi, &request)), tls);
    assert_eq!(request["model"], "m");
    assert_eq!(system_prompt(&request), None);
    w.rt.block_on(kb.wait_for(PROMPT, |l| l.disconnect_seen()))
        .expect("leaving the agent closes its own server");
    assert_eq!(w.llm.violations(), Vec::<String>::new());
    w.repl.shutdown();
}

#[test]
fn a_malformed_agent_is_reported_with_file_key_and_fix_and_the_repl_keeps_running() {
    let mut w = world(2);
    w.write_agent("broken", "temperature: hot\ninstructions: x\n", None);
    w.write_agent("fine", "instructions: Be fine.\n", None);
    w.write_agent("orphan", "instructions: x\ndelegates: [ghost]\n", None);
    let before = w.request();
    let error = w
        .repl
        .try_start_agent("broken", &BTreeMap::new())
        .unwrap_err();
    let file = w.paths.agents_dir().join("broken/config.yaml");
    assert_eq!(
        error,
        format!(
            "{} (key `temperature`): expected a number; write `temperature: 0.7`",
            file.display()
        )
    );
    // Nothing changed, and the REPL goes on.
    assert_eq!(w.line(".agent broken"), Flow::Continue);
    assert_eq!(w.repl.agents.active_name(), None);
    let after = w.request();
    assert_eq!(
        declared_tools(LlmWire::OpenAi, &after),
        declared_tools(LlmWire::OpenAi, &before)
    );
    // `.list agents` lists the good one and names the broken file.
    let listing = w.repl.list_agents();
    assert!(listing.contains("fine"), "{listing}");
    assert!(
        listing.contains(&format!(
            "error: {} (key `temperature`): expected a number; write `temperature: 0.7`",
            file.display()
        )),
        "{listing}"
    );
    let orphan = w.paths.agents_dir().join("orphan/config.yaml");
    assert!(
        listing.contains(&format!(
            "error: {}: delegate `ghost` of agent `orphan` does not exist; create \
             agents/ghost/config.yaml or remove it from `delegates`",
            orphan.display()
        )),
        "{listing}"
    );
    w.repl.shutdown();
}

#[test]
fn a_missing_variable_without_a_terminal_says_how_to_pass_it() {
    let mut w = world(1);
    w.write_agent(
        "planner",
        "instructions: Plan {{project}}.\nvariables:\n  - name: project\n",
        None,
    );
    let error = w
        .repl
        .try_start_agent("planner", &BTreeMap::new())
        .unwrap_err();
    let file = w.paths.agents_dir().join("planner/config.yaml");
    assert_eq!(
        error,
        format!(
            "agent `planner` needs a value for `project` (no default in {}); pass --var \
             project=VALUE or give each a `default:` under `variables:`",
            file.display()
        )
    );
    let values = BTreeMap::from([("project".to_owned(), "mars".to_owned())]);
    w.repl.try_start_agent("planner", &values).unwrap();
    assert_eq!(system_prompt(&w.request()).as_deref(), Some("Plan mars."));
    w.repl.shutdown();
}
#[test]
fn the_agent_layer_always_keeps_its_own_servers() {
    let file = Path::new("/cfg/agents/a/config.yaml");
    let mut agent = parse_agent("a", file, "instructions: x\nenabled_mcp_servers: [fs]\n")
        .expect("agent parses");
    let env = coyote_config::MapEnv::new();
    let own = coyote_config::parse_mcp_json(
        r#"{"mcpServers": {"kb": {"command": "true"}}}"#,
        Path::new("/cfg/agents/a/mcp.json"),
        &coyote_config::McpFileContext::new(&env, "/cfg/agents/a"),
    );
    agent.mcp = own.expect("mcp.json parses");
    let all = Selection::All;
    let only_web = Selection::Only(vec!["web".into()]);
    assert_eq!(
        agent_layer(&agent, &only_web),
        Some(ServerList::Names(vec!["fs".into(), "kb".into()]))
    );
    agent.enabled_mcp_servers = None;
    assert_eq!(agent_layer(&agent, &all), None);
    assert_eq!(
        agent_layer(&agent, &only_web),
        Some(ServerList::Names(vec!["web".into(), "kb".into()]))
    );
    agent.enabled_mcp_servers = Some(ServerList::Names(vec![]));
    assert_eq!(
        agent_layer(&agent, &all),
        Some(ServerList::Names(vec!["kb".into()]))
    );
    agent.enabled_mcp_servers = Some(ServerList::All);
    assert_eq!(agent_layer(&agent, &only_web), Some(ServerList::All));
}

#[test]
fn a_saved_session_brings_its_agent_back() {
    let mut w = world(3);
    let kb = kb_server(w._dir.path());
    w.write_agent(
        "helper",
        "instructions: You help.\nenabled_mcp_servers: []\n",
        Some(serde_json::json!({"mcpServers": {"kb": kb.mcp_json_entry()}})),
    );
    let kb_functions = strs(&["mcp_describe_kb", "mcp_read_kb", "mcp_search_kb"]);
    w.line(".agent helper");
    assert_eq!(
        sorted(declared_tools(LlmWire::OpenAi, &w.request())),
        kb_functions
    );
    w.line(".session save work");
    w.line(".agent");
    assert_eq!(w.repl.agents.active_name(), None);

    w.line(".session load work");
    assert_eq!(w.repl.agents.active_name(), Some("helper"));
    let request = w.request();
    assert_eq!(
        sorted(declared_tools(LlmWire::OpenAi, &request)),
        kb_functions
    );
    assert_eq!(system_prompt(&request).as_deref(), Some("You help."));
    // The saved conversation came back: the first exchange is in this request.
    let users = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .count();
    assert_eq!(users, 2);
    w.repl.shutdown();
}
