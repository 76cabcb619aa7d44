//! `coyote mcp tasks SERVER [list | get ID | result ID | cancel ID]`: a server's MCP tasks for
//! scripts. `list` (the default) is a table of id, status, status message and last update;
//! `get` and `cancel` print one task the same way; `result` prints the task's tool result as
//! `coyote mcp call` does (waiting for a task still running; exit 1 for an `isError` result).
//! `--json` prints the tasks as JSON with snake_case keys (`task_id`, `status`,
//! `status_message`, `created_at`, `last_updated_at`, `ttl_ms`, `poll_interval_ms`).

use coyote_mcp::tasks::TaskInfo;
use coyote_mcp::{McpRuntime, ServerHandle};

use super::call::report;
use super::mcp_failure;
use crate::args::{McpCommand, OutputArgs, TasksAction};
use crate::exit::{CliError, CliResult};
use crate::output::{Table, print_json, print_table};

/// Runs a `McpCommand::Tasks` (anything else is a no-op).
pub async fn run(runtime: &McpRuntime, cmd: McpCommand) -> CliResult {
    let McpCommand::Tasks {
        server,
        action,
        id,
        out,
    } = cmd
    else {
        return Ok(());
    };
    tasks(&super::handle(runtime, &server)?, action, id, out).await
}

async fn tasks(
    handle: &ServerHandle,
    action: Option<TasksAction>,
    id: Option<String>,
    out: OutputArgs,
) -> CliResult {
    let wide = out.wide;
    let action = action.unwrap_or(TasksAction::List);
    let id = match (action, id) {
        (TasksAction::List, None) => String::new(),
        (TasksAction::List, Some(extra)) => {
            return Err(CliError::usage(format!(
                "`list` takes no task id (got {extra:?}); use `get {extra}` for one task"
            )));
        }
        (_, Some(id)) => id,
        (_, None) => {
            return Err(CliError::usage(
                "give the task id: `coyote mcp tasks SERVER get|result|cancel ID` (ids from \
                 `coyote mcp tasks SERVER`)",
            ));
        }
    };
    match action {
        TasksAction::List => {
            if !handle.lists_tasks() {
                return Err(CliError::failure(format!(
                    "MCP server '{}' does not list its tasks (it does not advertise \
                     `tasks.list`); `coyote mcp tasks {} get ID` still works for a task id \
                     you know",
                    handle.name(),
                    handle.name()
                )));
            }
            let tasks = handle.list_tasks().await.map_err(mcp_failure)?;
            show(&tasks, out.json, wide)
        }
        TasksAction::Get => {
            let task = handle.get_task(&id).await.map_err(mcp_failure)?;
            show(&[task], out.json, wide)
        }
        TasksAction::Cancel => {
            let task = handle.cancel_task(&id).await.map_err(mcp_failure)?;
            show(&[task], out.json, wide)
        }
        TasksAction::Result => {
            let outcome = handle.task_result(&id).await.map_err(mcp_failure)?;
            report(&outcome, out)
        }
    }
}

fn show(tasks: &[TaskInfo], json: bool, wide: bool) -> CliResult {
    if json {
        return print_json(tasks);
    }
    let mut table = Table::new(vec!["task", "status", "message", "updated"]).flexible("message");
    for task in tasks {
        table.row(vec![
            task.task_id.clone(),
            task.status.clone(),
            task.status_message.clone().unwrap_or_default(),
            task.last_updated_at.clone().unwrap_or_default(),
        ]);
    }
    print_table(&table, wide)
}
