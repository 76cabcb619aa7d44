use coyote_config::{MapEnv, parse_agent, parse_app_config};

use super::*;

fn config(text: &str) -> AppConfig {
    parse_app_config(text, Path::new("/cfg/config.yaml"), None, &MapEnv::new())
        .expect("config parses")
}

/// `agents/NAME/` with config.yaml and, when given, its own mcp.json.
fn write_agent(dir: &Path, name: &str, yaml: &str, mcp: Option<&str>) {
    let agent_dir = dir.join(name);
    std::fs::create_dir_all(&agent_dir).unwrap();
    std::fs::write(agent_dir.join("config.yaml"), yaml).unwrap();
    if let Some(mcp) = mcp {
        std::fs::write(agent_dir.join("mcp.json"), mcp).unwrap();
    }
}

fn host(agents_dir: &Path, app_specs: Vec<McpServerSpec>) -> AgentHost {
    AgentHost::new(HostParts {
        agents_dir: agents_dir.to_owned(),
        config: config(""),
        app: McpRuntime::new(RuntimeOptions::default()),
        app_specs,
        factory_options: RuntimeOptions::default(),
        spill: SpillStore::new(agents_dir.join("spill")),
        stream: StreamMode::Whole,
    })
}

#[test]
fn a_shadowing_own_server_is_warned_once_per_agent() {
    let tmp = tempfile::tempdir().unwrap();
    let own = r#"{"mcpServers": {"kb": {"command": "true"}, "notes": {"command": "true"}}}"#;
    write_agent(tmp.path(), "helper", "instructions: hi\n", Some(own));
    write_agent(tmp.path(), "other", "instructions: hi\n", Some(own));
    let helper = load_agent(tmp.path(), "helper", &ProcessEnv).unwrap();
    let other = load_agent(tmp.path(), "other", &ProcessEnv).unwrap();
    // The app has a server named like the agent's own `kb` (not `notes`).
    let app_kb = helper.own_servers()[0].clone();
    assert_eq!(app_kb.name, "kb");
    let host = host(tmp.path(), vec![app_kb]);

    let first = host.shadow_warnings(&helper);
    assert_eq!(
        first,
        vec![format!(
            "agent `helper`: its own MCP server `kb` ({}) shadows the app server of the same \
             name inside this agent; rename one of them to use both",
            tmp.path().join("helper/mcp.json").display()
        )]
    );
    assert_eq!(host.shadow_warnings(&helper), Vec::<String>::new());
    // A clone (what delegates get) shares the warned-once set.
    assert_eq!(host.clone().shadow_warnings(&helper), Vec::<String>::new());
    // Another agent is warned for itself.
    assert_eq!(host.shadow_warnings(&other).len(), 1);
}

#[test]
fn missing_variables_name_the_variable_the_file_and_the_flag() {
    let text = "instructions: Work on {{project}} for {{team}}\nvariables:\n  - name: project\n  - name: team\n    default: core\n";
    let agent = parse_agent(
        "planner",
        Path::new("/cfg/agents/planner/config.yaml"),
        text,
    )
    .expect("agent parses");
    assert_eq!(
        instructions(&agent, &BTreeMap::new()).unwrap_err(),
        "agent `planner` needs a value for `project` (no default in \
         /cfg/agents/planner/config.yaml); pass --var project=VALUE or give each a `default:` \
         under `variables:`"
    );
    let values = parse_vars(&["project=coyote".to_owned()]).unwrap();
    assert_eq!(
        instructions(&agent, &values).unwrap(),
        "Work on coyote for core"
    );
    let extra = parse_vars(&["project=x".to_owned(), "colour=red".to_owned()]).unwrap();
    assert_eq!(
        unknown_values(&agent, &extra),
        vec![
            "agent `planner` has no variable `colour` (its variables: project, team); ignored"
                .to_owned()
        ]
    );
}

#[test]
fn var_flags_parse_and_malformed_ones_say_how() {
    assert_eq!(
        parse_vars(&["a=1".into(), "b=x=y".into(), "c=".into()]).unwrap(),
        BTreeMap::from([
            ("a".to_owned(), "1".to_owned()),
            ("b".to_owned(), "x=y".to_owned()),
            ("c".to_owned(), String::new()),
        ])
    );
    assert_eq!(
        parse_vars(&["oops".into()]).unwrap_err(),
        "--var takes NAME=VALUE (e.g. `--var project=demo`), got `oops`"
    );
}

#[test]
fn agent_selection_wins_over_config_and_expands_aliases() {
    let cfg = config("enabled_mcp_servers: [fs]\nmapping_mcp_servers:\n  git: [github, gitlab]\n");
    let available: Vec<String> = ["fs", "github", "gitlab", "web"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let file = Path::new("/cfg/agents/a/config.yaml");
    let plain = parse_agent("a", file, "instructions: x\n").unwrap();
    assert_eq!(agent_selection(&cfg, &plain, &available), vec!["fs"]);
    let git = parse_agent("a", file, "instructions: x\nenabled_mcp_servers: [git]\n").unwrap();
    assert_eq!(
        agent_selection(&cfg, &git, &available),
        vec!["github", "gitlab"]
    );
    let none = parse_agent("a", file, "instructions: x\nenabled_mcp_servers: []\n").unwrap();
    assert_eq!(
        agent_selection(&cfg, &none, &available),
        Vec::<String>::new()
    );
}

#[test]
fn one_shot_starts_what_the_agent_and_its_delegates_select() {
    let tmp = tempfile::tempdir().unwrap();
    write_agent(
        tmp.path(),
        "lead",
        "instructions: x\nenabled_mcp_servers: [fs]\ndelegates: [scout]\n",
        None,
    );
    write_agent(
        tmp.path(),
        "scout",
        "instructions: y\nenabled_mcp_servers: [web]\n",
        None,
    );
    let own = r#"{"mcpServers": {"fs": {"command": "true"}, "web": {"command": "true"}, "db": {"command": "true"}}}"#;
    write_agent(tmp.path(), "servers", "instructions: z\n", Some(own));
    let specs = load_agent(tmp.path(), "servers", &ProcessEnv)
        .unwrap()
        .own_servers()
        .to_vec();
    let chosen = app_specs_for(tmp.path(), "lead", &config(""), &specs).unwrap();
    let names: Vec<&str> = chosen.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["fs", "web"]);
    let error = app_specs_for(tmp.path(), "ghost", &config(""), &specs).unwrap_err();
    assert!(error.contains("ghost"), "{error}");
}

#[tokio::test]
async fn a_delegate_with_a_variable_without_default_says_to_give_it_one() {
    let tmp = tempfile::tempdir().unwrap();
    write_agent(
        tmp.path(),
        "planner",
        "instructions: Plan {{project}} for {{team}}.\nvariables:\n  - name: project\n  - name: team\n",
        None,
    );
    let host = host(tmp.path(), Vec::new());
    let error = host
        .launch(DelegateLaunch {
            agent: "planner",
            depth: 1,
        })
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "agent `planner` could not start: its variables `project`, `team` have no default \
             in {}, and a delegate cannot be asked for values; give each a `default:` under \
             `variables:`",
            tmp.path().join("planner/config.yaml").display()
        )
    );
    let error = host
        .launch(DelegateLaunch {
            agent: "ghost",
            depth: 1,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&error, DelegateError::Launch { agent, .. } if agent == "ghost"),
        "{error:?}"
    );
}
