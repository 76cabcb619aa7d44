use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use coyote_protocol::{
    ApprovalPolicy, Exposure, HttpSpec, McpServerSpec, McpTransport, StdioSpec, Timeouts,
};

use super::*;
use crate::env::MapEnv;
use crate::expand::VarProblem;

const FILE: &str = "/cfg/mcp.json";

fn env() -> MapEnv {
    MapEnv::new()
        .with("GITHUB_TOKEN", "ghp_SECRET")
        .with("HOME", "/home/u")
        .with("EMPTY", "")
        .with("BAD_HEADER", "SECRET\r\nX-Evil: 1")
}

fn parse(text: &str) -> Result<McpFile, ConfigError> {
    let env = env();
    parse_mcp_json(text, Path::new(FILE), &McpFileContext::new(&env, "/cfg"))
}

fn ok(text: &str) -> McpFile {
    parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn problems(text: &str) -> Vec<Problem> {
    match parse(text) {
        Err(ConfigError::Invalid { path, problems }) => {
            assert_eq!(path, PathBuf::from(FILE));
            problems
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}

/// The single problem's (path, kind).
fn problem(text: &str) -> (String, ProblemKind) {
    let mut all = problems(text);
    assert_eq!(all.len(), 1, "{all:?}");
    let p = all.remove(0);
    (p.path.to_string(), p.kind)
}

fn stdio(name: &str, command: &str, args: &[&str]) -> McpServerSpec {
    McpServerSpec {
        name: name.into(),
        transport: McpTransport::Stdio(StdioSpec {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        }),
        timeouts: Timeouts::default(),
        approve: ApprovalPolicy::Destructive,
        expose: Exposure::Auto,
        retrieve: Default::default(),
        auto_approve: vec![],
        client: Default::default(),
        limits: Default::default(),
        start: Default::default(),
        source: FILE.into(),
    }
}

fn http(name: &str, url: &str) -> McpServerSpec {
    McpServerSpec {
        transport: McpTransport::Http(HttpSpec {
            url: url.into(),
            headers: vec![],
            bearer_token_env: None,
            oauth: Default::default(),
            fallback_to_sse: false,
        }),
        ..stdio(name, "", &[])
    }
}

fn warning_kinds(file: &McpFile) -> Vec<(String, WarningKind)> {
    file.warnings
        .iter()
        .map(|w| (w.path.to_string(), w.kind.clone()))
        .collect()
}

#[test]
fn empty_documents_have_no_servers() {
    for text in ["", "  \n", "{}", r#"{"mcpServers": {}}"#] {
        assert_eq!(ok(text), McpFile::default(), "{text:?}");
    }
}

#[test]
fn stdio_entry_with_everything() {
    let file = ok(r#"{"mcpServers": {"gh": {
        "command": "npx", "args": ["-y", "server-github", "${HOME}/x"],
        "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "PORT": 3000, "DEBUG": true},
        "cwd": "work"
    }}}"#);
    let mut want = stdio("gh", "npx", &["-y", "server-github", "/home/u/x"]);
    want.transport = McpTransport::Stdio(StdioSpec {
        command: "npx".into(),
        args: vec!["-y".into(), "server-github".into(), "/home/u/x".into()],
        env: BTreeMap::from([
            ("DEBUG".to_owned(), "true".to_owned()),
            ("GITHUB_TOKEN".to_owned(), "ghp_SECRET".to_owned()),
            ("PORT".to_owned(), "3000".to_owned()),
        ]),
        cwd: Some("/cfg/work".into()),
    });
    assert_eq!(file.servers, vec![want]);
    assert_eq!(file.warnings, vec![]);
}

#[test]
fn absolute_cwd_and_default_cwd() {
    let env = env();
    let cx = McpFileContext::new(&env, "/proj").default_cwd("/proj");
    let file = parse_mcp_json(
        r#"{"mcpServers": {"a": {"command": "x", "cwd": "/abs"}, "b": {"command": "y"}}}"#,
        Path::new(FILE),
        &cx,
    )
    .unwrap();
    let cwds: Vec<_> = file
        .servers
        .iter()
        .map(|s| match &s.transport {
            McpTransport::Stdio(s) => s.cwd.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(
        cwds,
        vec![Some(PathBuf::from("/abs")), Some(PathBuf::from("/proj"))]
    );
}

#[test]
fn type_stdio_is_accepted() {
    let file = ok(r#"{"mcpServers": {"a": {"type": "stdio", "command": "x", "args": []}}}"#);
    assert_eq!(file.servers, vec![stdio("a", "x", &[])]);
}

#[test]
fn http_spellings() {
    let cases = [
        (r#"{"url": "https://h/mcp"}"#, "http"),
        (r#"{"type": "http", "url": "https://h/mcp"}"#, "http"),
        (
            r#"{"type": "streamable-http", "url": "https://h/mcp"}"#,
            "http",
        ),
        (
            r#"{"type": "streamableHttp", "url": "https://h/mcp"}"#,
            "http",
        ),
        (
            r#"{"transportType": "streamableHttp", "url": "https://h/mcp"}"#,
            "http",
        ),
        (r#"{"serverUrl": "https://h/mcp"}"#, "http"),
        (r#"{"type": "sse", "url": "https://h/mcp"}"#, "sse"),
        (r#"{"transportType": "sse", "url": "https://h/mcp"}"#, "sse"),
    ];
    for (entry, label) in cases {
        let file = ok(&format!(r#"{{"mcpServers": {{"r": {entry}}}}}"#));
        assert_eq!(file.servers.len(), 1, "{entry}");
        assert_eq!(file.servers[0].transport.label(), label, "{entry}");
        assert_eq!(file.warnings, vec![], "{entry}");
    }
}

#[test]
fn only_an_untyped_url_falls_back_to_sse() {
    let cases = [
        (r#"{"url": "https://h/mcp"}"#, true),
        (r#"{"serverUrl": "https://h/mcp"}"#, true),
        (r#"{"type": "http", "url": "https://h/mcp"}"#, false),
        (
            r#"{"transportType": "streamableHttp", "url": "https://h/mcp"}"#,
            false,
        ),
        (r#"{"type": "sse", "url": "https://h/mcp"}"#, false),
    ];
    for (entry, fallback) in cases {
        let file = ok(&format!(r#"{{"mcpServers": {{"r": {entry}}}}}"#));
        let (McpTransport::Http(spec) | McpTransport::Sse(spec)) = &file.servers[0].transport
        else {
            panic!("{entry}");
        };
        assert_eq!(spec.fallback_to_sse, fallback, "{entry}");
    }
}

#[test]
fn http_entry_with_headers_and_bearer_env() {
    let file = ok(
        r#"{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp?u=${HOME}",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Trace": "1"},
        "bearerTokenEnv": "GITHUB_TOKEN"}}}"#,
    );
    let mut want = http("r", "https://h/mcp?u=/home/u");
    want.transport = McpTransport::Http(HttpSpec {
        url: "https://h/mcp?u=/home/u".into(),
        headers: vec![
            ("Authorization".into(), "Bearer ghp_SECRET".into()),
            ("X-Trace".into(), "1".into()),
        ],
        bearer_token_env: Some("GITHUB_TOKEN".into()),
        oauth: Default::default(),
        fallback_to_sse: false,
    });
    assert_eq!(file.servers, vec![want]);
}

#[test]
fn policies_timeouts_and_auto_approve() {
    let file = ok(r#"{"mcpServers": {"a": {"command": "x",
        "approve": "all", "expose": "direct", "startupTimeoutSec": 5, "toolTimeoutSec": 1.5,
        "autoApprove": ["read", "list"], "alwaysAllow": ["list", "write"]}}}"#);
    let s = &file.servers[0];
    assert_eq!(s.approve, ApprovalPolicy::All);
    assert_eq!(s.expose, Exposure::Direct);
    assert_eq!(
        s.timeouts,
        Timeouts {
            startup: Duration::from_secs(5),
            call: Duration::from_millis(1500)
        }
    );
    assert_eq!(s.auto_approve, vec!["read", "list", "write"]);
}

#[test]
fn cline_timeout_is_the_call_timeout_unless_tool_timeout_is_set() {
    let file = ok(r#"{"mcpServers": {"a": {"command": "x", "timeout": 60}}}"#);
    assert_eq!(file.servers[0].timeouts.call, Duration::from_secs(60));
    let file = ok(r#"{"mcpServers": {"a": {"command": "x", "timeout": 60, "toolTimeoutSec": 7}}}"#);
    assert_eq!(file.servers[0].timeouts.call, Duration::from_secs(7));
    assert_eq!(
        warning_kinds(&file),
        vec![(
            "mcpServers.a.timeout".into(),
            WarningKind::Superseded {
                key: "timeout",
                winner: "toolTimeoutSec"
            }
        )]
    );
}

#[test]
fn defaults_come_from_the_context() {
    let env = env();
    let defaults = ServerDefaults {
        timeouts: Timeouts {
            startup: Duration::from_secs(1),
            call: Duration::from_secs(2),
        },
        approve: ApprovalPolicy::Never,
        expose: Exposure::Meta,
    };
    let cx = McpFileContext::new(&env, "/cfg").defaults(defaults);
    let file = parse_mcp_json(
        r#"{"mcpServers": {"a": {"command": "x"}}}"#,
        Path::new(FILE),
        &cx,
    )
    .unwrap();
    let s = &file.servers[0];
    assert_eq!(
        (s.timeouts, s.approve, s.expose),
        (defaults.timeouts, defaults.approve, defaults.expose)
    );
}

#[test]
fn disabled_entries_are_skipped_without_validation() {
    let file = ok(r#"{"mcpServers": {
        "off": {"command": "x", "env": {"T": "${NOT_SET}"}, "disabled": true},
        "on": {"command": "y", "disabled": false}}}"#);
    assert_eq!(file.servers, vec![stdio("on", "y", &[])]);
    assert_eq!(
        file.disabled,
        vec![DisabledServer {
            name: "off".into(),
            source: FILE.into()
        }]
    );
}

#[test]
fn servers_keep_file_order() {
    let file = ok(
        r#"{"mcpServers": {"z": {"command": "1"}, "a": {"command": "2"}, "m": {"command": "3"}}}"#,
    );
    let names: Vec<_> = file.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["z", "a", "m"]);
}

#[test]
fn unknown_keys_warn_with_suggestions() {
    let file =
        ok(r#"{"servers": {}, "mcpServers": {"a": {"command": "x", "commnd": "y", "zzz": 1}}}"#);
    assert_eq!(
        warning_kinds(&file),
        vec![
            (
                "servers".into(),
                WarningKind::UnknownKey {
                    key: "servers".into(),
                    suggestion: Some("mcpServers")
                }
            ),
            (
                "mcpServers.a.commnd".into(),
                WarningKind::UnknownKey {
                    key: "commnd".into(),
                    suggestion: Some("command")
                }
            ),
            (
                "mcpServers.a.zzz".into(),
                WarningKind::UnknownKey {
                    key: "zzz".into(),
                    suggestion: None
                }
            ),
        ]
    );
    assert_eq!(
        file.warnings[1].to_string(),
        "/cfg/mcp.json: mcpServers.a.commnd: unknown key \"commnd\" (ignored); did you mean \"command\"?"
    );
}

#[test]
fn ignored_unsupported_and_unused_keys() {
    let file = ok(r#"{"mcpServers": {
        "a": {"command": "x", "description": "d", "disabledTools": ["t"], "headers": {}},
        "b": {"url": "https://h/", "env": {}, "args": []}}}"#);
    let kinds: Vec<_> = warning_kinds(&file)
        .into_iter()
        .map(|(p, k)| match k {
            WarningKind::UnsupportedKey { key, .. } => format!("{p} unsupported {key}"),
            WarningKind::UnusedKey { key, transport } => format!("{p} unused {key} {transport}"),
            other => format!("{p} {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "mcpServers.a.disabledTools unsupported disabledTools",
            "mcpServers.a.headers unused headers stdio",
            "mcpServers.b.args unused args HTTP",
            "mcpServers.b.env unused env HTTP",
        ]
    );
}

#[test]
fn duplicate_servers_warn() {
    let file = ok(r#"{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}"#);
    assert_eq!(file.servers, vec![stdio("a", "y", &[])]);
    assert_eq!(
        warning_kinds(&file),
        vec![(
            "mcpServers.a".into(),
            WarningKind::DuplicateKey { key: "a".into() }
        )]
    );
}

#[test]
fn bad_json_reports_line_and_column() {
    let err =
        parse("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}").unwrap_err();
    match &err {
        ConfigError::Syntax {
            path, line, column, ..
        } => {
            assert_eq!((path.as_path(), *line, *column), (Path::new(FILE), 3, 26));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "/cfg/mcp.json:3:26: invalid JSON: trailing comma. Fix: correct the syntax at that \
         position (mcp.json is strict JSON: no comments, no trailing commas, keys in double quotes)"
    );
}

#[test]
fn invalid_utf8_is_a_syntax_error() {
    let err = decode_utf8(Path::new(FILE), b"{\n \"a\xff\": 1}").unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Syntax {
                line: 2,
                column: 4,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn document_shape_problems() {
    assert_eq!(
        problem("[]"),
        (
            "(top level)".into(),
            ProblemKind::WrongType {
                expected: Expected::Object,
                found: "an array"
            }
        )
    );
    assert_eq!(
        problem(r#"{"mcpServers": []}"#),
        (
            "mcpServers".into(),
            ProblemKind::WrongType {
                expected: Expected::Object,
                found: "an array"
            }
        )
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": "npx x"}}"#),
        (
            "mcpServers.a".into(),
            ProblemKind::WrongType {
                expected: Expected::Object,
                found: "a string"
            }
        )
    );
}

#[test]
fn missing_transport_problems() {
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {}}}"#),
        ("mcpServers.a".into(), ProblemKind::NoTransport)
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"args": ["x"]}}}"#),
        (
            "mcpServers.a.command".into(),
            ProblemKind::MissingKey {
                key: "command",
                transport: "stdio"
            }
        )
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"type": "stdio"}}}"#),
        (
            "mcpServers.a.command".into(),
            ProblemKind::MissingKey {
                key: "command",
                transport: "stdio"
            }
        )
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"headers": {}}}}"#),
        (
            "mcpServers.a.url".into(),
            ProblemKind::MissingKey {
                key: "url",
                transport: "HTTP"
            }
        )
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"type": "sse"}}}"#),
        (
            "mcpServers.a.url".into(),
            ProblemKind::MissingKey {
                key: "url",
                transport: "SSE"
            }
        )
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"command": "x", "url": "https://h"}}}"#),
        ("mcpServers.a".into(), ProblemKind::CommandAndUrl)
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"type": "http", "command": "x", "url": "https://h"}}}"#),
        (
            "mcpServers.a.command".into(),
            ProblemKind::KeyConflictsWithType {
                key: "command",
                declared: "http".into()
            }
        )
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"type": "stdio", "command": "x", "url": "https://h"}}}"#),
        (
            "mcpServers.a.url".into(),
            ProblemKind::KeyConflictsWithType {
                key: "url",
                declared: "stdio".into()
            }
        )
    );
    assert_eq!(
        problem(
            r#"{"mcpServers": {"a": {"type": "sse", "transportType": "stdio", "url": "https://h"}}}"#
        ),
        (
            "mcpServers.a.transportType".into(),
            ProblemKind::ConflictingTypes {
                type_value: "sse".into(),
                transport_type_value: "stdio".into()
            }
        )
    );
}

#[test]
fn bad_names() {
    let long = "x".repeat(41);
    let cases = [
        ("my server", NameProblem::BadChar { ch: ' ' }),
        ("a.b", NameProblem::BadChar { ch: '.' }),
        ("é", NameProblem::BadChar { ch: 'é' }),
        ("", NameProblem::Empty),
        (long.as_str(), NameProblem::TooLong { bytes: 41 }),
    ];
    for (name, reason) in cases {
        let text = format!(r#"{{"mcpServers": {{"{name}": {{"command": "x"}}}}}}"#);
        let (_, kind) = problem(&text);
        assert_eq!(
            kind,
            ProblemKind::BadName {
                name: name.into(),
                reason
            },
            "{name}"
        );
    }
    assert_eq!(check_server_name(&"x".repeat(40)), Ok(()));
    assert_eq!(check_server_name("A-z_09"), Ok(()));
}

#[test]
fn bad_name_message_suggests_a_fix() {
    let err = parse(r#"{"mcpServers": {"my server": {"command": "x"}}}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/cfg/mcp.json: mcpServers[\"my server\"]: invalid server name \"my server\": it contains ' '. \
         Fix: rename it using only letters, digits, '_' and '-' (at most 40 bytes; the name \
         becomes part of function names), e.g. \"my_server\""
    );
}

#[test]
fn wrong_types_name_the_path() {
    let cases = [
        (
            r#"{"command": 1}"#,
            "mcpServers.a.command",
            Expected::String,
            "a number",
        ),
        (
            r#"{"command": "x", "args": "-y pkg"}"#,
            "mcpServers.a.args",
            Expected::StringArray,
            "a string",
        ),
        (
            r#"{"command": "x", "args": ["ok", 2]}"#,
            "mcpServers.a.args[1]",
            Expected::String,
            "a number",
        ),
        (
            r#"{"command": "x", "env": ["A=1"]}"#,
            "mcpServers.a.env",
            Expected::StringMap,
            "an array",
        ),
        (
            r#"{"command": "x", "env": {"A": null}}"#,
            "mcpServers.a.env.A",
            Expected::String,
            "null",
        ),
        (
            r#"{"url": "https://h", "headers": {"A": 1}}"#,
            "mcpServers.a.headers.A",
            Expected::String,
            "a number",
        ),
        (
            r#"{"command": "x", "disabled": "yes"}"#,
            "mcpServers.a.disabled",
            Expected::Bool,
            "a string",
        ),
        (
            r#"{"command": "x", "timeout": 0}"#,
            "mcpServers.a.timeout",
            Expected::Seconds,
            "a number",
        ),
        (
            r#"{"command": "x", "toolTimeoutSec": "60"}"#,
            "mcpServers.a.toolTimeoutSec",
            Expected::Seconds,
            "a string",
        ),
        (
            r#"{"command": "x", "startupTimeoutSec": -1}"#,
            "mcpServers.a.startupTimeoutSec",
            Expected::Seconds,
            "a number",
        ),
        (
            r#"{"command": "x", "autoApprove": "all"}"#,
            "mcpServers.a.autoApprove",
            Expected::StringArray,
            "a string",
        ),
    ];
    for (entry, path, expected, found) in cases {
        let text = format!(r#"{{"mcpServers": {{"a": {entry}}}}}"#);
        assert_eq!(
            problem(&text),
            (path.to_owned(), ProblemKind::WrongType { expected, found }),
            "{entry}"
        );
    }
}

#[test]
fn bad_enum_values_suggest() {
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"command": "x", "approve": "destructve"}}}"#),
        (
            "mcpServers.a.approve".into(),
            ProblemKind::UnknownValue {
                found: "destructve".into(),
                allowed: vec!["destructive", "all", "never"],
                suggestion: Some("destructive")
            }
        )
    );
    let (path, kind) = problem(r#"{"mcpServers": {"a": {"type": "websocket", "url": "wss://h"}}}"#);
    assert_eq!(path, "mcpServers.a.type");
    assert!(
        matches!(
            kind,
            ProblemKind::UnknownValue {
                suggestion: None,
                ..
            }
        ),
        "{kind:?}"
    );
}

#[test]
fn unset_variables_name_server_key_and_variable() {
    let cases = [
        (r#"{"command": "${BIN}"}"#, "mcpServers.a.command", "BIN"),
        (
            r#"{"command": "x", "args": ["--dir", "${DIR}"]}"#,
            "mcpServers.a.args[1]",
            "DIR",
        ),
        (
            r#"{"command": "x", "env": {"TOKEN": "${GH_TOKEN}"}}"#,
            "mcpServers.a.env.TOKEN",
            "GH_TOKEN",
        ),
        (
            r#"{"command": "x", "cwd": "${WORK}"}"#,
            "mcpServers.a.cwd",
            "WORK",
        ),
        (
            r#"{"url": "https://${HOST}/mcp"}"#,
            "mcpServers.a.url",
            "HOST",
        ),
        (
            r#"{"url": "https://h", "headers": {"Authorization": "Bearer ${API}"}}"#,
            "mcpServers.a.headers.Authorization",
            "API",
        ),
        (
            r#"{"url": "https://h", "bearerTokenEnv": "API"}"#,
            "mcpServers.a.bearerTokenEnv",
            "API",
        ),
    ];
    for (entry, path, var) in cases {
        let text = format!(r#"{{"mcpServers": {{"a": {entry}}}}}"#);
        let all = problems(&text);
        assert_eq!(all.len(), 1, "{entry}: {all:?}");
        assert_eq!(
            (
                all[0].path.to_string(),
                all[0].server.as_deref(),
                &all[0].kind
            ),
            (
                path.to_owned(),
                Some("a"),
                &ProblemKind::Variable(VarProblem::Unset { var: var.into() })
            ),
            "{entry}"
        );
    }
    let err =
        parse(r#"{"mcpServers": {"github": {"command": "x", "env": {"TOKEN": "${GH_TOKEN}"}}}}"#)
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/cfg/mcp.json: mcpServers.github.env.TOKEN: server \"github\": environment variable \
         GH_TOKEN is not set (used as ${GH_TOKEN}). Fix: set GH_TOKEN before starting coyote, \
         or write ${GH_TOKEN:-default} to fall back to a default"
    );
}

#[test]
fn url_problems_never_repeat_the_url() {
    let cases = [
        r#"{"url": "ftp://h/${GITHUB_TOKEN}"}"#,
        r#"{"url": "https://h:99999999/${GITHUB_TOKEN}"}"#,
        r#"{"url": "${GITHUB_TOKEN}"}"#,
    ];
    for entry in cases {
        let text = format!(r#"{{"mcpServers": {{"a": {entry}}}}}"#);
        let err = parse(&text).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(&err, ConfigError::Invalid { problems, .. } if matches!(problems[0].kind, ProblemKind::BadUrl { .. })),
            "{msg}"
        );
        assert!(!msg.contains("SECRET"), "{msg}");
    }
}

#[test]
fn header_problems() {
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"url": "https://h", "headers": {"Bad Name": "x"}}}}"#),
        (
            "mcpServers.a.headers[\"Bad Name\"]".into(),
            ProblemKind::BadHeaderName {
                name: "Bad Name".into()
            }
        )
    );
    let err =
        parse(r#"{"mcpServers": {"a": {"url": "https://h", "headers": {"X": "${BAD_HEADER}"}}}}"#)
            .unwrap_err();
    assert!(
        matches!(&err, ConfigError::Invalid { problems, .. } if problems[0].kind == ProblemKind::BadHeaderValue)
    );
    assert!(!err.to_string().contains("SECRET"), "{err}");
}

#[test]
fn other_value_problems() {
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"command": ""}}}"#),
        ("mcpServers.a.command".into(), ProblemKind::Empty)
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"command": "${EMPTY}"}}}"#),
        ("mcpServers.a.command".into(), ProblemKind::Empty)
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"command": "x", "env": {"A=B": "1"}}}}"#),
        (
            "mcpServers.a.env[\"A=B\"]".into(),
            ProblemKind::BadEnvName { name: "A=B".into() }
        )
    );
    assert_eq!(
        problem(
            r#"{"mcpServers": {"a": {"url": "https://h", "bearerTokenEnv": "${GITHUB_TOKEN}"}}}"#
        ),
        (
            "mcpServers.a.bearerTokenEnv".into(),
            ProblemKind::BadVarName {
                name: "${GITHUB_TOKEN}".into()
            }
        )
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"command": "x\u0000"}}}"#),
        ("mcpServers.a.command".into(), ProblemKind::NulByte)
    );
    assert_eq!(
        problem(r#"{"mcpServers": {"a": {"command": "${X"}}}"#),
        (
            "mcpServers.a.command".into(),
            ProblemKind::Variable(VarProblem::Unterminated)
        )
    );
}

#[test]
fn all_problems_of_a_file_are_reported_together() {
    let err = parse(r#"{"mcpServers": {"bad name": {"command": "x"}, "b": {}, "c": {"command": "x", "args": "y"}}}"#)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/cfg/mcp.json: 3 problems:\n  \
         - mcpServers[\"bad name\"]: invalid server name \"bad name\": it contains ' '. Fix: rename it using only letters, digits, '_' and '-' (at most 40 bytes; the name becomes part of function names), e.g. \"bad_name\"\n  \
         - mcpServers.b: server \"b\": has neither \"command\" nor \"url\". Fix: add \"command\" (a program that speaks MCP on stdin/stdout, e.g. \"npx\") or \"url\" (an MCP server over HTTP)\n  \
         - mcpServers.c.args: server \"c\": expected an array of strings, found a string. Fix: write it as an array of strings, e.g. [\"-y\", \"some-package\"]"
    );
}

#[test]
fn secrets_stay_out_of_debug_output() {
    let file = ok(r#"{"mcpServers": {
        "a": {"command": "x", "env": {"T": "${GITHUB_TOKEN}"}},
        "b": {"url": "https://h", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}}}"#);
    let debug = format!("{file:?}");
    assert!(!debug.contains("SECRET"), "{debug}");
    assert!(debug.contains("Authorization"), "{debug}");
}

#[test]
fn client_feature_keys_are_read_with_defaults_and_paths_resolved() {
    let file = ok(r#"{"mcpServers": {
        "a": {"command": "x", "sampling": "never", "samplingMaxTokens": 100,
              "samplingPerMinute": 0, "roots": ["~/src/a", "rel", "/abs", "${HOME}/v"],
              "instructionsMaxBytes": 0},
        "b": {"command": "y"}
    }}"#);
    let a = &file.servers[0].client;
    assert_eq!(a.sampling, coyote_protocol::SamplingMode::Never);
    assert_eq!(a.sampling_max_tokens, 100);
    assert_eq!(a.sampling_per_minute, 0);
    assert_eq!(a.instructions_max_bytes, 0);
    assert_eq!(
        a.roots,
        Some(vec![
            PathBuf::from("/home/u/src/a"),
            PathBuf::from("/cfg/rel"),
            PathBuf::from("/abs"),
            PathBuf::from("/home/u/v"),
        ])
    );
    assert_eq!(
        file.servers[1].client,
        coyote_protocol::ClientFeatureSettings::default()
    );
}

#[test]
fn client_feature_keys_of_the_wrong_shape_are_problems_with_their_path() {
    let (path, kind) =
        problem(r#"{"mcpServers": {"a": {"command": "x", "samplingMaxTokens": -1}}}"#);
    assert_eq!(path, "mcpServers.a.samplingMaxTokens");
    assert!(kind.to_string().contains("a whole number"), "{kind}");
    let (path, kind) = problem(r#"{"mcpServers": {"a": {"command": "x", "sampling": "always"}}}"#);
    assert_eq!(path, "mcpServers.a.sampling");
    assert!(kind.to_string().contains("ask"), "{kind}");
    let (path, _) = problem(r#"{"mcpServers": {"a": {"command": "x", "roots": "/tmp"}}}"#);
    assert_eq!(path, "mcpServers.a.roots");
}

#[test]
fn result_limits_and_start_policy_are_read() {
    let file = ok(r#"{"mcpServers": {"s": {
        "command": "x",
        "maxResultBytes": 20000,
        "toolLimits": {"search": {"maxResultBytes": 4000}},
        "start": "eager",
        "catalogTtlSec": 60,
        "protocol": "2026-07-28"
    }}}"#);
    let spec = &file.servers[0];
    assert_eq!(
        spec.limits,
        coyote_protocol::ResultLimits {
            max_result_bytes: Some(20_000),
            tools: [("search".to_owned(), 4_000)].into(),
        }
    );
    assert_eq!(
        spec.start,
        coyote_protocol::StartPolicy {
            mode: coyote_protocol::StartMode::Eager,
            catalog_ttl: Some(Duration::from_secs(60)),
            protocol: Some(coyote_protocol::ProtocolPin::V2026_07_28),
        }
    );
    // Defaults: no limits of its own, lazy, no TTL override.
    let spec = &ok(r#"{"mcpServers": {"s": {"command": "x"}}}"#).servers[0];
    assert_eq!(spec.limits, coyote_protocol::ResultLimits::default());
    assert_eq!(spec.start, coyote_protocol::StartPolicy::default());
    // "auto" is the default written out; anything else names the key and the choices.
    let spec = &ok(r#"{"mcpServers": {"s": {"command": "x", "protocol": "auto"}}}"#).servers[0];
    assert_eq!(spec.start.protocol, None);
    let (path, kind) = problem(r#"{"mcpServers": {"a": {"command": "x", "protocol": "2026"}}}"#);
    assert_eq!(path, "mcpServers.a.protocol");
    let said = kind.to_string();
    assert!(
        said.contains("auto") && said.contains("2025-11-25") && said.contains("2026-07-28"),
        "{said}"
    );
}

#[test]
fn bad_result_limits_name_their_key() {
    let bytes = ProblemKind::WrongType {
        expected: Expected::Bytes,
        found: "a number",
    };
    assert_eq!(
        problem(r#"{"mcpServers": {"s": {"command": "x", "maxResultBytes": 0}}}"#),
        ("mcpServers.s.maxResultBytes".to_owned(), bytes.clone())
    );
    assert_eq!(
        problem(
            r#"{"mcpServers": {"s": {"command": "x", "toolLimits": {"t": {"maxResultBytes": 1.5}}}}}"#
        ),
        ("mcpServers.s.toolLimits.t.maxResultBytes".to_owned(), bytes)
    );
    let (path, kind) = problem(r#"{"mcpServers": {"s": {"command": "x", "start": "sometimes"}}}"#);
    assert_eq!(path, "mcpServers.s.start");
    assert!(kind.to_string().contains("eager"), "{kind}");
    let file =
        ok(r#"{"mcpServers": {"s": {"command": "x", "toolLimits": {"t": {"maxBytes": 9}}}}}"#);
    assert_eq!(
        warning_kinds(&file)[0].0,
        "mcpServers.s.toolLimits.t.maxBytes"
    );
}

#[test]
fn retrieve_settings_are_read_and_default() {
    let file = ok(r#"{"mcpServers": {"s": {
        "command": "x", "expose": "retrieve", "retrieveTopK": 4, "retrieveMaxTokens": 900
    }}}"#);
    let spec = &file.servers[0];
    assert_eq!(spec.expose, Exposure::Retrieve);
    assert_eq!(
        spec.retrieve,
        coyote_protocol::RetrieveSettings {
            top_k: 4,
            max_tokens: 900,
        }
    );
    let spec = &ok(r#"{"mcpServers": {"s": {"command": "x"}}}"#).servers[0];
    assert_eq!(spec.retrieve, coyote_protocol::RetrieveSettings::default());
    assert_eq!(spec.retrieve.top_k, 8);
    assert_eq!(spec.retrieve.max_tokens, 1_500);
}
