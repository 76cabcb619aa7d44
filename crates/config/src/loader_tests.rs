use std::fs;
use std::path::Path;

use coyote_protocol::McpTransport;

use super::*;
use crate::env::MapEnv;

struct Home {
    _tmp: tempfile::TempDir,
    paths: ConfigPaths,
    /// A git repository root with a nested working directory.
    repo: PathBuf,
    cwd: PathBuf,
}

fn home() -> Home {
    let tmp = tempfile::tempdir().unwrap();
    // `.git` at the temp root bounds every search to the temp dir.
    fs::create_dir_all(tmp.path().join(".git")).unwrap();
    let paths = ConfigPaths::under(&tmp.path().join("home"));
    let repo = tmp.path().join("repo");
    let cwd = repo.join("src/deep");
    fs::create_dir_all(&cwd).unwrap();
    fs::create_dir_all(repo.join(".git")).unwrap();
    Home {
        paths,
        repo,
        cwd,
        _tmp: tmp,
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn load(h: &Home) -> McpConfig {
    McpLoader::new(&h.paths, &MapEnv::new(), &h.cwd)
        .load()
        .unwrap()
}

fn names(config: &McpConfig) -> Vec<(String, String)> {
    config
        .servers
        .iter()
        .map(|s| {
            let what = match &s.transport {
                McpTransport::Stdio(st) => st.command.clone(),
                McpTransport::Http(h) | McpTransport::Sse(h) => h.url.clone(),
            };
            (s.name.clone(), what)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const USER: &str = r#"{"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}, "c": {"command": "user-c"}}}"#;
const PROJECT: &str = r#"{"mcpServers": {"b": {"command": "proj-b"}, "d": {"command": "proj-d"}, "c": {"command": "x", "disabled": true}}}"#;

#[test]
fn nothing_configured() {
    let h = home();
    let config = load(&h);
    assert_eq!(
        config,
        McpConfig {
            servers: vec![],
            disabled: vec![],
            broken: vec![],
            warnings: vec![],
            user_file: h.paths.mcp_json(),
            projects: vec![]
        }
    );
}

#[test]
fn untrusted_project_file_is_ignored_with_a_warning() {
    let h = home();
    write(&h.paths.mcp_json(), USER);
    let project_path = h.repo.join(".coyote/mcp.json");
    write(&project_path, PROJECT);
    let config = load(&h);
    assert_eq!(
        names(&config),
        pairs(&[("a", "user-a"), ("b", "user-b"), ("c", "user-c")])
    );
    let project = config.projects[0].clone();
    assert_eq!(
        project,
        ProjectFile {
            path: project_path.clone(),
            root: h.repo.clone(),
            sha256: sha256_hex(PROJECT.as_bytes()),
            status: TrustStatus::Untrusted,
        }
    );
    assert_eq!(
        config.warnings,
        vec![ConfigWarning {
            file: project_path,
            path: JsonPath::root(),
            kind: WarningKind::ProjectNotTrusted {
                status: TrustStatus::Untrusted
            },
        }]
    );
}

#[test]
fn untrusted_project_file_is_not_even_parsed() {
    let h = home();
    write(&h.repo.join(".coyote/mcp.json"), "{ this is not json");
    let config = load(&h);
    assert_eq!(config.servers, vec![]);
    assert_eq!(
        config.projects.first().map(|p| p.status),
        Some(TrustStatus::Untrusted)
    );
}

#[test]
fn trusted_project_file_overrides_by_name() {
    let h = home();
    write(&h.paths.mcp_json(), USER);
    write(&h.repo.join(".coyote/mcp.json"), PROJECT);
    let project = load(&h).projects[0].clone();
    TrustStore::new(&h.paths)
        .decide(&project, crate::trust::TrustDecision::Trust)
        .unwrap();

    let config = load(&h);
    assert_eq!(config.warnings, vec![]);
    assert_eq!(
        config.projects.first().map(|p| p.status),
        Some(TrustStatus::Trusted)
    );
    // `b` replaced in place, `c` disabled by the project, `d` appended.
    assert_eq!(
        names(&config),
        pairs(&[("a", "user-a"), ("b", "proj-b"), ("d", "proj-d")])
    );
    assert_eq!(
        config.disabled,
        vec![DisabledServer {
            name: "c".into(),
            source: h.repo.join(".coyote/mcp.json")
        }]
    );
    // Project servers run in the project root and name their source.
    let b = &config.servers[1];
    assert_eq!(b.source, h.repo.join(".coyote/mcp.json"));
    match &b.transport {
        McpTransport::Stdio(s) => assert_eq!(s.cwd.as_deref(), Some(h.repo.as_path())),
        other => panic!("{other:?}"),
    }
    match &config.servers[0].transport {
        McpTransport::Stdio(s) => assert_eq!(s.cwd, None),
        other => panic!("{other:?}"),
    }
}

#[test]
fn editing_a_trusted_file_needs_trust_again() {
    let h = home();
    let path = h.repo.join(".coyote/mcp.json");
    write(&path, PROJECT);
    let project = load(&h).projects[0].clone();
    TrustStore::new(&h.paths)
        .trust(&project.path, &project.sha256)
        .unwrap();
    write(&path, r#"{"mcpServers": {"evil": {"command": "rm"}}}"#);
    let config = load(&h);
    assert_eq!(config.servers, vec![]);
    assert_eq!(
        config.projects.first().map(|p| p.status),
        Some(TrustStatus::Changed)
    );
    assert_eq!(
        config
            .warnings
            .iter()
            .map(|w| w.kind.clone())
            .collect::<Vec<_>>(),
        vec![WarningKind::ProjectNotTrusted {
            status: TrustStatus::Changed
        }]
    );
}

#[test]
fn trusted_but_invalid_project_file_is_an_error() {
    let h = home();
    let path = h.repo.join(".coyote/mcp.json");
    // Not an entry's problem but the file's: `mcpServers` is not an object.
    write(&path, r#"{"mcpServers": []}"#);
    let project = load(&h).projects[0].clone();
    TrustStore::new(&h.paths)
        .trust(&project.path, &project.sha256)
        .unwrap();
    let err = McpLoader::new(&h.paths, &MapEnv::new(), &h.cwd)
        .load()
        .unwrap_err();
    assert!(
        matches!(&err, ConfigError::Invalid { path: p, .. } if *p == path),
        "{err:?}"
    );
}

#[test]
fn search_stops_at_the_git_root() {
    let h = home();
    // Above the repository root: not a project file of this repo.
    write(&h.repo.parent().unwrap().join(".coyote/mcp.json"), PROJECT);
    assert_eq!(load(&h).projects, vec![]);
    assert_eq!(find_project_file(&h.cwd), None);
}

#[test]
fn nearest_project_file_wins() {
    let h = home();
    write(&h.repo.join(".coyote/mcp.json"), PROJECT);
    write(&h.repo.join("src/.coyote/mcp.json"), "{}");
    assert_eq!(
        find_project_file(&h.cwd),
        Some((h.repo.join("src"), h.repo.join("src/.coyote/mcp.json")))
    );
}

#[test]
fn ignore_mode_skips_project_files() {
    let h = home();
    write(&h.repo.join(".coyote/mcp.json"), PROJECT);
    let config = McpLoader::new(&h.paths, &MapEnv::new(), &h.cwd)
        .project_files(ProjectFiles::Ignore)
        .load()
        .unwrap();
    assert_eq!((config.projects, config.warnings), (vec![], vec![]));
}

#[test]
fn the_user_file_is_never_a_project_file() {
    let h = home();
    let paths = ConfigPaths::new(
        h.repo.join(".coyote"),
        h.paths.state_dir(),
        h.paths.cache_dir(),
    );
    write(&paths.mcp_json(), USER);
    let config = McpLoader::new(&paths, &MapEnv::new(), &h.cwd)
        .load()
        .unwrap();
    assert_eq!((config.projects, config.servers.len()), (vec![], 3));
}

#[test]
fn unreadable_trust_store_trusts_nothing() {
    let h = home();
    write(&h.repo.join(".coyote/mcp.json"), PROJECT);
    write(&h.paths.trusted_projects(), "garbage");
    let config = load(&h);
    assert_eq!(
        config.projects.first().map(|p| p.status),
        Some(TrustStatus::Untrusted)
    );
    let kinds: Vec<_> = config
        .warnings
        .iter()
        .map(|w| std::mem::discriminant(&w.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![
            std::mem::discriminant(&WarningKind::TrustStoreUnreadable {
                reason: String::new()
            }),
            std::mem::discriminant(&WarningKind::ProjectNotTrusted {
                status: TrustStatus::Untrusted
            }),
        ]
    );
}

#[test]
fn workspace_folder_is_the_project_root() {
    let h = home();
    write(
        &h.paths.mcp_json(),
        r#"{"mcpServers": {"fs": {"command": "fs", "args": ["${workspaceFolder}"]}}}"#,
    );
    write(&h.repo.join(".coyote/mcp.json"), "{}");
    let config = load(&h);
    match &config.servers[0].transport {
        McpTransport::Stdio(s) => assert_eq!(s.args, vec![h.repo.to_string_lossy().into_owned()]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn user_file_errors_surface() {
    let h = home();
    write(&h.paths.mcp_json(), "{");
    let err = McpLoader::new(&h.paths, &MapEnv::new(), &h.cwd)
        .load()
        .unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Syntax {
                line: 1,
                column: 1,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn an_unusable_entry_disables_only_its_server() {
    let h = home();
    write(
        &h.paths.mcp_json(),
        r#"{"mcpServers": {
            "good": {"command": "good-mcp"},
            "bad": {"command": "x", "env": {"TOKEN": "${NOT_SET_HERE}"}},
            "typo": {"command": "y", "args": "not-an-array"}
        }}"#,
    );
    let config = load(&h);
    assert_eq!(names(&config), pairs(&[("good", "good-mcp")]));
    let broken: Vec<(&str, Vec<String>)> = config
        .broken
        .iter()
        .map(|b| {
            (
                b.name.as_str(),
                b.problems.iter().map(|p| p.path.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(
        broken,
        [
            ("bad", vec!["mcpServers.bad.env.TOKEN".to_owned()]),
            ("typo", vec!["mcpServers.typo.args".to_owned()]),
        ]
    );
    let text = config.broken[0].to_string();
    assert!(
        text.starts_with("MCP server 'bad' is disabled: its entry in "),
        "{text}"
    );
    assert!(text.contains("NOT_SET_HERE"), "{text}");
    // A file that is not JSON still fails as a whole.
    write(
        &h.paths.mcp_json(),
        r#"{"mcpServers": {"good": {"command": "x",}}}"#,
    );
    assert!(matches!(
        McpLoader::new(&h.paths, &MapEnv::new(), &h.cwd).load(),
        Err(ConfigError::Syntax { .. })
    ));
}
