//! Defect 3: no secret of the configuration reaches any output channel or file. A canary is
//! planted in every secret-bearing field — URL query values and user-info (of a server that
//! answers and of one that is down), header values, a stdio server's env, the bearer-token
//! env var, the model's API key, the query of a server reached through the legacy-SSE fallback
//! (whose HTTP error names its URL) and a key given as a URL path segment — through `${VAR}`
//! references, so the canaries live only in
//! the environment. Every command that shows or logs a server then runs at debug log level, and
//! stdout, stderr and every file under the test home are searched for each canary. (OAuth
//! tokens and client secrets have their own canary test in `oauth.rs`.)

use std::path::Path;

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply};
use coyote_test_support::{Capabilities, FakeHttpServer, Scenario, ToolBehavior};
use serde_json::json;

use super::super::common::{Home, output_async};

const CANARIES: [(&str, &str); 9] = [
    ("URL_QUERY", "canary-url-query-7d1f"),
    ("URL_USER", "canary-url-userinfo-5a2c"),
    ("DOWN_QUERY", "canary-down-query-9e4b"),
    ("HEADER_VALUE", "canary-header-3b8e"),
    ("STDIO_ENV", "canary-stdio-env-2f6a"),
    ("BEARER", "canary-bearer-8c1d"),
    ("LLM_KEY", "canary-api-key-4e7f"),
    ("SSE_QUERY", "canary-sse-query-6b3e"),
    ("PATH_TOKEN", "cAnary7PathSegment4b9d2e"),
];

/// Every file under `dir` (recursively) whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_containing(&path, needle));
        } else if let Ok(bytes) = std::fs::read(&path)
            && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        {
            found.push(path.display().to_string());
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_secret_reaches_any_output_or_file() {
    let http = FakeHttpServer::start(
        Scenario::builder()
            .server_name("remote")
            .capabilities(Capabilities::none().with_tools())
            .tool("echo", ToolBehavior::Echo)
            .build(),
    )
    .await
    .unwrap();
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("done")]).await;
    let home = Home::new();
    let stdio = Scenario::builder()
        .tool("echo", ToolBehavior::Echo)
        .write_to(home.path())
        .unwrap();
    let mut stdio_entry = stdio.mcp_json_entry();
    stdio_entry["env"] = json!({ "SECRET_FOR_SERVER": "${STDIO_ENV}" });
    let remote_url = http
        .url()
        .replacen("http://", "http://someone:${URL_USER}@", 1)
        + "?token=${URL_QUERY}";
    home.write_servers(json!({
        "remote": {
            "type": "http",
            "url": remote_url,
            "headers": { "X-Api-Key": "${HEADER_VALUE}" },
        },
        "down": {
            "type": "http",
            "url": "http://127.0.0.1:1/mcp?key=${DOWN_QUERY}",
            "bearerTokenEnv": "BEARER",
        },
        "local": stdio_entry,
        // No `type`: refused as streamable HTTP, it falls back to legacy SSE, which fails
        // too — reqwest's error names the URL ("… for url (…?token=…)").
        "fallback": { "url": format!("{}/nope?token=${{SSE_QUERY}}", http.url()) },
        // A key as a path segment, as some hosted servers take it.
        "pathy": { "type": "http", "url": "http://127.0.0.1:1/${PATH_TOKEN}/mcp" },
    }));
    let config = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    api_base: {}\n    api_key_env: LLM_KEY\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), config).unwrap();

    let runs: [&[&str]; 11] = [
        &["mcp", "servers"],
        &["mcp", "servers", "--json"],
        &["mcp", "tools"],
        &["mcp", "tools", "--json"],
        &["mcp", "call", "down", "echo"],
        &["mcp", "call", "remote", "echo", "text=hi"],
        &["mcp", "call", "local", "echo", "text=hi"],
        &["mcp", "call", "fallback", "echo"],
        &["mcp", "call", "pathy", "echo"],
        &["--json", "say hi"],
        &["models"],
    ];
    let mut outputs = Vec::new();
    for args in runs {
        let mut cmd = home.coyote();
        cmd.args(args).env("COYOTE_LOG", "debug");
        for (var, value) in CANARIES {
            cmd.env(var, value);
        }
        let (code, out, err) = output_async(cmd).await;
        outputs.push((args, code, out, err));
    }
    // The servers that answer did answer: the planted values really were in use.
    let remote_call = &outputs[5];
    assert_eq!(remote_call.1, 0, "{remote_call:?}");
    for (var, canary) in CANARIES {
        for (args, _code, out, err) in &outputs {
            assert!(!out.contains(canary), "{var} in stdout of {args:?}: {out}");
            assert!(!err.contains(canary), "{var} in stderr of {args:?}: {err}");
        }
        let files = files_containing(home.path(), canary);
        assert!(files.is_empty(), "{var} written to {files:?}");
    }
}
