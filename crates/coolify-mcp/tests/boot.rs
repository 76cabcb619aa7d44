//! Boot and configuration (docs/coolify-mcp.md).

use std::collections::BTreeMap;

use coolify_fixture::{FIXTURE_TOKEN, Fixture};
use coolify_mcp::config::{
    self, AccessMode, Command, HttpAuth, HumanPolicy, TokenSource, Transport,
};
use serde_json::json;

use crate::common::{Harness, Setup};

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn problems(pairs: &[(&str, &str)], args: &[&str]) -> Vec<String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    match config::parse(&env(pairs), &args) {
        Err(e) => e.problems,
        Ok(c) => panic!("expected a startup error, got {c:?}"),
    }
}

fn run(pairs: &[(&str, &str)], args: &[&str]) -> config::Config {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    match config::parse(&env(pairs), &args) {
        Ok(Command::Run(c)) => *c,
        other => panic!("expected a config, got {other:?}"),
    }
}

#[tokio::test]
async fn item_01_single_instance_initialize() {
    let h = Harness::start(Setup::default()).await.unwrap();
    let info = serde_json::to_value(h.client.peer().peer_info().unwrap()).unwrap();
    assert_eq!(info["serverInfo"]["name"], "coolify");
    assert_eq!(
        info["capabilities"],
        json!({"prompts": {"listChanged": true}, "resources": {"listChanged": true}, "tools": {"listChanged": true}})
    );
    let instructions = info["instructions"].as_str().unwrap();
    assert!(instructions.starts_with("coolify-mcp operates a self-hosted Coolify instance"));
    // Deliberate difference: the instructions name only tools this build registers.
    let tools = h.tool_names().await;
    for token in coolify_mcp::prompts::backticked_tokens(instructions) {
        if token.contains('*') {
            continue;
        }
        assert!(
            tools.iter().any(|t| t == token)
                || coolify_mcp::instructions::NOT_A_TOOL.contains(&token),
            "instructions name `{token}`, which is not registered"
        );
    }
    assert!(
        h.log().is_empty(),
        "boot and initialize make no Coolify request"
    );
}

#[test]
fn item_02_base_url_ending_api_v1_fails_without_echoing_it() {
    let url = "https://secret-host.example/api/v1";
    let p = problems(
        &[("COOLIFY_BASE_URL", url), ("COOLIFY_ACCESS_TOKEN", "tok")],
        &[],
    );
    assert_eq!(p.len(), 1);
    assert!(
        p[0].starts_with("COOLIFY_BASE_URL ends with /api/v1."),
        "{p:?}"
    );
    assert!(!p[0].contains("secret-host"));
}

#[test]
fn item_03_bad_token_and_half_cf_pair_fail_without_the_value() {
    let base = ("COOLIFY_BASE_URL", "http://127.0.0.1:1");
    let p = problems(&[base, ("COOLIFY_ACCESS_TOKEN", " lead-secret-123")], &[]);
    assert!(
        p[0].contains("leading whitespace") && !p[0].contains("lead-secret-123"),
        "{p:?}"
    );
    let p = problems(&[base, ("COOLIFY_ACCESS_TOKEN", "${COOLIFY_TOKEN}")], &[]);
    assert!(
        p[0].contains("unexpanded ${VAR} placeholder") && !p[0].contains("COOLIFY_TOKEN}"),
        "{p:?}"
    );
    let p = problems(
        &[
            base,
            ("COOLIFY_ACCESS_TOKEN", "t"),
            ("CF_ACCESS_CLIENT_ID", "cf-id-secret"),
        ],
        &[],
    );
    assert_eq!(p, vec!["CF_ACCESS_CLIENT_ID is set but CF_ACCESS_CLIENT_SECRET is not. Cloudflare Access service tokens need both, or neither.".to_string()]);
    let all = problems(
        &[
            ("COOLIFY_BASE_URL", "http://x/api/v1"),
            ("COOLIFY_ACCESS_TOKEN", " t"),
            ("CF_ACCESS_CLIENT_SECRET", "s"),
        ],
        &[],
    );
    assert_eq!(all.len(), 3, "all problems are listed in one pass: {all:?}");
}

#[test]
fn item_04_instances_validation_names_the_entry() {
    let cases: &[(&str, &str)] = &[
        ("not json", "COOLIFY_INSTANCES is not valid JSON"),
        ("{}", "COOLIFY_INSTANCES must be a JSON array"),
        (
            r#"[{"name":"-bad","url":"http://a","token":"t"}]"#,
            "COOLIFY_INSTANCES[0] needs a \"name\"",
        ),
        (
            r#"[{"name":"all","url":"http://a","token":"t"}]"#,
            "COOLIFY_INSTANCES[0]: \"all\" is reserved as the fan-out selector",
        ),
        (
            r#"[{"name":"a","url":"ftp://a","token":"t"}]"#,
            "COOLIFY_INSTANCES[0] (\"a\") needs a \"url\" starting with http:// or https://",
        ),
        (
            r#"[{"name":"a","url":"http://a","token":""}]"#,
            "COOLIFY_INSTANCES[0] (\"a\") needs a \"token\"",
        ),
        (
            r#"[{"name":"a","url":"http://a","token":"${T}"}]"#,
            "COOLIFY_INSTANCES[0] (\"a\") token contains an unexpanded ${VAR} placeholder",
        ),
        (
            r#"[{"name":"a","url":"http://a","token":"t"},{"name":"a","url":"http://b","token":"u"}]"#,
            "Instance name \"a\" is configured twice",
        ),
    ];
    for (raw, expected) in cases {
        let p = problems(&[("COOLIFY_INSTANCES", raw)], &[]);
        assert!(p.iter().any(|x| x.starts_with(expected)), "{raw}: {p:?}");
        assert!(
            !p.iter().any(|x| x.contains("\"t\"") || x.contains("\"u\"")),
            "no token echoed: {p:?}"
        );
    }
    let c = run(
        &[(
            "COOLIFY_INSTANCES",
            r#"[{"name":"prod","url":"https://p.example/","token":"t"},{"name":"staging","url":"http://s","token":"u","headers":{"X-A":"1"}}]"#,
        )],
        &[],
    );
    assert_eq!(
        c.instances
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>(),
        ["prod", "staging"]
    );
    assert_eq!(c.instances[0].url, "https://p.example");
}

#[test]
fn item_05_no_token_fails_with_the_required_message() {
    let p = problems(&[], &[]);
    assert_eq!(p, vec!["COOLIFY_ACCESS_TOKEN environment variable is required (or COOLIFY_ACCESS_TOKEN_FILE to allow rotation without a restart)".to_string()]);
}

#[test]
fn read_only_values_are_strict_and_read_only_works_on_stdio() {
    // Deliberate difference: read-only is available on stdio, and a typo is an error.
    let base = [
        ("COOLIFY_BASE_URL", "http://127.0.0.1:1"),
        ("COOLIFY_ACCESS_TOKEN", "t"),
    ];
    for v in ["1", "true"] {
        for var in ["MCP_READONLY", "COOLIFY_MCP_READONLY"] {
            let c = run(&[base[0], base[1], (var, v)], &[]);
            assert_eq!(c.access, AccessMode::ReadOnly);
            assert_eq!(c.transport, Transport::Stdio);
        }
    }
    assert_eq!(
        run(&[base[0], base[1], ("MCP_READONLY", "false")], &[]).access,
        AccessMode::ReadWrite
    );
    assert_eq!(
        run(&[base[0], base[1]], &["--read-only"]).access,
        AccessMode::ReadOnly
    );
    for bad in ["yes", "TRUE", "on", "2"] {
        let p = problems(&[base[0], base[1], ("COOLIFY_MCP_READONLY", bad)], &[]);
        assert_eq!(p.len(), 1, "{bad}");
        assert!(p[0].starts_with("COOLIFY_MCP_READONLY must be 1, true, 0 or false"));
    }
}

#[test]
fn http_mode_needs_a_token_and_no_auth_only_on_loopback() {
    // Deliberate difference: the reference serves OAuth; we require a bearer token.
    let base = [
        ("COOLIFY_BASE_URL", "http://127.0.0.1:1"),
        ("COOLIFY_ACCESS_TOKEN", "t"),
    ];
    let p = problems(&base, &["--transport", "http"]);
    assert!(
        p[0].starts_with("HTTP mode needs COOLIFY_MCP_HTTP_TOKEN"),
        "{p:?}"
    );
    let c = run(&base, &["--transport", "http", "--port", "0", "--no-auth"]);
    let Transport::Http(spec) = c.transport else {
        panic!("http")
    };
    assert_eq!(spec.bind.to_string(), "127.0.0.1:0");
    assert_eq!(spec.auth, HttpAuth::None);
    assert_eq!(
        c.human,
        HumanPolicy::RequireHuman,
        "HTTP requires a human by default, as the reference"
    );
    let p = problems(
        &base,
        &["--transport", "http", "--host", "0.0.0.0", "--no-auth"],
    );
    assert!(
        p[0].starts_with("--no-auth is only allowed on a loopback bind"),
        "{p:?}"
    );
    let long = "h-token-0123456789abcdef-0123456";
    assert_eq!(long.len(), 32);
    let c = run(
        &[base[0], base[1], ("COOLIFY_MCP_HTTP_TOKEN", long)],
        &["--transport=http"],
    );
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert!(
        c.warnings[0].starts_with("MCP_REQUEST_STATE_KEY is not set"),
        "{:?}",
        c.warnings
    );
    let c = run(
        &[
            base[0],
            base[1],
            ("COOLIFY_MCP_HTTP_TOKEN", long),
            ("MCP_REQUEST_STATE_KEY", long),
        ],
        &["--transport=http"],
    );
    let Transport::Http(spec) = c.transport else {
        panic!("http")
    };
    assert_eq!(spec.auth, HttpAuth::Bearer(long.into()));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_eq!(
        run(&base, &["--require-human"]).human,
        HumanPolicy::RequireHuman
    );
}

#[test]
fn http_token_shorter_than_32_characters_is_refused_with_the_reason() {
    let base = [
        ("COOLIFY_BASE_URL", "http://127.0.0.1:1"),
        ("COOLIFY_ACCESS_TOKEN", "t"),
    ];
    let short = "h-token-0123456789abcdef-012345";
    assert_eq!(short.len(), 31);
    let p = problems(
        &[base[0], base[1], ("COOLIFY_MCP_HTTP_TOKEN", short)],
        &["--transport", "http"],
    );
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("COOLIFY_MCP_HTTP_TOKEN is shorter than 32 characters"),
        "{p:?}"
    );
    assert!(!p[0].contains(short), "never echoes the token: {p:?}");
}

#[test]
fn non_loopback_bind_without_allowed_hosts_warns() {
    let env = [
        ("COOLIFY_BASE_URL", "http://127.0.0.1:1"),
        ("COOLIFY_ACCESS_TOKEN", "t"),
        ("COOLIFY_MCP_HTTP_TOKEN", "0123456789abcdef0123456789abcdef"),
        ("MCP_REQUEST_STATE_KEY", "0123456789abcdef0123456789abcdef"),
    ];
    let c = run(&env, &["--transport", "http", "--host", "0.0.0.0"]);
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("without COOLIFY_MCP_ALLOWED_HOSTS"));
    let mut with_hosts = env.to_vec();
    with_hosts.push(("COOLIFY_MCP_ALLOWED_HOSTS", "mcp.example.com"));
    let c = run(&with_hosts, &["--transport", "http", "--host", "0.0.0.0"]);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[tokio::test]
async fn item_06_token_file_trim_rotation_and_401_retry() {
    let fixture = Fixture::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("token");
    std::fs::write(&path, format!("{FIXTURE_TOKEN}\n")).unwrap();
    let mut spec = crate::common::spec("default", fixture.url());
    spec.token = TokenSource::File(path.clone());
    let server = coolify_mcp::CoolifyServer::new(coolify_mcp::ServerOptions {
        instances: vec![spec],
        access: AccessMode::ReadWrite,
        human: HumanPolicy::AskWhenPossible,
        elicitation: coolify_mcp::config::ElicitationSetting::Enabled,
        timing: Default::default(),
        factory: crate::common::factory(),
        audit: coolify_mcp::audit::Audit::off(),
        seal: None,
    })
    .unwrap();
    let client = server.shared().instances.default_instance().client();
    let path_servers = coolify_mcp::backend::Path::new("servers");
    client
        .get(path_servers.clone())
        .await
        .expect("trailing newline is trimmed");

    // Rotation: a new file (new mtime) is used on the next request.
    fixture.set_token("rotated-token-1");
    std::fs::write(&path, "rotated-token-1").unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    fixture.clear_requests();
    client
        .get(path_servers.clone())
        .await
        .expect("rotated token used");
    assert_eq!(fixture.requests().len(), 1);

    // A 401 forces a re-read and exactly one retry, even when the mtime did not change.
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    fixture.set_token("rotated-token-2");
    std::fs::write(&path, "rotated-token-2").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    fixture.clear_requests();
    client.get(path_servers).await.expect("retried after 401");
    let auth: Vec<_> = fixture.requests().iter().map(|r| r.auth).collect();
    assert_eq!(
        auth,
        vec![
            coolify_fixture::AuthSeen::Rejected,
            coolify_fixture::AuthSeen::Accepted
        ]
    );
}

#[test]
fn oauth_settings_come_from_mcp_public_url_and_stateless_from_its_flag() {
    let base = [
        ("COOLIFY_BASE_URL", "http://127.0.0.1:1"),
        ("COOLIFY_ACCESS_TOKEN", "t"),
        ("MCP_REQUEST_STATE_KEY", "0123456789abcdef0123456789abcdef"),
    ];
    // A bare domain is https; no static token needed; the default instance checks sign-ins.
    let mut env = base.to_vec();
    env.extend([
        ("MCP_PUBLIC_URL", "mcp.example.com/"),
        ("COOLIFY_MCP_TRUSTED_PROXIES", "10.0.0.2, ::1"),
        ("MCP_ACCESS_TOKEN_TTL", "600"),
    ]);
    let c = run(&env, &["--transport", "http", "--stateless"]);
    let Transport::Http(spec) = c.transport else {
        panic!("http")
    };
    assert_eq!(spec.auth, HttpAuth::OAuthOnly);
    assert!(spec.stateless);
    let oauth = spec.oauth.unwrap();
    assert_eq!(oauth.public_url.as_deref(), Some("https://mcp.example.com"));
    assert_eq!(oauth.coolify_url, "http://127.0.0.1:1");
    assert_eq!(oauth.access_ttl_secs, 600);
    assert_eq!(oauth.refresh_ttl_secs, 28_800);
    assert_eq!(oauth.trusted_proxies.len(), 2);
    assert_eq!(
        oauth.state_file,
        std::path::PathBuf::from("/data/oauth-state.json")
    );
    // Plain http needs the explicit opt-in; bad lists and short TTLs are start-up errors.
    let mut env = base.to_vec();
    env.extend([
        ("MCP_PUBLIC_URL", "http://mcp.example.com"),
        ("COOLIFY_MCP_TRUSTED_PROXIES", "proxy.local"),
        ("MCP_REFRESH_TOKEN_TTL", "5"),
    ]);
    let p = problems(&env, &["--transport", "http"]);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p[0].starts_with("MCP_PUBLIC_URL must be https"), "{p:?}");
    env.push(("MCP_ALLOW_INSECURE_HTTP", "true"));
    env.retain(|(k, _)| !k.starts_with("COOLIFY_MCP_TRUSTED") && !k.starts_with("MCP_REFRESH"));
    let c = run(&env, &["--transport", "http"]);
    let Transport::Http(spec) = c.transport else {
        panic!("http")
    };
    assert!(!spec.stateless);
    assert_eq!(
        spec.oauth.unwrap().public_url.as_deref(),
        Some("http://mcp.example.com")
    );
}

#[test]
fn state_url_comes_from_the_flag_or_the_env_and_is_checked_without_showing_its_password() {
    let base = [
        ("COOLIFY_BASE_URL", "http://127.0.0.1:9"),
        ("COOLIFY_ACCESS_TOKEN", FIXTURE_TOKEN),
        ("COOLIFY_MCP_HTTP_TOKEN", "0123456789abcdef0123456789abcdef"),
    ];
    let http = ["--transport", "http"];
    assert_eq!(
        run(&base, &http).state_url,
        None,
        "the state file is the default"
    );
    let flag = run(
        &base,
        &[
            "--transport",
            "http",
            "--state",
            "redis://:pw@10.0.0.5:6379/3",
        ],
    );
    assert_eq!(
        flag.state_url.as_deref(),
        Some("redis://:pw@10.0.0.5:6379/3")
    );
    let mut with_env = base.to_vec();
    with_env.push(("COOLIFY_MCP_STATE_URL", "valkey://10.0.0.5"));
    assert_eq!(
        run(&with_env, &http).state_url.as_deref(),
        Some("valkey://10.0.0.5")
    );
    // The flag wins over the variable.
    let both = run(
        &with_env,
        &["--transport", "http", "--state", "redis://10.0.0.6"],
    );
    assert_eq!(both.state_url.as_deref(), Some("redis://10.0.0.6"));
    for (url, says) in [
        ("rediss://:hunter2secret@10.0.0.5", "asks for TLS"),
        (
            "http://:hunter2secret@10.0.0.5",
            "is not a redis:// or valkey:// URL",
        ),
    ] {
        let p = problems(&base, &["--transport", "http", "--state", url]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("--state / COOLIFY_MCP_STATE_URL: "),
            "{p:?}"
        );
        assert!(p[0].contains(says) && p[0].contains("10.0.0.5"), "{p:?}");
        assert!(!p[0].contains("hunter2secret"), "{p:?}");
    }
}
