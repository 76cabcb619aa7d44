use super::*;

/// `session stop` waits for the daemon to be gone: a child that exited but was not reaped
/// (a zombie, which `kill(pid, 0)` still reaches) counts as gone.
#[test]
fn an_exited_process_not_yet_reaped_is_not_running() {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    // Not reaped: it stays a zombie until `wait` below, whatever time it takes to exit.
    let mut exited = false;
    for _ in 0..2_000 {
        if zombie(pid) {
            exited = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(exited, "the child never became a zombie");
    assert!(
        rustix::process::test_kill_process(pid).is_ok(),
        "signals still reach a zombie"
    );
    assert!(!running(pid));
    child.wait().unwrap();

    let mut sleeper = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = rustix::process::Pid::from_raw(i32::try_from(sleeper.id()).unwrap()).unwrap();
    assert!(running(pid));
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
}
