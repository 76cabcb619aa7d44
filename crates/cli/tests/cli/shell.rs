//! Shell integration and consistency: completions loaded by bash, the man page
//! through groff, typos that never reach the model, tables that fit `$COLUMNS`, `coyote help`
//! topics, `--json` on `mcp add|remove|meta`, REPL-only misfits and the OPENAI_BASE_URL hint.

use std::io::Write;
use std::process::{Command, Stdio};

use coyote_test_support::fake_llm::{FakeLlm, LlmWire, Reply, user_texts};
use serde_json::json;
use unicode_width::UnicodeWidthStr;

use super::common::{Home, everything_entry, output_async};
use super::terminal::{Terminal, tmux_available};

/// A system tool the test needs; `None` (skip) unless scripts/test installed the peers.
fn tool(name: &str) -> Option<()> {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found && std::env::var_os("COYOTE_REQUIRE_PEERS").is_some() {
        panic!("{name} is missing; scripts/test installs it");
    }
    found.then_some(())
}

/// Runs `script` in bash with the completion script loaded; returns stdout.
fn bash_complete(home: &Home, completion: &str, words: &[&str]) -> String {
    let file = home.path().join("coyote.bash");
    std::fs::write(&file, completion).unwrap();
    let words_list: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; _coyote_with_servers coyote '{}' '{}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file.display(),
        words_list.join(" "),
        words.len() - 1,
        words.last().unwrap_or(&""),
        words.get(words.len().saturating_sub(2)).unwrap_or(&""),
    );
    let coyote = assert_cmd::cargo::cargo_bin("coyote");
    let path = format!(
        "{}:{}",
        coyote.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .env("PATH", path)
        .env("COYOTE_CONFIG_DIR", home.config_dir())
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn bash_loads_the_completion_script_and_completes_commands_and_server_names() {
    let home = Home::new();
    home.write_servers(json!({"alpha": {"command": "true"}, "beta": {"command": "true"}}));
    let (code, script, err) = home.run(&["completions", "bash"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        bash_complete(&home, &script, &["coyote", "mc"]).trim(),
        "mcp"
    );
    let servers = bash_complete(&home, &script, &["coyote", "mcp", "tools", ""]);
    assert_eq!(
        servers.split_whitespace().collect::<Vec<_>>(),
        ["alpha", "beta"]
    );
    let servers = bash_complete(&home, &script, &["coyote", "mcp", "call", "b"]);
    assert_eq!(servers.trim(), "beta");
    // The hidden listing behind it starts nothing and prints only the names.
    assert_eq!(home.run(&["mcp", "servers", "--names"]).1, "alpha\nbeta\n");
    // Every command whose first argument is a server (before: not login, logout, watch,
    // complete, retrieve).
    for sub in [
        "login", "logout", "watch", "complete", "retrieve", "read", "prompt",
    ] {
        let servers = bash_complete(&home, &script, &["coyote", "mcp", sub, "a"]);
        assert_eq!(servers.trim(), "alpha", "coyote mcp {sub} a<TAB>");
    }
    // `--config-dir` on the command line being completed names the config (before: ignored,
    // the environment's config was listed).
    let other = Home::new();
    other.write_servers(json!({"gamma": {"command": "true"}}));
    let dir = other.config_dir().display().to_string();
    for words in [
        vec!["coyote", "--config-dir", dir.as_str(), "mcp", "tools", ""],
        vec!["coyote", &format!("--config-dir={dir}"), "mcp", "call", "g"],
    ] {
        let servers = bash_complete(&home, &script, &words);
        assert_eq!(servers.trim(), "gamma", "{words:?}");
    }
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let (code, script, err) = home.run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(script.contains("coyote"), "{shell}");
    }
}

/// `groff -man -Tutf8 -ww -z` reads `page` without a word.
fn assert_groff_silent(page: &[u8], what: &str) {
    let mut child = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(page).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{what}");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(said, "", "groff on {what}");
}

#[test]
fn the_man_pages_pass_groff_without_a_warning() {
    if tool("groff").is_none() {
        return;
    }
    let home = Home::new();
    let (code, page, err) = home.run(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains(".TH coyote"), "{page}");
    assert_groff_silent(page.as_bytes(), "coyote man");
    let dir = home.path().join("man");
    let (code, _, err) = home.run(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    assert!(pages.contains(&"coyote-mcp-call.1".to_owned()), "{pages:?}");
    assert!(
        !pages
            .iter()
            .any(|p| p.contains("help") && p.contains("mcp")),
        "{pages:?}"
    );
    for page in pages {
        assert_groff_silent(&std::fs::read(dir.join(&page)).unwrap(), &page);
    }
}

fn write_config(home: &Home, llm: &FakeLlm) {
    let text = format!(
        "model: fake:fake-model\nclients:\n  - type: openai-compatible\n    name: fake\n    \
         api_base: {}\n    models:\n      - name: fake-model\n",
        llm.api_base()
    );
    std::fs::write(home.config_dir().join("config.yaml"), text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mistyped_command_exits_2_and_the_model_receives_nothing() {
    let llm = FakeLlm::start(LlmWire::OpenAi, vec![Reply::text("sure")]).await;
    let home = Home::new();
    write_config(&home, &llm);
    let (code, out, err) = home.run_async(&["mpc", "servers"]).await;
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("did you mean `coyote mcp servers`?"), "{err}");
    let (code, _, err) = home.run_async(&["modles"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("`coyote models`"), "{err}");
    assert_eq!(llm.requests().len(), 0);
    // After `--` it is the user's text.
    let (code, out, err) = home.run_async(&["--", "mpc", "servers"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "sure\n");
    assert_eq!(
        user_texts(LlmWire::OpenAi, &llm.requests()[0]),
        ["mpc servers"]
    );
}

#[test]
fn tables_fit_columns_and_wide_shows_everything() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    let run = |args: &[&str]| {
        let out = home
            .coyote()
            .env("COLUMNS", "80")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let table = run(&["mcp", "tools", "everything"]);
    assert!(table.lines().count() > 5, "{table}");
    for line in table.lines() {
        assert!(line.width() <= 80, "{} columns: {line}", line.width());
    }
    assert!(table.contains('…'), "{table}");
    let wide = run(&["mcp", "tools", "everything", "--wide"]);
    assert!(wide.lines().any(|l| l.width() > 80), "{wide}");
    assert!(!wide.contains('…'), "{wide}");
}

#[test]
fn help_shows_topics_pages_and_commands() {
    let home = Home::new();
    let (code, out, _) = home.run(&["help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Topics (coyote help TOPIC):"), "{out}");
    assert!(out.contains("resources-and-prompts"), "{out}");
    let (code, page, _) = home.run(&["help", "config"]);
    assert_eq!(code, 0);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let expected = std::fs::read_to_string(root.join("docs/configuration.md")).unwrap();
    assert_eq!(
        page.trim_end(),
        expected.trim_end(),
        "piped: the page as written"
    );
    let (code, out, _) = home.run(&["help", "mcp", "call"]);
    assert_eq!(code, 0);
    assert!(out.contains("--json-args"), "{out}");
    let (code, _, err) = home.run(&["help", "confgiuration"]);
    assert_eq!(code, 2);
    assert!(err.contains("Did you mean `configuration`?"), "{err}");
}

#[test]
fn add_remove_and_meta_speak_json() {
    let home = Home::new();
    home.write_servers(json!({}));
    let json = |args: &[&str]| {
        let (code, out, err) = home.run(args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let added = json(&["mcp", "add", "--json", "echo", "--", "echo", "hi"]);
    assert_eq!(added["action"], "added");
    assert_eq!(added["name"], "echo");
    assert_eq!(added["file"], json!(home.mcp_json_path()));
    let replaced = json(&[
        "mcp", "add", "--json", "--force", "echo", "--", "echo", "ho",
    ]);
    assert_eq!(replaced["action"], "replaced");
    let removed = home.json(&["mcp", "remove", "echo"]);
    assert_eq!(
        removed,
        json!({"action": "removed", "name": "echo", "file": home.mcp_json_path()})
    );
    let Some(entry) = everything_entry() else {
        return;
    };
    home.write_servers(json!({ "everything": entry }));
    let meta = home.json(&[
        "mcp",
        "meta",
        "mcp_invoke_everything",
        r#"{"tool": "echo", "arguments": {"message": "json please"}}"#,
    ]);
    assert_eq!(meta["function_name"], "mcp_invoke_everything");
    assert_eq!(meta["is_error"], false);
    assert!(
        meta["text"].as_str().unwrap().contains("json please"),
        "{meta}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_flags_without_a_message_on_a_terminal_are_usage_errors() {
    if !tmux_available() {
        return;
    }
    let home = Home::new();
    let term = Terminal::run(&home, &["--json"], &[]);
    let screen = term.wait_text("[coyote exited").await;
    assert!(screen.contains("[coyote exited 2]"), "{screen}");
    assert!(
        screen.contains("`--json` applies to a one-shot question"),
        "{screen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_base_url_without_a_model_says_what_to_pass() {
    let home = Home::new();
    let mut cmd = home.coyote();
    cmd.env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .arg("hello there");
    let (code, _, err) = output_async(cmd).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pass -m openai:MODEL"), "{err}");
}

/// Every key of coyote's own JSON is snake_case; objects passed through from the server
/// (`annotations`, schemas, structured content, `_meta`) are not looked into.
fn assert_snake_case(value: &serde_json::Value, path: &str) {
    const VERBATIM: [&str; 5] = [
        "annotations",
        "input_schema",
        "output_schema",
        "structured_content",
        "_meta",
    ];
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                let snake = key
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                assert!(snake, "{path}.{key} is not snake_case");
                if !VERBATIM.contains(&key.as_str()) {
                    assert_snake_case(inner, &format!("{path}.{key}"));
                }
            }
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                assert_snake_case(item, &format!("{path}[{i}]"));
            }
        }
        _ => {}
    }
}

#[test]
fn coyote_json_keys_are_snake_case() {
    let Some(entry) = everything_entry() else {
        return;
    };
    let home = Home::new();
    home.write_servers(json!({ "everything": entry }));
    for args in [
        &["mcp", "servers"][..],
        &["mcp", "tools", "everything"],
        &["mcp", "resources", "everything"],
        &["mcp", "templates", "everything"],
        &["mcp", "prompts", "everything"],
        &["mcp", "search", "everything", "echo"],
        &["mcp", "call", "everything", "echo", "message=hi"],
        &[
            "mcp",
            "read",
            "everything",
            "demo://resource/static/document/architecture.md",
        ],
        &["mcp", "prompt", "everything", "simple-prompt"],
        &["models"],
    ] {
        let value = home.json(args);
        assert_snake_case(&value, &args.join(" "));
    }
}

/// After `coyote man --dir DIR`, coyote says whether `man` looks there, and how to make it
/// (before: nothing, and `man coyote` found nothing unless MANPATH was set).
#[test]
fn man_says_whether_man_finds_the_pages_and_how_to_make_it() {
    if Command::new("manpath").arg("-q").output().is_err() {
        return;
    }
    let home = Home::new();
    let dir = home.path().join("nowhere/man/man1");
    let (code, _, err) = home.run(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let root = std::fs::canonicalize(home.path().join("nowhere/man")).unwrap();
    assert!(
        err.contains(&format!("export MANPATH=\"{}:\"", root.display())),
        "{err}"
    );
    // Beside a bin directory on PATH, man-db finds the pages by itself.
    let bin = home.path().join("tools/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let dir = home.path().join("tools/share/man/man1");
    let out = home
        .coyote()
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .args(["man", "--dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("`man coyote` finds them now"), "{err}");
}
