//! Shared helpers: specs with injected deadlines, a runtime, process liveness.

use std::path::Path;
use std::time::Duration;

use coyote_mcp::{McpRuntime, RuntimeOptions};
use coyote_protocol::{McpServerSpec, Timeouts};
use coyote_test_support::{ScenarioBuilder, ScenarioFile};

/// Deadline for things that should happen promptly (generous: a loaded 2-core machine).
pub const PROMPT: Duration = Duration::from_secs(20);

pub fn timeouts(startup: Duration, call: Duration) -> Timeouts {
    Timeouts { startup, call }
}

/// Generous deadlines: the test does not expect a timeout.
pub fn relaxed() -> Timeouts {
    timeouts(PROMPT, PROMPT)
}

/// Writes the scenario into `dir` and returns it with a stdio spec named `name`.
pub fn stdio(
    dir: &Path,
    name: &str,
    builder: ScenarioBuilder,
    deadlines: Timeouts,
) -> (ScenarioFile, McpServerSpec) {
    let file = builder
        .server_name(name)
        .write_to(dir)
        .expect("write scenario");
    let mut spec = file.stdio_spec(name);
    spec.timeouts = deadlines;
    (file, spec)
}

pub fn runtime() -> McpRuntime {
    McpRuntime::new(RuntimeOptions::default())
}

/// True once `pid` no longer runs (gone or a zombie), polling until `deadline`.
pub async fn process_gone(pid: u32, deadline: Duration) -> bool {
    let stat = format!("/proc/{pid}/stat");
    let poll = async {
        loop {
            match std::fs::read_to_string(&stat) {
                Err(_) => return,
                // `pid (comm) S …`: the state follows the last ')'.
                Ok(text)
                    if text
                        .rsplit(')')
                        .next()
                        .is_some_and(|rest| rest.trim_start().starts_with('Z')) =>
                {
                    return;
                }
                Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    };
    tokio::time::timeout(deadline, poll).await.is_ok()
}
