//! Every file coyote reads from the user is bounded — configuration files
//! at 4 MiB, session files at 64 MiB, only regular files (a FIFO or `/dev/zero` behind a
//! symlink is refused at once, never read forever), and YAML nested at most 64 levels deep
//! (refused before the parser sees it).

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use coyote_config::{MapEnv, SessionStore, load_app_config, load_role};

use crate::common::{TestHome, write};

const MIB: usize = 1024 * 1024;

/// Runs `load` on another thread; a load that blocks (reading a FIFO) fails the test after
/// `HANG_BOUND` instead of hanging it. Not a speed assertion: a refusal takes microseconds.
fn bounded<T: Send + 'static>(load: impl FnOnce() -> T + Send + 'static) -> T {
    const HANG_BOUND: Duration = Duration::from_secs(20);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(load());
    });
    rx.recv_timeout(HANG_BOUND)
        .expect("the load did not return (it blocked on a special file or parsed for too long)")
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(status.success());
}

fn symlink(target: &Path, link: &Path) {
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn config_files_over_4_mib_are_refused_naming_the_limit() {
    let home = TestHome::new();
    let padding = " ".repeat(4 * MIB);
    home.user_file(&format!("{{\"mcpServers\": {{}}}}{padding}"));
    let error = home
        .load(&MapEnv::new())
        .expect_err("over the cap")
        .to_string();
    assert!(error.contains("larger than 4 MiB"), "{error}");

    write(&home.paths.config_yaml(), &format!("# {padding}\n"));
    let error = load_app_config(&home.paths, &MapEnv::new())
        .expect_err("over the cap")
        .to_string();
    assert!(error.contains("larger than 4 MiB"), "{error}");

    let roles = home.paths.roles_dir();
    write(&roles.join("big.md"), &format!("You are big.\n{padding}"));
    let error = load_role(&roles, "big")
        .expect_err("over the cap")
        .to_string();
    assert!(error.contains("larger than 4 MiB"), "{error}");

    // Just under the cap is fine.
    home.user_file(&format!("{{\"mcpServers\": {{}}}}{}", &padding[..MIB]));
    home.load(&MapEnv::new()).expect("under the cap");
}

#[test]
fn session_files_over_64_mib_are_refused_naming_the_limit() {
    let home = TestHome::new();
    let store = SessionStore::new(home.paths.sessions_dir());
    let padding = " ".repeat(64 * MIB);
    write(
        &home.paths.sessions_dir().join("huge.json"),
        &format!("{{\"version\": 1}}{padding}"),
    );
    let error = store
        .load::<serde_json::Value>("huge")
        .expect_err("over the cap")
        .to_string();
    assert!(error.contains("larger than 64 MiB"), "{error}");
}

#[test]
fn a_fifo_or_dev_zero_behind_the_config_is_refused_at_once() {
    let home = TestHome::new();
    let fifo = home.tmp.path().join("pipe");
    mkfifo(&fifo);
    symlink(&fifo, &home.paths.mcp_json());
    let paths = home.paths.clone();
    let cwd = home.cwd.clone();
    let error = bounded(move || {
        coyote_config::McpLoader::new(&paths, &MapEnv::new(), &cwd)
            .load()
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
    .expect_err("a FIFO is not configuration");
    assert!(error.contains("not a regular file"), "{error}");

    symlink(Path::new("/dev/zero"), &home.paths.config_yaml());
    let paths = home.paths.clone();
    let error = bounded(move || {
        load_app_config(&paths, &MapEnv::new())
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
    .expect_err("/dev/zero is not configuration");
    assert!(error.contains("not a regular file"), "{error}");
}

#[test]
fn yaml_nested_deeper_than_64_levels_is_refused() {
    let home = TestHome::new();
    let deep = 100_000;
    let flow = format!("model: {}{}\n", "[".repeat(deep), "]".repeat(deep));
    write(&home.paths.config_yaml(), &flow);
    let paths = home.paths.clone();
    let error = bounded(move || load_app_config(&paths, &MapEnv::new()).map(|_| ()))
        .expect_err("too deep")
        .to_string();
    assert!(error.contains("nested deeper than 64 levels"), "{error}");

    // Block style: one level per indentation step.
    let block: String = (0..65)
        .map(|level| format!("{}k{level}:\n", "  ".repeat(level)))
        .collect();
    write(&home.paths.config_yaml(), &block);
    let error = load_app_config(&home.paths, &MapEnv::new())
        .expect_err("too deep")
        .to_string();
    assert!(error.contains("nested deeper than 64 levels"), "{error}");

    let macros = home.paths.macros_dir();
    write(&macros.join("deep.yaml"), &flow);
    let error = coyote_config::load_macro(&macros, "deep", &[])
        .expect_err("too deep")
        .to_string();
    assert!(error.contains("nested deeper than 64 levels"), "{error}");
}
