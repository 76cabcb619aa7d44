//! docs/configuration.md stays true: every ```json block loads (cleanly, or with exactly the
//! warnings / error shown in the ```text block after it), the trust warning is the real text,
//! and the `coyote mcp add` lines produce the entries the page shows.

use std::path::{Path, PathBuf};

use coyote_config::{
    ConfigWarning, JsonPath, MapEnv, McpFileContext, ServerEntry, TrustStatus, WarningKind,
    parse_env_assignment, parse_header, parse_mcp_json,
};
use serde_json::Value;

const DOC_FILE: &str = "/home/alice/.config/coyote/mcp.json";

struct Block {
    info: String,
    body: String,
    line: usize,
}

fn blocks() -> Vec<Block> {
    blocks_of("configuration.md")
}

fn blocks_of(page: &str) -> Vec<Block> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(page);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(info)) => {
                current = Some(Block {
                    info: info.trim().to_owned(),
                    body: String::new(),
                    line: i + 1,
                })
            }
            (Some(_), Some("")) => out.push(current.take().unwrap()),
            (Some(block), _) => {
                block.body.push_str(line);
                block.body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(current.is_none(), "unclosed code block");
    out
}

fn env() -> MapEnv {
    MapEnv::new()
        .with("HOME", "/home/alice")
        .with("GITHUB_TOKEN", "t")
        .with("DOCS_API_KEY", "k")
        .with("SEARCH_TOKEN", "s")
        .with("API_KEY", "a")
        .with("SLACK_CLIENT_SECRET", "c")
        .with("METRICS_SECRET", "m")
        .with("WIKI_CLIENT_SECRET", "w")
}

fn load(body: &str) -> Result<coyote_config::McpFile, coyote_config::ConfigError> {
    let env = env();
    let cx =
        McpFileContext::new(&env, "/home/alice/.config/coyote").workspace("/home/alice/src/app");
    parse_mcp_json(body, Path::new(DOC_FILE), &cx)
}

#[test]
fn every_json_example_behaves_as_documented() {
    let blocks = blocks();
    let mut checked = 0;
    for (i, block) in blocks.iter().enumerate() {
        let expected_text = || {
            let next = blocks.get(i + 1).filter(|b| b.info == "text");
            next.unwrap_or_else(|| panic!("line {}: a ```text block must follow", block.line))
                .body
                .trim_end()
                .to_owned()
        };
        match block.info.as_str() {
            "json" => {
                let file = load(&block.body).unwrap_or_else(|e| panic!("line {}: {e}", block.line));
                assert_eq!(file.warnings, vec![], "line {}", block.line);
                assert!(!file.servers.is_empty(), "line {}", block.line);
            }
            "json warns" => {
                let file = load(&block.body).unwrap_or_else(|e| panic!("line {}: {e}", block.line));
                let shown: Vec<String> = file.warnings.iter().map(ToString::to_string).collect();
                assert_eq!(shown.join("\n"), expected_text(), "line {}", block.line);
            }
            "json invalid" => {
                let err = load(&block.body).expect_err(&format!("line {} must fail", block.line));
                assert_eq!(err.to_string(), expected_text(), "line {}", block.line);
            }
            other if other.starts_with("json") => {
                panic!("line {}: unknown block kind {other}", block.line)
            }
            _ => continue,
        }
        checked += 1;
    }
    assert_eq!(
        checked, 11,
        "number of json examples in docs/configuration.md"
    );
}

#[test]
fn trust_warning_text_is_the_real_one() {
    let warning = ConfigWarning {
        file: PathBuf::from("/home/alice/src/app/.coyote/mcp.json"),
        path: JsonPath::root(),
        kind: WarningKind::ProjectNotTrusted {
            status: TrustStatus::Untrusted,
        },
    };
    let shown = warning.to_string();
    assert!(
        blocks()
            .iter()
            .any(|b| b.info == "text" && b.body.trim_end() == shown),
        "{shown}"
    );
}

/// Splits a shell line on spaces, honouring single quotes (all the doc uses).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut in_word = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            ' ' if !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// What the CLI does with `coyote mcp add NAME …` (the flags of `coyote mcp add --help`).
fn entry_from_cli(words: &[String]) -> (String, ServerEntry) {
    let name = words[3].clone();
    let mut rest = words[4..].iter();
    let mut env = Vec::new();
    let mut headers = Vec::new();
    let mut url = None;
    let mut sse = false;
    while let Some(word) = rest.next() {
        match word.as_str() {
            "-e" => env.push(parse_env_assignment(rest.next().unwrap()).unwrap()),
            "--header" => headers.push(parse_header(rest.next().unwrap()).unwrap()),
            "--url" => url = Some(rest.next().unwrap().clone()),
            "--transport" => sse = rest.next().unwrap() == "sse",
            "--" => {
                let command: Vec<&String> = rest.by_ref().collect();
                let mut entry = ServerEntry::stdio(command[0].as_str())
                    .args(command[1..].iter().map(|s| s.as_str()));
                for (k, v) in env.drain(..) {
                    entry = entry.env(k, v);
                }
                return (name, entry.into());
            }
            other => panic!("unexpected word {other}"),
        }
    }
    let mut entry = if sse {
        ServerEntry::sse(url.unwrap())
    } else {
        ServerEntry::http(url.unwrap())
    };
    for (k, v) in headers {
        entry = entry.header(k, v);
    }
    (name, entry.into())
}

#[test]
fn add_commands_write_the_documented_entries() {
    let blocks = blocks();
    let first_json: Value =
        serde_json::from_str(&blocks.iter().find(|b| b.info == "json").unwrap().body).unwrap();
    let sh = blocks.iter().find(|b| b.info == "sh").unwrap();
    let mut compared = Vec::new();
    for line in sh.body.lines().filter(|l| l.starts_with("coyote mcp add")) {
        let (name, entry) = entry_from_cli(&shell_words(line));
        if let Some(documented) = first_json["mcpServers"].get(&name) {
            assert_eq!(&entry.to_json(), documented, "{line}");
            compared.push(name);
        }
    }
    assert_eq!(compared, ["github", "docs"]);
}

/// docs/remote-servers.md: every mcp.json example loads cleanly, and the grant examples
/// configure the grants the page describes.
#[test]
fn remote_servers_examples_load_with_their_grants() {
    use coyote_protocol::{DpopMode, McpTransport, OAuthGrant, TokenSource};
    let mut grants = std::collections::BTreeMap::new();
    for block in blocks_of("remote-servers.md") {
        if block.info != "json" {
            continue;
        }
        let file = load(&block.body).unwrap_or_else(|e| panic!("line {}: {e}", block.line));
        assert_eq!(file.warnings, vec![], "line {}", block.line);
        for server in &file.servers {
            let McpTransport::Http(http) = &server.transport else {
                panic!("line {}: {} is not an HTTP server", block.line, server.name)
            };
            grants.insert(server.name.clone(), http.oauth.clone());
        }
    }
    assert_eq!(grants["payments"].dpop, DpopMode::Required);
    let OAuthGrant::Enterprise(idp) = &grants["wiki"].grant else {
        panic!("{:?}", grants["wiki"])
    };
    assert_eq!(idp.issuer, "https://login.acme.example");
    assert_eq!(
        idp.id_token,
        TokenSource::Command(vec!["acme-login".into(), "print-id-token".into()])
    );
    assert_eq!(grants["wiki"].client_secret.as_deref(), Some("w"));
    assert_eq!(
        grants["cluster-ops"].grant,
        OAuthGrant::JwtBearer(TokenSource::File(
            "/var/run/secrets/tokens/mcp-token".into()
        ))
    );
    assert_eq!(
        grants["ci-reports"].grant,
        OAuthGrant::JwtBearer(TokenSource::Env("CI_OIDC_TOKEN".into()))
    );
    assert!(matches!(
        grants["ci-deploy"].grant,
        OAuthGrant::ClientCredentials(_)
    ));
    assert_eq!(grants.len(), 7, "{:?}", grants.keys());
}
