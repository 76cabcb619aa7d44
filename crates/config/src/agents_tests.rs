use std::fs;

use super::*;
use crate::env::MapEnv;

fn agent_dir(root: &Path, name: &str, config: &str) -> PathBuf {
    let dir = root.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(AGENT_FILE), config).unwrap();
    dir
}

#[test]
fn loads_config_and_own_mcp_json() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = agent_dir(
        tmp.path(),
        "ops",
        "model: openai:gpt-4o\ninstructions: 'You run {{project}} in {{env}}.'\nenabled_mcp_servers: [git]\ndelegates: [docs]\nvariables:\n  - name: project\n    description: Which project\n  - name: env\n    default: staging\n",
    );
    fs::write(
        dir.join(AGENT_MCP_FILE),
        r#"{"mcpServers": {"kb": {"command": "kb-server", "args": ["--token", "${KB_TOKEN}"]}}}"#,
    )
    .unwrap();
    let env = MapEnv::new().with("KB_TOKEN", "t0k");
    let agent = load_agent(tmp.path(), "ops", &env).unwrap();
    assert_eq!(agent.model.as_deref(), Some("openai:gpt-4o"));
    assert_eq!(
        agent.enabled_mcp_servers,
        Some(ServerList::Names(vec!["git".into()]))
    );
    assert_eq!(agent.delegates, vec!["docs".to_owned()]);
    assert_eq!(
        agent.variables,
        vec![
            AgentVariable {
                name: "project".into(),
                description: Some("Which project".into()),
                default: None
            },
            AgentVariable {
                name: "env".into(),
                description: None,
                default: Some("staging".into())
            },
        ]
    );
    let own: Vec<&str> = agent
        .own_servers()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(own, vec!["kb"]);
    assert_eq!(agent.own_servers()[0].source, dir.join(AGENT_MCP_FILE));
    assert_eq!(
        shadowed_app_servers(&agent, &["kb".into(), "fs".into()]),
        vec!["kb".to_owned()]
    );

    let none = BTreeMap::new();
    let missing: Vec<&str> = agent
        .missing_variables(&none)
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(missing, vec!["project"]);
    assert_eq!(
        agent.instructions_with(&none).unwrap_err().to_string(),
        "agent `ops` needs a value for project; pass them or let coyote ask"
    );
    let given = BTreeMap::from([("project".to_owned(), "coyote".to_owned())]);
    assert_eq!(
        agent.instructions_with(&given).unwrap(),
        "You run coyote in staging."
    );
}

#[test]
fn variables_as_a_map_of_defaults() {
    let agent = parse_agent(
        "a",
        Path::new("a/config.yaml"),
        "instructions: 'hi {{who}}'\nvariables: {who: world}",
    )
    .unwrap();
    assert_eq!(
        agent.instructions_with(&BTreeMap::new()).unwrap(),
        "hi world"
    );
}

#[test]
fn malformed_agents_name_file_key_and_fix() {
    let file = Path::new("/cfg/agents/a/config.yaml");
    let cases = [
        (
            "delegates: {x: 1}",
            "/cfg/agents/a/config.yaml (key `delegates`): expected a list; write `delegates: [a, b]`",
        ),
        (
            "delegates: [a]",
            "/cfg/agents/a/config.yaml (key `delegates[0]`): an agent cannot delegate to itself; remove it from `delegates`",
        ),
        (
            "instructions: 'x {{y}}'",
            "/cfg/agents/a/config.yaml (key `instructions`): `{{y}}` is not a declared variable; declare it under `variables:` (`- name: y`) or fix the spelling",
        ),
        (
            "variables: [3]",
            "/cfg/agents/a/config.yaml (key `variables[0]`): expected `name: …`; write `variables:` then `- name: project` / `  default: demo`",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(
            parse_agent("a", file, text).unwrap_err().to_string(),
            message
        );
    }
}

#[test]
fn a_bad_mcp_json_is_reported_and_others_still_list() {
    let tmp = tempfile::tempdir().unwrap();
    agent_dir(tmp.path(), "good", "instructions: ok");
    let bad = agent_dir(tmp.path(), "bad", "instructions: ok");
    fs::write(bad.join(AGENT_MCP_FILE), "{ not json").unwrap();
    fs::create_dir_all(tmp.path().join("empty")).unwrap();
    let listing = list_agents(tmp.path(), &MapEnv::new());
    let names: Vec<&str> = listing.items.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["good"]);
    assert_eq!(listing.errors.len(), 2);
    assert!(
        matches!(&listing.errors[0], DefinitionError::McpJson { agent_file, .. } if agent_file == &bad.join(AGENT_FILE))
    );
    assert!(
        matches!(&listing.errors[1], DefinitionError::NotFound { name, .. } if name == "empty")
    );
}

#[test]
fn delegate_cycles_and_unknown_delegates() {
    let mk = |name: &str, delegates: &[&str]| {
        let text = format!("delegates: [{}]", delegates.join(", "));
        parse_agent(name, &PathBuf::from(format!("{name}/config.yaml")), &text).unwrap()
    };
    let agents = vec![
        mk("a", &["b"]),
        mk("b", &["c", "ghost"]),
        mk("c", &["a"]),
        mk("d", &["b"]),
    ];
    assert_eq!(
        check_delegates(&agents),
        vec![
            DelegateProblem::Unknown {
                agent: "b".into(),
                delegate: "ghost".into(),
                file: "b/config.yaml".into()
            },
            DelegateProblem::Cycle {
                cycle: vec!["a".into(), "b".into(), "c".into(), "a".into()],
                file: "a/config.yaml".into()
            },
        ]
    );
    assert!(check_delegates(&[mk("x", &["y"]), mk("y", &[])]).is_empty());
}

/// Every `<!-- file: PATH -->` example of docs/agents.md, written under a temp config dir.
fn write_doc_examples(root: &Path) -> Vec<String> {
    let doc = include_str!("../../../docs/agents.md");
    let mut written = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(path) = line
            .strip_prefix("<!-- file: ")
            .and_then(|l| l.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "{path}: no code block after the marker"
        );
        let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        let target = root.join(path);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(&target, body.join("\n") + "\n").unwrap();
        written.push(path.to_owned());
    }
    written
}

#[test]
fn docs_examples_load() {
    use crate::selection::{Selection, SelectionLayers, resolve_selection};
    use crate::sessions_store::{SessionFile, SessionStore};

    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    assert_eq!(
        write_doc_examples(root),
        vec![
            "roles/reviewer.md",
            "agents/ops/config.yaml",
            "agents/docs/config.yaml",
            "agents/docs/mcp.json",
            "macros/review.yaml",
            "sessions/triage.yaml",
            "config.yaml",
        ]
    );
    let env = MapEnv::new();

    let roles = crate::roles::list_roles(&root.join("roles"));
    assert!(roles.errors.is_empty(), "{:?}", roles.errors);
    let reviewer = &roles.items[0];
    assert!(reviewer.warnings.is_empty(), "{:?}", reviewer.warnings);
    assert_eq!(reviewer.temperature, Some(0.2));

    let agents = list_agents(&root.join("agents"), &env);
    assert!(agents.errors.is_empty(), "{:?}", agents.errors);
    let names: Vec<&str> = agents.items.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["docs", "ops"]);
    assert!(agents.items.iter().all(|a| a.warnings.is_empty()));
    assert!(check_delegates(&agents.items).is_empty());
    let own: Vec<&str> = agents.items[0]
        .own_servers()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(own, vec!["kb"]);
    let given = BTreeMap::from([("project".to_owned(), "coyote".to_owned())]);
    assert_eq!(
        agents.items[1].instructions_with(&given).unwrap(),
        "You operate coyote in the staging environment.\nAsk before anything destructive."
    );

    let macros = crate::macros::list_macros(&root.join("macros"), &["prompt", "help"]);
    assert!(macros.errors.is_empty(), "{:?}", macros.errors);
    assert_eq!(
        macros.items[0].expand(&["src/main.rs".into()]).unwrap(),
        vec![
            ".role reviewer".to_owned(),
            "Review src/main.rs, focusing on bugs.".to_owned()
        ]
    );

    let session: SessionFile<serde_json::Value> = SessionStore::new(root.join("sessions"))
        .load("triage")
        .unwrap();
    assert_eq!(session.meta.role.as_deref(), Some("reviewer"));

    let config_text = fs::read_to_string(root.join("config.yaml")).unwrap();
    let config =
        crate::app_config::parse_app_config(&config_text, &root.join("config.yaml"), None, &env)
            .unwrap();
    let layers = SelectionLayers {
        config: config.enabled_mcp_servers.clone(),
        role: reviewer.enabled_mcp_servers.clone(),
        agent: None,
        session: None,
    };
    assert_eq!(
        resolve_selection(&layers, &config.mapping_mcp_servers).selection,
        Selection::Only(vec!["github".into(), "gitlab".into(), "fs".into()])
    );
}

#[test]
fn own_servers_inherit_the_given_defaults_unless_they_set_a_value() {
    use coyote_protocol::Exposure;
    let tmp = tempfile::tempdir().unwrap();
    let dir = agent_dir(tmp.path(), "ops", "instructions: hi\n");
    fs::write(
        dir.join(AGENT_MCP_FILE),
        r#"{"mcpServers": {"kb": {"command": "kb"}, "big": {"command": "big", "expose": "meta"}}}"#,
    )
    .unwrap();
    let defaults = ServerDefaults {
        expose: Exposure::Direct,
        ..ServerDefaults::default()
    };
    let expose = |agent: &Agent| -> Vec<(String, Exposure)> {
        agent
            .own_servers()
            .iter()
            .map(|s| (s.name.clone(), s.expose))
            .collect()
    };
    let agent = load_agent_with_defaults(tmp.path(), "ops", &MapEnv::new(), defaults).unwrap();
    assert_eq!(
        expose(&agent),
        vec![
            ("kb".to_owned(), Exposure::Direct),
            ("big".to_owned(), Exposure::Meta)
        ]
    );
    let listed = list_agents_with_defaults(tmp.path(), &MapEnv::new(), defaults);
    assert_eq!(expose(&listed.items[0]), expose(&agent));
    let plain = load_agent(tmp.path(), "ops", &MapEnv::new()).unwrap();
    assert_eq!(
        expose(&plain),
        vec![
            ("kb".to_owned(), Exposure::Auto),
            ("big".to_owned(), Exposure::Meta)
        ]
    );
}
