//! `coyote` binary entry point: builds the tokio runtime, parses arguments, runs the chosen
//! command and maps the outcome to an exit code (0 ok, 1 server/tool/model error, 2 usage or
//! config error, 128 + N after signal N: 130 SIGINT, 143 SIGTERM, 129 SIGHUP — see
//! `signals.rs`). All behaviour lives in the modules below.

#![deny(clippy::allow_attributes)]

mod agent;
mod agent_chat;
mod args;
mod attach;
mod boxed;
mod capture;
mod chat;
mod client;
mod coerce;
mod exit;
mod help_cmd;
mod line_reader;
mod logging;
mod markdown;
mod mcp_cmd;
mod models_cmd;
mod output;
mod reasoning;
mod repl;
mod scope;
mod setup;
mod shell_cmd;
mod signals;
mod term;
mod typo;
mod ui;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    if let Some(message) = cli.misplaced_chat_option() {
        return ExitCode::from(exit::CliError::usage(message).report());
    }
    if cli.command.is_none() {
        let after_dashes = std::env::args_os().any(|a| a == "--");
        if let Some(message) = typo::check(&cli.chat.text, after_dashes) {
            return ExitCode::from(exit::CliError::usage(message).report());
        }
        if cli.chat.text.is_empty()
            && std::io::IsTerminal::is_terminal(&std::io::stdin())
            && let Some(message) = cli.chat.repl_misfit()
        {
            return ExitCode::from(exit::CliError::usage(message).report());
        }
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let error = exit::CliError::failure(format!("cannot start the async runtime: {e}"));
            return ExitCode::from(error.report());
        }
    };
    // The REPL runs on this thread, outside the runtime, and blocks on each turn (its
    // completer may then block on a bounded RPC; see repl/mod.rs).
    let code = match &cli.command {
        Some(args::Command::Repl(repl_args)) => repl_run(
            &rt,
            &cli.global,
            &repl::setup::ReplOptions {
                model: repl_args.model.clone(),
                scope: repl_args.scope.clone(),
            },
        ),
        // No message and a terminal: the REPL (`-m` carries over).
        None if cli.chat.text.is_empty() && std::io::IsTerminal::is_terminal(&std::io::stdin()) => {
            repl_run(
                &rt,
                &cli.global,
                &repl::setup::ReplOptions {
                    model: cli.chat.model.clone(),
                    scope: cli.chat.scope.clone(),
                },
            )
        }
        // Built in a frame of its own (boxed.rs): a command's future is as large as the largest
        // command's state, and a slot that size on the main thread's stack stays resident.
        _ => rt.block_on(boxed::boxed(|| run_until_signal(cli))),
    };
    // Servers were closed by the command itself; give stray tasks no chance to outlive us.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    ExitCode::from(code)
}

/// The REPL, with SIGTERM and SIGHUP watched (the REPL owns SIGINT).
fn repl_run(
    rt: &tokio::runtime::Runtime,
    global: &args::GlobalArgs,
    options: &repl::setup::ReplOptions,
) -> u8 {
    rt.block_on(async { signals::install(signals::Mode::Repl) });
    repl::setup::run(rt.handle(), global, options)
}

/// Runs the command with SIGINT, SIGTERM and SIGHUP watched. Chat and `coyote mcp …` stop
/// themselves on the first signal (cancelling their calls and shutting their servers down);
/// every other command, which starts no server, is simply dropped. Exit code 128 + N after
/// signal N, whatever the command returned.
async fn run_until_signal(cli: args::Cli) -> u8 {
    signals::install(signals::Mode::Command);
    let stops_itself = matches!(cli.command, None | Some(args::Command::Mcp(_)));
    let command = run(cli);
    let code = if stops_itself {
        command.await
    } else {
        let token = signals::token();
        tokio::select! {
            code = command => code,
            () = token.cancelled() => exit::CODE_INTERRUPTED,
        }
    };
    match signals::received() {
        Some(signal) => {
            // Anything a command left behind (it should have shut its servers down).
            coyote_mcp::kill_every_process_group();
            signals::exit_code(signal)
        }
        None => code,
    }
}

async fn run(cli: args::Cli) -> u8 {
    let result = match cli.command {
        Some(args::Command::Mcp(cmd)) => boxed::boxed(|| mcp_cmd::run(&cli.global, cmd)).await,
        Some(args::Command::Repl(_)) => Err(exit::CliError::usage(
            "the REPL cannot start here; run `coyote repl` on a terminal",
        )),
        Some(args::Command::Models { client, out }) => {
            boxed::boxed(|| models_cmd::run(&cli.global, client, out)).await
        }
        Some(args::Command::Help { topic }) => help_cmd::run(&cli.global, &topic),
        Some(args::Command::Completions { shell }) => shell_cmd::completions(shell),
        Some(args::Command::Man { dir }) => shell_cmd::man(dir.as_deref()),
        None => boxed::boxed(|| chat::run(&cli.global, cli.chat)).await,
    };
    match result {
        Ok(()) => exit::CODE_OK,
        Err(e) => e.report(),
    }
}
