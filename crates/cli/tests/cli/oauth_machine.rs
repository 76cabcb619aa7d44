//! Sign-in as a company runs it, against a test authorization server that counts what it sees
//! (`coyote_test_support::test_as`): two processes refreshing the same sign-in at once send one
//! refresh; logout revokes the tokens (RFC 7009) so they stop working; a DPoP-bound token is
//! only ever presented with the DPoP scheme and a proof, and no token reaches any output;
//! enterprise-managed authorization and workload identity sign in from their mcp.json keys.

use std::path::PathBuf;

use coyote_test_support::Scenario;
use coyote_test_support::scenario::{Capabilities, ToolBehavior};
use coyote_test_support::test_as::{
    CLIENT_ID, CLIENT_SECRET, ID_JAG, ID_TOKEN, TestAsOptions, TestAuthServer, WORKLOAD_JWT,
};
use serde_json::{Value, json};

use super::common::{Home, output_async};

fn scenario() -> Scenario {
    Scenario::builder()
        .server_name("remote")
        .capabilities(Capabilities::none().with_tools())
        .tool("echo", ToolBehavior::Echo)
        .build()
}

/// A home whose server `remote` signs in with client credentials at `server`.
fn home_for(server: &TestAuthServer) -> Home {
    let home = Home::new();
    home.write_servers(json!({
        "remote": {
            "url": server.url(),
            "oauth": {
                "grant": "client_credentials",
                "clientId": CLIENT_ID,
                "clientSecret": "${REMOTE_SECRET}",
            }
        }
    }));
    home
}

async fn coyote(home: &Home, args: &[&str]) -> (i32, String, String) {
    coyote_with(home, &[], args).await
}

async fn coyote_with(home: &Home, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let mut cmd = home.coyote();
    cmd.env("REMOTE_SECRET", CLIENT_SECRET)
        .env("COYOTE_LOG", "debug")
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    output_async(cmd).await
}

fn token_file(home: &Home) -> PathBuf {
    let dir = home.path().join("state").join("oauth");
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

fn stored(home: &Home) -> Value {
    serde_json::from_str(&std::fs::read_to_string(token_file(home)).unwrap()).unwrap()
}

/// Every text the test saw plus what coyote wrote (mcp.json, logs).
fn everything_written(home: &Home, seen: &[String]) -> String {
    let mut all = seen.join("\n");
    all.push_str(&std::fs::read_to_string(home.mcp_json_path()).unwrap_or_default());
    let logs = home.path().join("state").join("logs");
    for entry in std::fs::read_dir(&logs).into_iter().flatten().flatten() {
        all.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
    }
    all
}

/// A REPL and a script (two processes) find the stored token due for a refresh at the same
/// moment: one refresh request reaches the authorization server — the other process waits for
/// the lock, re-reads the store and uses the new token — and both calls work. Without the
/// lock both refresh, and with rotating refresh tokens the second presents a spent one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_refreshing_at_once_send_one_refresh() {
    let server = TestAuthServer::start(
        scenario(),
        TestAsOptions {
            // Long enough that both processes ask before the first answer arrives.
            refresh_delay: std::time::Duration::from_millis(800),
            ..TestAsOptions::default()
        },
    )
    .await
    .unwrap();
    let home = home_for(&server);
    let (code, _, err) = coyote(&home, &["mcp", "login", "remote"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(server.refresh_requests(), 0);

    // The stored token was received long ago: due for a refresh in every process.
    let mut record = stored(&home);
    record["credentials"]["token_received_at"] = json!(1_000);
    std::fs::write(token_file(&home), serde_json::to_vec(&record).unwrap()).unwrap();

    let call = ["mcp", "call", "remote", "echo", "text=hi"];
    let (first, second) = tokio::join!(coyote(&home, &call), coyote(&home, &call));
    assert_eq!(first.0, 0, "{}", first.2);
    assert_eq!(second.0, 0, "{}", second.2);
    assert!(
        first.1.contains("hi") && second.1.contains("hi"),
        "{first:?} {second:?}"
    );
    assert_eq!(
        server.refresh_requests(),
        1,
        "one refresh for both processes; presentations: {:?}",
        server.presentations()
    );
    // The refreshed token is what both used and what is stored now.
    let token = stored(&home)["credentials"]["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(server.is_live(&token));
}

/// `coyote mcp logout` revokes the refresh and access token at the authorization server's
/// revocation endpoint, says so, and the token stops working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_revokes_the_tokens_and_they_no_longer_work() {
    let server = TestAuthServer::start(scenario(), TestAsOptions::default())
        .await
        .unwrap();
    let home = home_for(&server);
    let (code, _, err) = coyote(&home, &["mcp", "login", "remote"]).await;
    assert_eq!(code, 0, "{err}");
    let token = stored(&home)["credentials"]["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(server.is_live(&token));

    let (code, _, err) = coyote(&home, &["mcp", "logout", "remote"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("its tokens were revoked at http://127.0.0.1:") && err.contains("/revoke"),
        "{err}"
    );
    assert_eq!(server.revocations(), 2, "refresh token, then access token");
    assert!(!server.is_live(&token));
    // The token itself is refused by the server now.
    coyote_mcp::install_crypto_provider();
    let answer = reqwest::Client::new()
        .post(server.url())
        .bearer_auth(&token)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), reqwest::StatusCode::UNAUTHORIZED);
    assert!(
        !home
            .path()
            .join("state/oauth")
            .read_dir()
            .unwrap()
            .flatten()
            .any(|e| { e.path().extension().is_some_and(|x| x == "json") })
    );
}

/// With an authorization server that offers DPoP, the token is bound to coyote's key: every
/// request to the server presents it with the DPoP scheme and a proof for that request —
/// never as Bearer — across processes (the key is kept with the tokens), and no token reaches
/// stdout, stderr, `--json` output, the log (at debug level) or mcp.json.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dpop_bound_token_is_never_sent_as_bearer() {
    let server = TestAuthServer::start(
        scenario(),
        TestAsOptions {
            dpop: true,
            ..TestAsOptions::default()
        },
    )
    .await
    .unwrap();
    let home = home_for(&server);
    let mut seen = Vec::new();
    for args in [
        &["mcp", "login", "remote"][..],
        &["mcp", "call", "remote", "echo", "text=hi"],
        &["mcp", "call", "remote", "echo", "text=hi", "--json"],
        &["mcp", "servers", "--json"],
        &["mcp", "tools", "remote", "--json"],
    ] {
        let (code, out, err) = coyote(&home, args).await;
        assert_eq!(code, 0, "{args:?}: {err}");
        seen.extend([out, err]);
    }
    let record = stored(&home);
    assert_eq!(
        record["credentials"]["token_response"]["token_type"]
            .as_str()
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("dpop"),
        "the server bound the token"
    );
    assert!(
        record["dpop_key"].is_string(),
        "the key is kept with the tokens"
    );
    let presentations = server.presentations();
    assert!(
        presentations.iter().filter(|p| *p == "DPoP ok").count() >= 4,
        "{presentations:?}"
    );
    assert!(
        presentations.iter().all(|p| p == "DPoP ok" || p == "none"),
        "only DPoP (or nothing before the first grant): {presentations:?}"
    );

    let written = everything_written(&home, &seen);
    let mut canaries = server.issued_tokens();
    canaries.push(CLIENT_SECRET.to_owned());
    canaries.push(record["dpop_key"].as_str().unwrap().to_owned());
    for canary in &canaries {
        assert!(!written.contains(canary.as_str()), "{canary} leaked");
    }
}

/// Enterprise-managed authorization from its mcp.json keys: `login` reads the ID token from
/// `idTokenFile`, exchanges it at the identity provider (found from `idpIssuer`) for an
/// identity assertion, presents that at the server's authorization server, and says each
/// step; later commands use the tokens; the ID token and the assertion are shown nowhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enterprise_login_says_each_step_and_the_calls_work() {
    let server = TestAuthServer::start(scenario(), TestAsOptions::default())
        .await
        .unwrap();
    let home = Home::new();
    std::fs::write(home.config_dir().join("id-token"), format!("{ID_TOKEN}\n")).unwrap();
    home.write_servers(json!({
        "corp": {
            "url": server.url(),
            "oauth": {
                "grant": "enterprise",
                "clientId": CLIENT_ID,
                "clientSecret": "${REMOTE_SECRET}",
                "idpIssuer": server.idp_issuer(),
                "idpClientId": "coyote-cli",
                "idTokenFile": "id-token",
            }
        }
    }));
    let mut seen = Vec::new();
    let (code, out, err) = coyote(&home, &["mcp", "login", "corp"]).await;
    assert_eq!(code, 0, "{err}");
    let steps = [
        "coyote: reading your ID token for the identity provider",
        "coyote: exchanging it at",
        "coyote: presenting the identity assertion at",
        "coyote: signed in to MCP server 'corp'",
    ];
    let mut at = 0;
    for step in steps {
        let found = err[at..]
            .find(step)
            .unwrap_or_else(|| panic!("{step:?} in {err}"));
        at += found + step.len();
    }
    seen.extend([out, err]);
    let (code, out, err) = coyote(&home, &["mcp", "call", "corp", "echo", "text=hi"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hi"), "{out}");
    seen.extend([out, err]);
    let written = everything_written(&home, &seen);
    for canary in [ID_TOKEN, ID_JAG, CLIENT_SECRET] {
        assert!(!written.contains(canary), "{canary} leaked");
    }
    for token in server.issued_tokens() {
        assert!(!written.contains(token.as_str()), "{token} leaked");
    }
}

/// Workload identity needs no `login`: any command presents the platform's JWT (here from
/// `assertionEnv`) as the grant when the server asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workload_identity_signs_in_without_login() {
    let server = TestAuthServer::start(scenario(), TestAsOptions::default())
        .await
        .unwrap();
    let home = Home::new();
    home.write_servers(json!({
        "ci": {
            "url": server.url(),
            "oauth": {"grant": "jwt_bearer", "clientId": CLIENT_ID, "assertionEnv": "CI_OIDC_TOKEN"}
        }
    }));
    let env = [("CI_OIDC_TOKEN", WORKLOAD_JWT)];
    let (code, out, err) =
        coyote_with(&home, &env, &["mcp", "call", "ci", "echo", "text=hi"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hi"), "{out}");
    let seen = [out, err];
    // Without the token in the environment (and nothing stored) the command says what is
    // missing.
    let bare = Home::new();
    bare.write_raw(&std::fs::read_to_string(home.mcp_json_path()).unwrap());
    let (code, _, err) = coyote(&bare, &["mcp", "call", "ci", "echo", "text=hi"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("$CI_OIDC_TOKEN is not set"), "{err}");
    let written = everything_written(&home, &seen);
    assert!(!written.contains(WORKLOAD_JWT), "the workload token leaked");
}

/// `"dpop": true` refuses a token the authorization server did not bind (and stores nothing);
/// without it, such a token is used as the bearer token it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_true_refuses_an_unbound_token() {
    let server = TestAuthServer::start(
        scenario(),
        TestAsOptions {
            dpop: true,
            dpop_unbound: true,
            ..TestAsOptions::default()
        },
    )
    .await
    .unwrap();
    let home = Home::new();
    let entry = |dpop: Option<bool>| {
        let mut oauth = json!({
            "grant": "client_credentials",
            "clientId": CLIENT_ID,
            "clientSecret": "${REMOTE_SECRET}",
        });
        if let Some(dpop) = dpop {
            oauth["dpop"] = json!(dpop);
        }
        json!({"url": server.url(), "oauth": oauth})
    };
    home.write_servers(json!({"strict": entry(Some(true))}));
    let (code, _, err) = coyote(&home, &["mcp", "login", "strict"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.to_ascii_lowercase().contains(
            "answered with a \"bearer\" token although \"dpop\": true asks for a dpop-bound one"
        ),
        "{err}"
    );
    let record = stored(&home);
    assert!(
        record["credentials"].is_null(),
        "nothing usable stored: {record:#}"
    );
    assert!(
        server.presentations().iter().all(|p| p == "none"),
        "{:?}",
        server.presentations()
    );

    let lenient = Home::new();
    lenient.write_servers(json!({"lenient": entry(None)}));
    let (code, out, err) = coyote(&lenient, &["mcp", "call", "lenient", "echo", "text=hi"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hi"), "{out}");
    assert!(server.presentations().iter().any(|p| p == "Bearer ok"));
}
