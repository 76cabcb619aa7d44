//! Where a `coyote mcp` command's output goes: the process's stdout and stderr, or — inside
//! [`capture`] — two buffers of the running task, so `coyote mcp batch --json` reports each
//! command's stdout and stderr apart. The printers a command uses (`output::print*`,
//! `term::*_line`, [`stderr_line`]) all write through [`write_stdout`] / [`write_stderr`].
//! Lines written by other tasks (server log lines, a declined question's note) are not part of
//! a capture: they go to the process's stderr.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

tokio::task_local! {
    static SINK: Arc<Buffers>;
}

#[derive(Debug, Default)]
struct Buffers {
    stdout: Mutex<Vec<u8>>,
    stderr: Mutex<Vec<u8>>,
}

/// What a captured future wrote.
#[derive(Debug, Default)]
pub struct Captured {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

fn lock(buffer: &Mutex<Vec<u8>>) -> MutexGuard<'_, Vec<u8>> {
    buffer.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `work` with its output kept instead of written.
pub async fn capture<F: Future>(work: F) -> (F::Output, Captured) {
    let buffers = Arc::new(Buffers::default());
    let output = SINK.scope(buffers.clone(), work).await;
    let captured = Captured {
        stdout: std::mem::take(&mut *lock(&buffers.stdout)),
        stderr: std::mem::take(&mut *lock(&buffers.stderr)),
    };
    (output, captured)
}

/// Whether the process's stdout is in the middle of a line (its last byte written was not a
/// line end): [`end_stdout_line`] ends it.
static STDOUT_MID_LINE: AtomicBool = AtomicBool::new(false);

/// Writes `bytes` to stdout (flushed), or to the capture.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    if SINK
        .try_with(|b| lock(&b.stdout).extend_from_slice(bytes))
        .is_ok()
    {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    if let Some(last) = bytes.last() {
        STDOUT_MID_LINE.store(*last != b'\n', Ordering::Relaxed);
    }
    out.flush()
}

/// Ends stdout's current line when the output so far stopped in the middle of one: between
/// the commands of a batch, so that one command's text never runs into the next's.
pub fn end_stdout_line() {
    if STDOUT_MID_LINE.load(Ordering::Relaxed) {
        let _ = write_stdout(b"\n");
    }
}

/// Writes `bytes` to stderr (flushed), or to the capture; a failing stderr is ignored.
pub fn write_stderr(bytes: &[u8]) {
    if SINK
        .try_with(|b| lock(&b.stderr).extend_from_slice(bytes))
        .is_ok()
    {
        return;
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(bytes);
    let _ = err.flush();
}

/// `line` and a newline on stderr as it is (coyote's own text; see [`crate::term`] for text
/// that needs sanitizing).
pub fn stderr_line(line: &str) {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    write_stderr(&bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_capture_keeps_both_streams_and_ends_with_its_future() {
        let ((), captured) = capture(async {
            write_stdout(b"out").unwrap();
            stderr_line("err");
        })
        .await;
        assert_eq!(captured.stdout, b"out");
        assert_eq!(captured.stderr, b"err\n");
        // Outside the capture, nothing is kept.
        assert!(SINK.try_with(|_| ()).is_err());
    }
}
