//! Remote servers that ask for sign-in: `coyote mcp login/logout` against the
//! TypeScript SDK's OAuth demo (a real server and authorization server no one here wrote), with
//! a `$BROWSER` stand-in that follows the redirects; then the bad inputs — broken metadata, a
//! token endpoint answering 500 or garbage, a forged `state`, a server that loops on 401, a
//! browser that never comes back — each ending in a clear error while other servers work.

use std::path::Path;

use coyote_test_support::Scenario;
use coyote_test_support::fake_oauth::{CANARIES, FakeOAuthServer, Misbehaviour};
use coyote_test_support::oauth_peers::{SdkOAuthDemo, SecretServiceSession, browser_command};
use coyote_test_support::peers::{self, node_options};
use serde_json::{Value, json};

use super::common::{Home, output_async};

/// `coyote ARGS` with `$BROWSER` set (and `extra` env), as (code, stdout, stderr).
fn run_with_browser(
    home: &Home,
    browser: &str,
    extra: &[(&str, &str)],
    args: &[&str],
) -> (i32, String, String) {
    let mut cmd = home.coyote();
    cmd.env("BROWSER", browser)
        .env("NODE_OPTIONS", node_options());
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().expect("run coyote");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn run_with_browser_async(
    home: &Home,
    browser: &str,
    extra: &[(&str, &str)],
    args: &[&str],
) -> (i32, String, String) {
    let mut cmd = home.coyote();
    cmd.env("BROWSER", browser)
        .env("NODE_OPTIONS", node_options());
    for (k, v) in extra {
        cmd.env(k, v);
    }
    cmd.args(args);
    output_async(cmd).await
}

fn server_row<'a>(servers: &'a Value, name: &str) -> &'a Value {
    servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no row {name}: {servers:#}"))
}

/// Every text a test saw or coyote wrote to disk, to search for secrets.
fn everything_written(home: &Home, seen: &[String]) -> String {
    let mut all = seen.join("\n");
    all.push_str(&std::fs::read_to_string(home.mcp_json_path()).unwrap_or_default());
    let logs = home.path().join("state").join("logs");
    for entry in std::fs::read_dir(&logs).into_iter().flatten().flatten() {
        all.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
    }
    all
}

fn token_files(home: &Home) -> Vec<std::path::PathBuf> {
    let dir = home.path().join("state").join("oauth");
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect()
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The one token file (0600 in a 0700 directory) and the secrets it holds: the access token,
/// and the refresh token and registered client secret when the server issued them.
fn stored_secrets(home: &Home) -> Vec<String> {
    let files = token_files(home);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(mode(&files[0]), 0o600);
    assert_eq!(mode(files[0].parent().unwrap()), 0o700);
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    let token = &record["credentials"]["token_response"];
    let mut secrets = vec![token["access_token"].as_str().unwrap().to_owned()];
    secrets.extend(token["refresh_token"].as_str().map(str::to_owned));
    secrets.extend(
        record["client"]["client_secret"]
            .as_str()
            .map(str::to_owned),
    );
    secrets
}

#[test]
fn sign_in_to_the_sdk_oauth_demo_then_call_and_sign_out() {
    let Some(demo) = peers::require(SdkOAuthDemo::start()) else {
        return;
    };
    let Some(browser) = peers::require(browser_command()) else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({"demo": {"url": demo.url()}}));
    let opened = home.path().join("browser.log");
    let opened_env = opened.to_string_lossy().into_owned();
    let log_env = [("COYOTE_TEST_BROWSER_LOG", opened_env.as_str())];
    let mut seen = Vec::new();

    // Before login: needs-auth, with the command to run; no command but login opens a browser.
    let (code, out, err) =
        run_with_browser(&home, &browser, &log_env, &["mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    let servers: Value = serde_json::from_str(&out).unwrap();
    let row = server_row(&servers, "demo");
    assert_eq!(row["state"], "needs-auth", "{servers:#}");
    assert!(
        row["reason"]
            .as_str()
            .unwrap()
            .contains("coyote mcp login demo"),
        "{row:#}"
    );
    seen.extend([out, err]);
    let (code, out, err) = run_with_browser(
        &home,
        &browser,
        &log_env,
        &["mcp", "call", "demo", "greet", "name=x"],
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("needs sign-in: run `coyote mcp login demo`"),
        "{err}"
    );
    assert!(
        !opened.exists(),
        "a command other than login opened a browser"
    );
    seen.extend([out, err]);

    // Login (logging at debug level: tokens stay out of the log even then): the URL is printed,
    // the browser stand-in follows it, the tokens are stored.
    let debug_env = [log_env[0], ("COYOTE_LOG", "debug")];
    let (code, out, err) = run_with_browser(&home, &browser, &debug_env, &["mcp", "login", "demo"]);
    assert_eq!(code, 0, "{err}\n{}", demo.output_tail());
    assert!(err.contains("open this URL in a browser"), "{err}");
    assert!(err.contains("signed in to MCP server 'demo'"), "{err}");
    let opened_urls = std::fs::read_to_string(&opened).unwrap();
    assert_eq!(opened_urls.lines().count(), 1, "{opened_urls}");
    assert!(
        err.contains(opened_urls.trim()),
        "the opened URL is printed: {err}"
    );
    seen.extend([out, err]);

    let secrets = stored_secrets(&home);

    // Signed in: calls work, in a new process, from the stored tokens.
    let (code, out, err) = run_with_browser(
        &home,
        &browser,
        &log_env,
        &["mcp", "call", "demo", "greet", "name=x"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Hello, x"), "{out}");
    seen.extend([out, err]);
    let (code, out, err) = run_with_browser(
        &home,
        &browser,
        &log_env,
        &["mcp", "call", "demo", "greet", "name=x", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    seen.extend([out, err]);
    let (code, out, err) =
        run_with_browser(&home, &browser, &log_env, &["mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server_row(&serde_json::from_str(&out).unwrap(), "demo")["state"],
        "ready"
    );
    seen.extend([out, err]);

    // Logout: the tokens are gone and the server needs sign-in again.
    let (code, out, err) = run_with_browser(&home, &browser, &log_env, &["mcp", "logout", "demo"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("signed out"), "{err}");
    seen.extend([out, err]);
    assert!(token_files(&home).is_empty());
    let (code, out, err) =
        run_with_browser(&home, &browser, &log_env, &["mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server_row(&serde_json::from_str(&out).unwrap(), "demo")["state"],
        "needs-auth"
    );
    seen.extend([out, err]);
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap(),
        opened_urls,
        "only login opened a browser"
    );

    let written = everything_written(&home, &seen);
    for secret in &secrets {
        assert!(
            !written.contains(secret.as_str()),
            "a token or secret leaked"
        );
    }
}

/// No Rust type name (`coyote_mcp::…`, `Observed<…>`) in a user-facing message.
fn assert_sentence(err: &str) {
    coyote_test_support::user_text::assert_user_facing(err);
    assert!(!err.contains("::") || err.contains("://"), "{err}");
    for word in [
        "Observed<",
        "rmcp",
        "Transport [",
        "StreamableHttp",
        "AuthError",
    ] {
        assert!(!err.contains(word), "{word} in {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_authorization_servers_end_in_clear_errors() {
    let Some(browser) = peers::require(browser_command()) else {
        return;
    };
    let cases = [
        (
            Misbehaviour::MalformedMetadata,
            "none published usable metadata",
        ),
        (
            Misbehaviour::TokenEndpoint500,
            "answered HTTP 500 Internal Server Error",
        ),
        (
            Misbehaviour::TokenEndpointGarbage,
            "answered HTTP 200 OK with an answer that is not a JSON object",
        ),
        (
            Misbehaviour::Loops401,
            "still answers 401 Unauthorized right after a successful sign-in",
        ),
    ];
    let debug = [("COYOTE_LOG", "debug")];
    for (misbehaviour, expected) in cases {
        let fake = FakeOAuthServer::start(misbehaviour).await.unwrap();
        let home = Home::new();
        home.write_servers(json!({"bad": {"url": fake.url()}}));
        let (code, out, err) =
            run_with_browser_async(&home, &browser, &debug, &["mcp", "login", "bad"]).await;
        assert_eq!(code, 1, "{misbehaviour:?}: {err}");
        assert!(err.contains(expected), "{misbehaviour:?}: {err}");
        assert!(
            err.contains(fake.base()),
            "{misbehaviour:?} names the URL: {err}"
        );
        assert_sentence(&err);
        // The 401 loop got (and stored) a client secret and tokens: none is ever shown.
        let (code, json_out, json_err) =
            run_with_browser_async(&home, &browser, &debug, &["mcp", "servers", "--json"]).await;
        assert_eq!(code, 0, "{json_err}");
        if misbehaviour == Misbehaviour::Loops401 {
            let stored: String = token_files(&home)
                .iter()
                .map(|f| std::fs::read_to_string(f).unwrap())
                .collect();
            for canary in CANARIES {
                assert!(
                    stored.contains(canary),
                    "the secrets exist (in the 0600 token file)"
                );
            }
        }
        let written = everything_written(&home, &[out, err, json_out, json_err]);
        for canary in CANARIES {
            assert!(
                !written.contains(canary),
                "{misbehaviour:?}: {canary} leaked"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_state_or_an_abandoned_sign_in_fails_and_other_servers_work() {
    let Some(browser) = peers::require(browser_command()) else {
        return;
    };
    let fake = FakeOAuthServer::start(Misbehaviour::Loops401)
        .await
        .unwrap();
    let home = Home::new();
    let good = Scenario::builder().write_to(home.path()).unwrap();
    home.write_servers(json!({"bad": {"url": fake.url()}, "good": good.mcp_json_entry()}));
    std::fs::write(
        home.config_dir().join("config.yaml"),
        "oauth_login_timeout: 3\n",
    )
    .unwrap();

    let forge = [("COYOTE_TEST_BROWSER", "forge-state")];
    let (code, _out, err) =
        run_with_browser_async(&home, &browser, &forge, &["mcp", "login", "bad"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("carried a state that does not belong to this sign-in"),
        "{err}"
    );
    assert_sentence(&err);
    assert!(
        token_files(&home)
            .iter()
            .all(|f| !std::fs::read_to_string(f).unwrap().contains(CANARIES[1]))
    );

    // A browser that never comes back: the (shortened) login timeout ends it.
    let (code, _out, err) =
        run_with_browser_async(&home, "true", &[], &["mcp", "login", "bad"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no sign-in completed within 3 s"), "{err}");
    assert!(err.contains("oauth_login_timeout"), "{err}");
    assert_sentence(&err);

    // Meanwhile the other server works, and the 401 server is needs-auth, not failed.
    let (code, out, err) =
        run_with_browser_async(&home, "true", &[], &["mcp", "servers", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    let servers: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        server_row(&servers, "good")["state"],
        "ready",
        "{servers:#}"
    );
    assert_eq!(
        server_row(&servers, "bad")["state"],
        "needs-auth",
        "{servers:#}"
    );
}

#[test]
fn the_keyring_store_keeps_tokens_out_of_files() {
    let Some(demo) = peers::require(SdkOAuthDemo::start()) else {
        return;
    };
    let Some(browser) = peers::require(browser_command()) else {
        return;
    };
    let Some(keyring) = peers::require(SecretServiceSession::start()) else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({"demo": {"url": demo.url()}}));
    let bus = keyring.bus_address();
    let env = [
        ("COYOTE_TOKEN_STORE", "keyring"),
        ("DBUS_SESSION_BUS_ADDRESS", bus.as_str()),
    ];
    let (code, _out, err) = run_with_browser(&home, &browser, &env, &["mcp", "login", "demo"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("kept in the OS keyring"), "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert!(token_files(&home).is_empty(), "tokens went to a file");
    let (code, out, err) = run_with_browser(
        &home,
        &browser,
        &env,
        &["mcp", "call", "demo", "greet", "name=k"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Hello, k"), "{out}");
    // Without the keyring, the file store has nothing: the tokens live in the keyring only.
    let (code, _out, err) = run_with_browser(
        &home,
        &browser,
        &[],
        &["mcp", "call", "demo", "greet", "name=k"],
    );
    assert_eq!(code, 1, "{err}");
    let (code, _out, err) = run_with_browser(&home, &browser, &env, &["mcp", "logout", "demo"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("signed out"), "{err}");
    let (code, out, err) = run_with_browser(&home, &browser, &env, &["mcp", "servers", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        server_row(&serde_json::from_str(&out).unwrap(), "demo")["state"],
        "needs-auth"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_keyring_warns_once_and_falls_back_to_the_file_store() {
    let Some(browser) = peers::require(browser_command()) else {
        return;
    };
    let (one, two) = (
        FakeOAuthServer::start(Misbehaviour::Loops401)
            .await
            .unwrap(),
        FakeOAuthServer::start(Misbehaviour::Loops401)
            .await
            .unwrap(),
    );
    let home = Home::new();
    home.write_servers(json!({"one": {"url": one.url()}, "two": {"url": two.url()}}));
    let nowhere = format!("unix:path={}", home.path().join("no-bus").display());
    let env = [
        ("COYOTE_TOKEN_STORE", "keyring"),
        ("DBUS_SESSION_BUS_ADDRESS", nowhere.as_str()),
    ];
    let (code, out, err) =
        run_with_browser_async(&home, &browser, &env, &["mcp", "servers", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.matches("the OS keyring is not available").count(),
        1,
        "{err}"
    );
    let fallback = home.path().join("state").join("oauth");
    assert!(
        err.contains(&format!("kept in {} instead", fallback.display())),
        "{err}"
    );
    let servers: Value = serde_json::from_str(&out).unwrap();
    for name in ["one", "two"] {
        assert_eq!(
            server_row(&servers, name)["state"],
            "needs-auth",
            "{servers:#}"
        );
    }
}

#[test]
fn add_writes_the_oauth_client_id_and_scopes() {
    let home = Home::new();
    let (code, _out, err) = home.run(&[
        "mcp",
        "add",
        "remote",
        "--url",
        "https://mcp.example.com/mcp",
        "--client-id",
        "app-1",
        "--scope",
        "read",
        "--scope",
        "write",
    ]);
    assert_eq!(code, 0, "{err}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(home.mcp_json_path()).unwrap()).unwrap();
    assert_eq!(
        written["mcpServers"]["remote"],
        json!({"type": "http", "url": "https://mcp.example.com/mcp",
            "oauth": {"clientId": "app-1", "scopes": ["read", "write"]}})
    );
    let (code, _out, err) = home.run(&["mcp", "add", "local", "--client-id", "x", "--", "srv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--url"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_bearer_token_is_a_sentence_not_a_sign_in() {
    let fake = FakeOAuthServer::start(Misbehaviour::Loops401)
        .await
        .unwrap();
    let home = Home::new();
    home.write_servers(json!({
        "static": {"url": fake.url(), "bearerTokenEnv": "STATIC_TOKEN"}
    }));
    let mut cmd = home.coyote();
    cmd.env("STATIC_TOKEN", "static-token-CANARY")
        .args(["mcp", "servers", "--json"]);
    let (code, out, err) = output_async(cmd).await;
    assert_eq!(code, 0, "{err}");
    let servers: Value = serde_json::from_str(&out).unwrap();
    let row = server_row(&servers, "static");
    assert_eq!(row["state"], "failed", "{row:#}");
    let reason = row["reason"].as_str().unwrap();
    assert!(
        reason.contains(
            "answered 401 Unauthorized: it does not accept the credentials of this entry"
        ),
        "{reason}"
    );
    assert_sentence(reason);
    assert!(!out.contains("static-token-CANARY") && !err.contains("static-token-CANARY"));
    assert!(
        token_files(&home).is_empty(),
        "no sign-in for a bearer-token entry"
    );
}

/// `coyote mcp login` and `logout` reach a running session daemon: the daemon's server starts
/// afresh with the new credentials instead of staying needs-auth (or signed in) until the
/// daemon restarts.
#[test]
fn a_sign_in_or_out_reaches_a_running_session_daemon() {
    let Some(demo) = peers::require(SdkOAuthDemo::start()) else {
        return;
    };
    let Some(browser) = peers::require(browser_command()) else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({"demo": {"url": demo.url()}}));
    let opened = home.path().join("browser.log");
    let opened_env = opened.to_string_lossy().into_owned();
    let run_dir = home.path().join("run").to_string_lossy().into_owned();
    let env = [
        ("COYOTE_TEST_BROWSER_LOG", opened_env.as_str()),
        ("XDG_RUNTIME_DIR", run_dir.as_str()),
    ];
    let run = |args: &[&str]| run_with_browser(&home, &browser, &env, args);
    let (code, _, err) = run(&["mcp", "session", "start"]);
    assert_eq!(code, 0, "{err}");
    type Run<'a> = &'a dyn Fn(&[&str]) -> (i32, String, String);
    struct Stop<'a>(Run<'a>);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            (self.0)(&["mcp", "session", "stop"]);
        }
    }
    let _stop = Stop(&run);
    let call = ["mcp", "call", "demo", "greet", "name=x"];

    let (code, _, err) = run(&call);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("needs sign-in"), "{err}");
    let (code, _, err) = run(&["mcp", "login", "demo"]);
    assert_eq!(code, 0, "{err}\n{}", demo.output_tail());
    assert!(
        err.contains("the session daemon will start 'demo' again"),
        "{err}"
    );
    let (code, out, err) = run(&call);
    assert_eq!(
        code, 0,
        "the daemon still had the old needs-auth state: {err}"
    );
    assert!(out.contains("Hello, x"), "{out}");

    let (code, _, err) = run(&["mcp", "logout", "demo"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&call);
    assert_eq!(code, 1, "the daemon kept the old tokens: {err}");
    assert!(err.contains("needs sign-in"), "{err}");
    let (_, status, _) = run(&["mcp", "session", "status", "--json"]);
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(
        status["served"], 3,
        "the three calls were the daemon's: {status}"
    );
}

/// A `login` line of a batch makes the batch's own server start again with the new sign-in.
#[test]
fn a_login_line_of_a_batch_is_used_by_the_next_lines() {
    let Some(demo) = peers::require(SdkOAuthDemo::start()) else {
        return;
    };
    let Some(browser) = peers::require(browser_command()) else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({"demo": {"url": demo.url()}}));
    let opened = home.path().join("browser.log");
    let opened_env = opened.to_string_lossy().into_owned();
    let env = [("COYOTE_TEST_BROWSER_LOG", opened_env.as_str())];
    let script = home.path().join("login.batch");
    std::fs::write(
        &script,
        "call demo greet name=before\nlogin demo\ncall demo greet name=after\n",
    )
    .unwrap();
    let (code, out, err) = run_with_browser(
        &home,
        &browser,
        &env,
        &["mcp", "batch", script.to_str().unwrap()],
    );
    assert_eq!(code, 1, "the first call needed sign-in: {err}");
    assert!(err.contains("needs sign-in"), "{err}");
    assert!(
        out.contains("Hello, after"),
        "the call after the login line still met the old state:\n{out}\n{err}"
    );
}

/// `coyote mcp login` opens the sign-in page only under the rule for any page a server asks
/// to open: https, or http to this computer. Before, it handed `javascript:`, `file:`,
/// custom-scheme and plain-http-across-the-network URLs to the browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_never_opens_a_sign_in_page_that_is_not_https_or_loopback() {
    use std::os::unix::fs::PermissionsExt;
    for endpoint in [
        "javascript:alert(document.cookie)",
        "file:///etc/passwd",
        "data:text/html,<script>alert(1)</script>",
        "x-launcher://run?cmd=sh",
        "http://auth.example.com/authorize",
    ] {
        let fake = FakeOAuthServer::start(Misbehaviour::AuthorizationEndpoint(endpoint))
            .await
            .unwrap();
        let home = Home::new();
        home.write_servers(json!({"bad": {"url": fake.url()}}));
        let opened = home.path().join("opened");
        let browser = home.path().join("browser.sh");
        std::fs::write(
            &browser,
            format!("#!/bin/sh\necho \"$1\" >> '{}'\n", opened.display()),
        )
        .unwrap();
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (code, _out, err) = run_with_browser_async(
            &home,
            browser.to_str().unwrap(),
            &[],
            &["mcp", "login", "bad"],
        )
        .await;
        assert_eq!(code, 1, "{endpoint}: {err}");
        assert!(err.contains("is not opened"), "{endpoint}: {err}");
        assert_sentence(&err);
        assert!(
            !opened.exists(),
            "{endpoint} was handed to the browser: {:?}",
            std::fs::read_to_string(&opened)
        );
    }
}
