//! `coyote mcp batch [--json] [--fail-fast] [FILE]`: many `coyote mcp` commands in one
//! process. Lines are read as they arrive (a script may feed them through a pipe) until the end
//! of FILE or stdin ([`line`] reads one), and every command runs in one [`ServerPool`], so each
//! server starts once, on first use, and serves the later commands. Without `--json` each
//! command prints what it prints alone; with `--json` it runs as with its own `--json`, its
//! output is captured ([`crate::capture`]) and reported as one line `{"id", "exit", "stdout",
//! "stderr"}`. A failing command does not stop the batch unless `--fail-fast`; the batch exits
//! with the highest exit code seen. When a session daemon serves the batch's configuration,
//! each command it would serve alone runs there instead (its servers are already running).

mod line;

use std::path::PathBuf;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, BufReader};

use super::pool::ServerPool;
use crate::args::{GlobalArgs, McpCommand};
use crate::capture::{Captured, capture};
use crate::exit::{CliError, CliResult};
use crate::line_reader;

/// The options of `coyote mcp batch`.
#[derive(Debug)]
pub struct BatchOptions {
    pub json: bool,
    pub fail_fast: bool,
    /// Where the commands are read from (`None` or `-`: stdin).
    pub file: Option<PathBuf>,
}

/// Runs the batch; every server it started is shut down before it returns.
pub async fn run(
    global: &GlobalArgs,
    paths: &coyote_config::ConfigPaths,
    options: BatchOptions,
) -> CliResult {
    let input = open(options.file.as_deref()).await?;
    let mut pool = ServerPool::new(global, paths);
    let outcome = super::until_signal(run_lines(&mut pool, input, &options)).await;
    super::finish(&mut pool).await;
    outcome
}

async fn open(file: Option<&std::path::Path>) -> CliResult<Box<dyn AsyncBufRead + Unpin>> {
    match file {
        None => Ok(Box::new(BufReader::new(tokio::io::stdin()))),
        Some(path) if path.as_os_str() == "-" => Ok(Box::new(BufReader::new(tokio::io::stdin()))),
        Some(path) => match tokio::fs::File::open(path).await {
            Ok(f) => Ok(Box::new(BufReader::new(f))),
            Err(e) => Err(CliError::usage(format!(
                "cannot read the batch file {}: {e}",
                path.display()
            ))),
        },
    }
}

async fn run_lines(
    pool: &mut ServerPool<'_>,
    mut input: Box<dyn AsyncBufRead + Unpin>,
    options: &BatchOptions,
) -> CliResult {
    let mut number: usize = 0;
    let mut highest = crate::exit::CODE_OK;
    while let Some(read) = line_reader::next_line(&mut input, line_reader::MAX_LINE_BYTES)
        .await
        .map_err(|e| CliError::failure(format!("cannot read the batch: {e}")))?
    {
        number = number.saturating_add(1);
        let entry = match read {
            line_reader::Line::Text(text) => line::entry(number, &text),
            line_reader::Line::TooLong { bytes } => Some(line::Entry::rejected(
                number,
                format!(
                    "line {number}: {bytes} bytes is longer than a batch line may be ({} bytes); \
                     it was skipped",
                    line_reader::MAX_LINE_BYTES
                ),
            )),
            line_reader::Line::NotUtf8 => Some(line::Entry::rejected(
                number,
                format!("line {number}: not valid UTF-8; it was skipped"),
            )),
        };
        let Some(entry) = entry else {
            continue;
        };
        let code = if options.json {
            run_json(pool, entry).await?
        } else {
            let code = run_entry(pool, entry.parsed, &entry.words).await;
            // Text that did not end its line (a resource read) must not run into the next
            // command's output.
            crate::capture::end_stdout_line();
            code
        };
        highest = highest.max(code);
        if code != crate::exit::CODE_OK && options.fail_fast {
            break;
        }
    }
    match highest {
        crate::exit::CODE_OK => Ok(()),
        code => Err(CliError::exit(code)),
    }
}

/// Runs one command as the command line would, printing what it prints; its exit code. A
/// session daemon serving the batch's configuration runs it when it would run the command
/// alone (`words` are sent to it); otherwise it runs in the batch's own pool.
async fn run_entry(
    pool: &mut ServerPool<'_>,
    parsed: Result<McpCommand, line::Rejected>,
    words: &[String],
) -> u8 {
    match parsed {
        Err(rejected) => rejected.report(),
        Ok(cmd) => {
            // Without a daemon (one stat) the line is not parsed again for it.
            if super::daemon::daemon_socket(pool.paths()).is_some()
                && let Some(words) = daemon_words(words, &cmd)
                && let Some(result) =
                    super::daemon::route_words(pool.global(), pool.paths(), &cmd, words).await
            {
                return match result {
                    Ok(()) => crate::exit::CODE_OK,
                    Err(e) => e.report(),
                };
            }
            match super::run_in(pool, cmd).await {
                Ok(()) => crate::exit::CODE_OK,
                Err(e) => e.report(),
            }
        }
    }
}

/// The words that mean exactly `cmd` to a session daemon: the line's own, or with `--json`
/// added when the batch forced it; `None` when neither does (the batch's pool runs it).
fn daemon_words(words: &[String], cmd: &McpCommand) -> Option<Vec<String>> {
    let means = |w: &[String]| {
        line::parse(w.to_vec()).is_ok_and(|parsed| format!("{parsed:?}") == format!("{cmd:?}"))
    };
    if means(words) {
        return Some(words.to_vec());
    }
    let mut with_json = words.to_vec();
    with_json.push("--json".to_owned());
    means(&with_json).then_some(with_json)
}

/// Runs one command with its `--json`, captured, and prints its result line.
async fn run_json(pool: &mut ServerPool<'_>, entry: line::Entry) -> CliResult<u8> {
    let parsed = entry.parsed.map(|mut cmd| {
        line::force_json(&mut cmd);
        cmd
    });
    let (code, captured) = capture(run_entry(pool, parsed, &entry.words)).await;
    let mut text = serde_json::to_string(&result_line(entry.id, code, captured))
        .map_err(|e| CliError::failure(format!("cannot encode JSON output: {e}")))?;
    text.push('\n');
    match crate::capture::write_stdout(text.as_bytes()) {
        Ok(()) => Ok(code),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(code),
        Err(e) => Err(CliError::failure(format!("cannot write to stdout: {e}"))),
    }
}

/// `{"id", "exit", "stdout", "stderr"}`: `stdout` is the command's JSON document, `null` when
/// it printed nothing, else its text.
fn result_line(id: Value, code: u8, captured: Captured) -> Value {
    let stdout = if captured.stdout.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        serde_json::from_slice(&captured.stdout)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&captured.stdout).into()))
    };
    json!({
        "id": id,
        "exit": code,
        "stdout": stdout,
        "stderr": String::from_utf8_lossy(&captured.stderr),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_hold_the_document_nothing_or_the_text() {
        let doc = Captured {
            stdout: b"{\n  \"a\": 1\n}\n".to_vec(),
            stderr: Vec::new(),
        };
        assert_eq!(
            result_line(json!(1), 0, doc),
            json!({"id": 1, "exit": 0, "stdout": {"a": 1}, "stderr": ""})
        );
        let failed = Captured {
            stdout: Vec::new(),
            stderr: b"coyote: no\n".to_vec(),
        };
        assert_eq!(result_line(json!("x"), 2, failed)["stdout"], Value::Null);
        let text = Captured {
            stdout: b"one\ntwo\n".to_vec(),
            stderr: Vec::new(),
        };
        assert_eq!(
            result_line(json!(3), 0, text)["stdout"],
            json!("one\ntwo\n")
        );
    }
}
