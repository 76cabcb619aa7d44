use std::path::PathBuf;

use coyote_protocol::Exposure;
use coyote_protocol::{ApiKey, ModelConfig, ProviderConfig, ProviderKind};

use super::*;
use crate::env::MapEnv;
use crate::paths::ConfigPaths;

fn path() -> PathBuf {
    PathBuf::from("/home/u/.config/coyote/config.yaml")
}

fn parse(text: &str, env: &MapEnv) -> Result<AppConfig, AppConfigError> {
    parse_app_config(text, &path(), Some(path()), env)
}

const FULL: &str = r#"
model: local:qwen2.5:1.5b
temperature: 0.2
max_tool_rounds: 7
clients:
  - type: openai-compatible
    name: local
    api_base: http://127.0.0.1:8080/v1/
    models:
      - name: qwen2.5:1.5b
        max_tokens: 1024
        context_window: 32768
  - type: anthropic
    name: claude
    api_key_env: MY_ANTHROPIC_KEY
    models:
      - name: claude-sonnet-4-5
enabled_mcp_servers: all
mapping_mcp_servers:
  git: [github, gitlab]
  docs: "fs, web"
expose: meta
compact_threshold: 75
token_store: keyring
oauth_login_timeout: 45
theme: light
"#;

#[test]
fn full_file_validates_into_one_value() {
    let env = MapEnv::new().with("MY_ANTHROPIC_KEY", "sk-ant-secret");
    let config = parse(FULL, &env).unwrap();
    let expected = AppConfig {
        source: Some(path()),
        path: path(),
        model: Some("local:qwen2.5:1.5b".into()),
        temperature: Some(0.2),
        max_tool_rounds: 7,
        clients: vec![
            ClientEntry {
                provider: ProviderConfig::new(
                    ProviderKind::OpenAiCompatible,
                    "local",
                    "http://127.0.0.1:8080/v1",
                )
                .with_models(vec![ModelConfig {
                    name: "qwen2.5:1.5b".into(),
                    max_tokens: Some(1024),
                    context_window: Some(32768),
                    supports_images: None,
                }]),
                key: KeyStatus::NotNeeded,
                origin: ClientOrigin::ConfigFile,
            },
            ClientEntry {
                provider: ProviderConfig::new(
                    ProviderKind::Anthropic,
                    "claude",
                    coyote_protocol::ANTHROPIC_API_BASE,
                )
                .with_api_key(ApiKey::from_env("MY_ANTHROPIC_KEY", "sk-ant-secret"))
                .with_models(vec![ModelConfig::named("claude-sonnet-4-5")]),
                key: KeyStatus::Resolved {
                    variable: "MY_ANTHROPIC_KEY".into(),
                },
                origin: ClientOrigin::ConfigFile,
            },
        ],
        enabled_mcp_servers: Some(ServerList::All),
        mapping_mcp_servers: BTreeMap::from([
            (
                "docs".to_string(),
                vec!["fs".to_string(), "web".to_string()],
            ),
            (
                "git".to_string(),
                vec!["github".to_string(), "gitlab".to_string()],
            ),
        ]),
        expose: Exposure::Meta,
        compact_threshold: 75,
        sign_in: crate::SignInSettings {
            token_store: crate::TokenStoreKind::Keyring,
            login_timeout: std::time::Duration::from_secs(45),
        },
        theme: ThemeSetting::Light,
    };
    assert_eq!(config, expected);
    // The model part keeps its own colons.
    let resolved = config.resolve_model(None).unwrap();
    assert_eq!(resolved.id(), "local:qwen2.5:1.5b");
    assert_eq!(resolved.model.max_tokens, Some(1024));
    assert_eq!(resolved.origin, ModelOrigin::ConfigFile);
}

#[test]
fn no_file_and_no_env_has_no_model() {
    let config = parse_app_config("", &path(), None, &MapEnv::new()).unwrap();
    assert_eq!(config.clients, vec![]);
    assert_eq!(config.max_tool_rounds, DEFAULT_MAX_TOOL_ROUNDS);
    let err = config.resolve_model(None).unwrap_err();
    assert!(matches!(err, AppConfigError::NoModel { .. }));
    let text = err.to_string();
    assert!(text.contains("no model configured"), "{text}");
    assert!(text.contains("OPENAI_API_KEY"), "{text}");
    assert!(text.contains("-m <client>:<model>"), "{text}");
}

#[test]
fn openai_base_url_alone_says_which_model_to_pass() {
    let env = MapEnv::new().with("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1");
    let config = parse_app_config("", &path(), None, &env).unwrap();
    let err = config.resolve_model(None).unwrap_err();
    assert!(
        matches!(err, AppConfigError::ModellessClients { .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains("client \"openai\" lists no models"), "{text}");
    assert!(text.contains("pass -m openai:MODEL"), "{text}");
    assert!(text.contains("OPENAI_BASE_URL"), "{text}");
    // Naming the model works.
    let resolved = config.resolve_model(Some("openai:llama3")).unwrap();
    assert_eq!(resolved.id(), "openai:llama3");
}

#[test]
fn comments_only_file_is_empty() {
    let config = parse("# nothing yet\n", &MapEnv::new()).unwrap();
    assert_eq!(config.model, None);
    assert_eq!(config.clients, vec![]);
}

#[test]
fn zero_config_clients_come_after_configured_ones_unless_shadowed() {
    let env = MapEnv::new()
        .with("OPENAI_API_KEY", "sk-openai-secret")
        .with("OLLAMA_HOST", "127.0.0.1:11434");
    let text = "clients:\n  - type: openai-compatible\n    name: ollama\n    api_base: http://10.0.0.2:11434/v1\n";
    let config = parse(text, &env).unwrap();
    let names: Vec<(String, ClientOrigin)> = config
        .clients
        .iter()
        .map(|c| (c.provider.name.clone(), c.origin))
        .collect();
    assert_eq!(
        names,
        vec![
            ("ollama".to_string(), ClientOrigin::ConfigFile),
            ("openai".to_string(), ClientOrigin::Environment),
        ]
    );
    assert_eq!(
        config.client("openai").unwrap().key,
        KeyStatus::Resolved {
            variable: "OPENAI_API_KEY".into()
        }
    );
    // Default: first client that lists a model (the configured ollama lists none).
    let resolved = config.resolve_model(None).unwrap();
    assert_eq!(resolved.id(), "openai:gpt-4.1-mini");
    assert_eq!(resolved.origin, ModelOrigin::Default);
}

#[test]
fn model_reference_forms() {
    let env = MapEnv::new().with("MY_ANTHROPIC_KEY", "k");
    let config = parse(FULL, &env).unwrap();
    let id = |r: &str| config.resolve_model(Some(r)).map(|m| m.id());
    assert_eq!(id("claude").unwrap(), "claude:claude-sonnet-4-5");
    assert_eq!(id("claude:claude-opus-4").unwrap(), "claude:claude-opus-4");
    assert_eq!(id("claude-sonnet-4-5").unwrap(), "claude:claude-sonnet-4-5");
    assert_eq!(
        config.resolve_model(Some("local")).unwrap().origin,
        ModelOrigin::CommandLine
    );
    let err = config.resolve_model(Some("nope:x")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "-m/--model: no client named \"nope\"; clients: local, claude. Fix: use one of those \
         names, or add the client to `clients:` in /home/u/.config/coyote/config.yaml"
    );
}

#[test]
fn client_without_models_needs_an_explicit_model() {
    let text = "model: bare\nclients:\n  - type: openai-compatible\n    name: bare\n    api_base: http://127.0.0.1:1/v1\n";
    let config = parse(text, &MapEnv::new()).unwrap();
    let err = config.resolve_model(None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/home/u/.config/coyote/config.yaml: `model`: \"bare\" names no model and client \"bare\" \
         lists none. Fix: write it as bare:<model>, or list the client's models under `models:` \
         in /home/u/.config/coyote/config.yaml"
    );
    assert_eq!(
        config.resolve_model(Some("bare:m1")).unwrap().id(),
        "bare:m1"
    );
}

#[test]
fn missing_key_is_reported_when_the_client_is_used_and_never_shows_values() {
    let config = parse(FULL, &MapEnv::new()).unwrap();
    // The keyless client still works.
    assert!(config.resolve_model(Some("local")).is_ok());
    let err = config.resolve_model(Some("claude")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "client \"claude\" reads its API key from $MY_ANTHROPIC_KEY (`api_key_env` in \
         /home/u/.config/coyote/config.yaml), which is not set. Fix: export \
         MY_ANTHROPIC_KEY=<your key>, or choose another model with -m"
    );
    let with_key = parse(
        FULL,
        &MapEnv::new().with("MY_ANTHROPIC_KEY", "sk-ant-SECRET-9"),
    )
    .unwrap();
    let debug = format!("{with_key:?}");
    assert!(!debug.contains("sk-ant-SECRET-9"), "{debug}");
}

#[test]
fn the_token_store_env_var_wins_and_is_checked() {
    let path = path();
    let env = MapEnv::new().with("COYOTE_TOKEN_STORE", "file");
    let app = parse_app_config("token_store: keyring\n", &path, None, &env).unwrap();
    assert_eq!(app.sign_in.token_store, crate::TokenStoreKind::File);
    let env = MapEnv::new().with("COYOTE_TOKEN_STORE", "keyring");
    let app = parse_app_config("", &path, None, &env).unwrap();
    assert_eq!(app.sign_in.token_store, crate::TokenStoreKind::Keyring);
    assert_eq!(app.sign_in.login_timeout, crate::DEFAULT_LOGIN_TIMEOUT);
    let env = MapEnv::new().with("COYOTE_TOKEN_STORE", "vault");
    let error = parse_app_config("", &path, None, &env)
        .unwrap_err()
        .to_string();
    assert!(error.contains("\"vault\" is not a token store"), "{error}");
}

#[test]
fn invalid_values_name_the_key_and_the_fix() {
    let env = MapEnv::new();
    let cases = [
        (
            "max_tool_rounds: 0\n",
            "`max_tool_rounds`: is 0, so the model could never use a tool. Fix: use a number of rounds of at least 1 (default 25)",
        ),
        (
            "compact_threshold: 5\n",
            "`compact_threshold`: 5 is outside 10 to 100 (percent of the model's context window). Fix: use a percentage between 10 and 100 (default 80), or remove the key",
        ),
        (
            "oauth_login_timeout: 0\n",
            "`oauth_login_timeout`: is 0, so no sign-in could ever finish. Fix: use a number of seconds (default 300), or remove the key",
        ),
        (
            "temperature: 3\n",
            "`temperature`: 3 is outside 0 to 2. Fix: use a value between 0 and 2, or remove the key",
        ),
        (
            "clients:\n  - type: openai-compatible\n    name: a\n    api_base: ftp://x/v1\n",
            "`clients[0].api_base`: the URL's scheme is \"ftp\"; only http and https are supported. Fix: write the server's base URL, e.g. http://127.0.0.1:8080/v1",
        ),
        (
            "clients:\n  - type: anthropic\n    name: a\n    api_key_env: sk-live-abc\n",
            "`clients[0].api_key_env`: \"sk-live-abc\" is not an environment variable name. Fix: write the variable's name (e.g. OPENAI_API_KEY), never the key itself",
        ),
        (
            "clients:\n  - type: anthropic\n    name: a\n  - type: anthropic\n    name: a\n",
            "`clients[1].name`: \"a\" is used by an earlier client. Fix: give every client its own name",
        ),
        (
            "clients:\n  - type: anthropic\n    name: \"a:b\"\n",
            "`clients[0].name`: \"a:b\" is not a usable client name. Fix: use letters, digits, `_`, `-` and `.` only (it is typed before the colon in -m name:model)",
        ),
        (
            "mapping_mcp_servers:\n  everything: all\n",
            "`mapping_mcp_servers.everything`: an alias cannot stand for `all`. Fix: list the server names, e.g. [github, gitlab]",
        ),
    ];
    for (text, expected) in cases {
        let err = parse(text, &env).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("/home/u/.config/coyote/config.yaml: {expected}"),
            "{text}"
        );
    }
}

#[test]
fn shape_errors_carry_the_key_path_and_position() {
    let env = MapEnv::new();
    let err = parse("clients:\n  - type: openia\n    name: a\n", &env).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, AppConfigError::Invalid { .. }));
    assert!(
        text.starts_with("/home/u/.config/coyote/config.yaml: "),
        "{text}"
    );
    assert!(text.contains("clients[0].type"), "{text}");
    assert!(
        text.contains("openai-compatible, anthropic, openai, openrouter"),
        "{text}"
    );

    let err = parse("clients:\n  - type: groq\n    api_bse: x\n", &env).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, AppConfigError::Syntax { .. }));
    assert!(
        text.contains("clients[0]: unknown field `api_bse`"),
        "{text}"
    );
    assert!(text.contains("line 3"), "{text}");

    let err = parse("modle: a:b\n", &env).unwrap_err().to_string();
    assert!(err.contains("unknown field `modle`"), "{err}");
    assert!(err.contains("Fix: correct that entry"), "{err}");
}

#[test]
fn server_lists() {
    let env = MapEnv::new();
    let list = |yaml: &str| parse(yaml, &env).unwrap().enabled_mcp_servers;
    assert_eq!(list("enabled_mcp_servers: all\n"), Some(ServerList::All));
    assert_eq!(
        list("enabled_mcp_servers: [a, b]\n"),
        Some(ServerList::Names(vec!["a".into(), "b".into()]))
    );
    assert_eq!(
        list("enabled_mcp_servers: []\n"),
        Some(ServerList::Names(vec![]))
    );
    assert_eq!(list("enabled_mcp_servers:\n"), None);
}

#[test]
fn load_reads_the_file_under_the_config_dir() {
    let dir = tempfile::tempdir().unwrap();
    let paths = ConfigPaths::under(dir.path());
    let env = MapEnv::new();
    let absent = load_app_config(&paths, &env).unwrap();
    assert_eq!(absent.source, None);
    assert_eq!(absent.path, paths.config_yaml());
    std::fs::create_dir_all(paths.config_dir()).unwrap();
    std::fs::write(paths.config_yaml(), "max_tool_rounds: 3\n").unwrap();
    let present = load_app_config(&paths, &env).unwrap();
    assert_eq!(present.source, Some(paths.config_yaml()));
    assert_eq!(present.max_tool_rounds, 3);
}

#[test]
fn enabled_servers_expand_aliases_once() {
    let env = MapEnv::new();
    let names = |yaml: &str| parse(yaml, &env).unwrap().enabled_server_names();
    assert_eq!(names(""), None);
    assert_eq!(names("enabled_mcp_servers: all\n"), None);
    assert_eq!(
        names(
            "enabled_mcp_servers: [git, fs, github]\nmapping_mcp_servers:\n  git: [github, gitlab]\n"
        ),
        Some(vec![
            "github".to_string(),
            "gitlab".to_string(),
            "fs".to_string()
        ])
    );
    assert_eq!(names("enabled_mcp_servers: []\n"), Some(vec![]));
}

#[test]
fn expose_in_config_yaml_is_the_default_and_an_entry_s_own_value_wins() {
    let env = MapEnv::new();
    let app = parse("expose: meta\n", &env).unwrap();
    assert_eq!(app.server_defaults().expose, Exposure::Meta);
    let cx = crate::McpFileContext::new(&env, "/cfg").defaults(app.server_defaults());
    let file = crate::parse_mcp_json(
        r#"{"mcpServers": {
            "plain": {"command": "x"},
            "forced": {"command": "x", "expose": "direct"},
            "auto": {"command": "x", "expose": "auto"}
        }}"#,
        std::path::Path::new("/cfg/mcp.json"),
        &cx,
    )
    .unwrap();
    let exposures: Vec<(&str, Exposure)> = file
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.expose))
        .collect();
    assert_eq!(
        exposures,
        vec![
            ("plain", Exposure::Meta),
            ("forced", Exposure::Direct),
            ("auto", Exposure::Auto),
        ]
    );
    // No config.yaml key: every server defaults to auto.
    let app = parse("", &env).unwrap();
    assert_eq!(app.server_defaults().expose, Exposure::Auto);
}
