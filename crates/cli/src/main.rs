//! `coyote` binary entry point: builds the tokio runtime, parses arguments, runs the chosen
//! command and maps the outcome to an exit code (0 ok, 1 server/tool/model error, 2 usage or
//! config error, 130 interrupted). All behaviour lives in the modules below.

mod args;
mod coerce;
mod exit;
mod logging;
mod mcp_cmd;
mod output;
mod setup;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("coyote: cannot start the async runtime: {e}");
            return ExitCode::from(exit::CODE_FAILURE);
        }
    };
    let code = rt.block_on(run(cli));
    // Servers were closed by the command itself; give stray tasks no chance to outlive us.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    ExitCode::from(code)
}

async fn run(cli: args::Cli) -> u8 {
    let result = match cli.command {
        Some(args::Command::Mcp(cmd)) => mcp_cmd::run(&cli.global, cmd).await,
        None => Err(exit::CliError::usage(
            "chat mode is not available yet; try `coyote mcp --help`",
        )),
    };
    match result {
        Ok(()) => exit::CODE_OK,
        Err(e) => e.report(),
    }
}
