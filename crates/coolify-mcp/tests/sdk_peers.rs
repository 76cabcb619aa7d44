//! Real TypeScript SDK clients against coolify-mcp over streamable HTTP on 127.0.0.1 (the
//! scripts under `tests/js/`, the SDK pinned in the repository's package.json). Without
//! `node_modules/` the tests print a skip note, unless `COYOTE_REQUIRE_PEERS=1` (scripts/test
//! sets it after `npm ci`), where a missing peer fails.

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use coolify_fixture::Fixture;
use coolify_mcp::config::HumanPolicy;
use serde_json::Value;

use crate::common::{Setup, bearer_http, build_server};

pub(crate) const TOKEN: &str = "sdk-peer-token-0123456789abcdef012345";
/// Bounds a stuck peer; never reached by a passing run.
const PEER_DEADLINE: Duration = Duration::from_secs(120);

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `Some(script path)` when the SDK is installed; `None` (with a note) when it may be skipped.
pub(crate) fn sdk_script(name: &str, package: &str) -> Option<PathBuf> {
    let installed = repo_root().join("node_modules").join(package).exists();
    if !installed {
        let required = std::env::var("COYOTE_REQUIRE_PEERS").is_ok_and(|v| v.trim() == "1");
        assert!(!required, "{package} is not installed (run npm ci)");
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {package} is not installed (npm ci installs it)"
        );
        return None;
    }
    Some(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/js")
            .join(name),
    )
}

/// Run `node script args…`; its one JSON line of stdout.
pub(crate) async fn run_node(script: &PathBuf, args: &[&str]) -> Value {
    let out = tokio::time::timeout(
        PEER_DEADLINE,
        tokio::process::Command::new("node")
            .arg(script)
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the node peer finished")
    .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "node failed: {stderr}\n{stdout}");
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON line ({e}): {stdout}\n{stderr}"))
}

pub(crate) async fn serve(fixture: &Fixture) -> coolify_mcp::http::HttpHandle {
    let setup = Setup {
        policy: HumanPolicy::RequireHuman,
        ..Setup::default()
    };
    let server = build_server(fixture.url(), &setup);
    let spec = bearer_http(TOKEN, false);
    coolify_mcp::http::start(server, &spec).await.unwrap()
}

#[tokio::test]
async fn ts_sdk_v2_client_completes_a_guarded_delete_through_input_required() {
    let Some(script) = sdk_script("modern-delete.mjs", "@modelcontextprotocol/client") else {
        return;
    };
    let fixture = Fixture::start().await.unwrap();
    let h = serve(&fixture).await;
    let url = format!("http://{}/mcp", h.addr);
    let deletes = |f: &Fixture| f.requests().iter().filter(|r| r.method == "DELETE").count();

    let declined = run_node(&script, &[&url, TOKEN, "app-api", "decline"]).await;
    assert_eq!(declined["era"], "2026-07-28", "{declined}");
    assert_eq!(declined["asked"].as_array().unwrap().len(), 1, "{declined}");
    let text = declined["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Aborted: the user declined"), "{text}");
    assert_eq!(deletes(&fixture), 0);

    let accepted = run_node(&script, &[&url, TOKEN, "app-api"]).await;
    let asked = accepted["asked"][0].as_str().unwrap();
    assert!(
        asked.starts_with("Delete application \"api-gateway\""),
        "{asked}"
    );
    let text = accepted["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!text.starts_with("Aborted"), "{text}");
    assert_eq!(
        deletes(&fixture),
        1,
        "the delete ran once, after the answer"
    );
    h.shutdown.cancel();
}

#[tokio::test]
async fn ts_sdk_client_signs_in_with_oauth_and_calls_a_tool() {
    let Some(script) = sdk_script("oauth-sign-in.mjs", "@modelcontextprotocol/sdk") else {
        return;
    };
    let fixture = Fixture::start().await.unwrap();
    let s = crate::oauth::oauth_server(fixture.url()).await;
    let url = format!("{}/mcp", s.base);
    let out = run_node(&script, &[&url, coolify_fixture::FIXTURE_TOKEN]).await;
    assert_eq!(out["registered"], true, "{out}");
    assert_eq!(out["tools"], 45, "{out}");
    let text = out["text"].as_str().unwrap();
    assert!(text.contains("api-gateway"), "{text}");
    let lines = s.audit.lock().unwrap().clone();
    let line: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert!(
        line["client_id"]
            .as_str()
            .is_some_and(|c| c.starts_with("mcp_client_")),
        "{line}"
    );
    s.handle.shutdown.cancel();
}

/// This tree's `coyote` (built beside `coolify-mcp` by `cargo build`), if present.
pub(crate) fn coyote_binary() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_coolify-mcp")).with_file_name("coyote");
    if path.exists() {
        return Some(path);
    }
    let required = std::env::var("COYOTE_REQUIRE_PEERS").is_ok_and(|v| v.trim() == "1");
    assert!(!required, "{} is not built (cargo build)", path.display());
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {} is not built (cargo build builds it)",
        path.display()
    );
    None
}

/// The environment `coyote` runs with in these tests: only `home`'s directories, a file token
/// store and the form-filling browser stand-in.
/// A home whose mcp.json names coolify-mcp at `url` with the bearer token.
pub(crate) fn home_for(url: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for d in ["config", "state", "cache"] {
        std::fs::create_dir_all(home.path().join(d)).unwrap();
    }
    let servers = serde_json::json!({"mcpServers": {"coolify": {
        "url": url,
        "headers": {"Authorization": format!("Bearer {TOKEN}")}
    }}});
    std::fs::write(home.path().join("config/mcp.json"), servers.to_string()).unwrap();
    home
}

pub(crate) fn coyote_env(home: &std::path::Path) -> Vec<(String, std::ffi::OsString)> {
    let browser = format!(
        "node {}",
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/js/browser-form.mjs")
            .display()
    );
    [
        ("PATH", std::env::var_os("PATH").unwrap_or_default()),
        ("HOME", home.into()),
        ("COYOTE_CONFIG_DIR", home.join("config").into()),
        ("COYOTE_STATE_DIR", home.join("state").into()),
        ("COYOTE_CACHE_DIR", home.join("cache").into()),
        ("COYOTE_TOKEN_STORE", "file".into()),
        ("BROWSER", browser.into()),
        ("COOLIFY_TEST_TOKEN", coolify_fixture::FIXTURE_TOKEN.into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// `coyote ARGS` in `home` ([`coyote_env`] plus `extra`), stdin closed: (code, stdout, stderr).
pub(crate) async fn coyote_with(
    bin: &PathBuf,
    home: &std::path::Path,
    args: &[&str],
    extra: &[(&str, &str)],
) -> (i32, String, String) {
    let out = tokio::time::timeout(
        PEER_DEADLINE,
        tokio::process::Command::new(bin)
            .args(args)
            .current_dir(home)
            .env_clear()
            .envs(coyote_env(home))
            .envs(extra.iter().copied())
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("coyote finished")
    .expect("coyote runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `coyote ARGS` in `home` with nothing added to [`coyote_env`].
async fn coyote(bin: &PathBuf, home: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    coyote_with(bin, home, args, &[]).await
}

#[tokio::test]
async fn coyote_signs_in_with_oauth_and_calls_a_tool() {
    let Some(bin) = coyote_binary() else {
        return;
    };
    let fixture = Fixture::start().await.unwrap();
    let s = crate::oauth::oauth_server(fixture.url()).await;
    let home = tempfile::tempdir().unwrap();
    for d in ["config", "state", "cache"] {
        std::fs::create_dir_all(home.path().join(d)).unwrap();
    }
    let servers =
        serde_json::json!({"mcpServers": {"coolify": {"url": format!("{}/mcp", s.base)}}});
    std::fs::write(home.path().join("config/mcp.json"), servers.to_string()).unwrap();

    let (code, out, err) = coyote(&bin, home.path(), &["mcp", "login", "coolify"]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("signed in to MCP server 'coolify'"), "{err}");
    assert!(
        !err.contains(coolify_fixture::FIXTURE_TOKEN),
        "the Coolify token never reaches coyote"
    );
    let (code, out, err) = coyote(
        &bin,
        home.path(),
        &["mcp", "call", "coolify", "get_application", "uuid=app-api"],
    )
    .await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("api-gateway"), "{out}");
    let lines = s.audit.lock().unwrap().clone();
    let line: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert!(
        line["client_id"]
            .as_str()
            .is_some_and(|c| c.starts_with("mcp_client_")),
        "{line}"
    );
    s.handle.shutdown.cancel();
}
