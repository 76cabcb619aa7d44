//! One-shot chat: `coyote [OPTIONS] [TEXT…]` — one turn with the configured model and every
//! enabled MCP server, printed (or `--json` events), then exit.
//!
//! Flow: read the message (arguments and/or piped stdin) → config.yaml → model → mcp.json →
//! start the servers (concurrently, each bounded by its startup timeout) → one turn → shut the
//! servers down → exit code: 0 answered, 1 model/tool failure or round limit, 2 usage or
//! configuration, 130/143/129 after SIGINT/SIGTERM/SIGHUP (the first signal cancels the turn
//! cleanly: in-flight MCP calls are cancelled on the wire, the session is saved and the servers
//! are shut down before exiting; a second signal kills the servers' process groups and exits
//! at once — `signals.rs`). Tool calls that need approval are refused unless `--yes` (nothing
//! is approved on the user's behalf otherwise). A server's questions (forms, web pages) and
//! sampling requests are asked on the terminal when stdin and stderr are terminals, and
//! declined with a stderr line otherwise; `--allow-sampling` lets servers use the model without
//! asking.

mod input;
mod render;
mod scoped;

use std::io::IsTerminal;

use coyote_config::{ProcessEnv, load_app_config};
use coyote_llm::StreamMode;
use coyote_mcp::SpillStore;
use coyote_protocol::Message;
use coyote_session::{
    ApprovalPolicies, ApproveAll, Approver, RefuseAll, Session, SessionError, StopReason,
    TurnContext,
};

use self::render::{Mode, Output, Streams};
use crate::args::{ChatArgs, GlobalArgs};
use crate::attach::Attachments;
use crate::exit::{CliError, CliResult};
use crate::markdown::RenderOptions;
use crate::setup;

/// Added to the refusal the model receives when a call needs approval in one-shot mode.
const ONE_SHOT_REFUSAL_NOTE: &str = "coyote runs non-interactively here and runs tools that need approval only when started \
     with --yes";

pub async fn run(global: &GlobalArgs, args: ChatArgs) -> CliResult {
    coyote_llm::install_crypto_provider();
    let paths = setup::paths(global)?;
    crate::logging::init(&paths.log_dir(), global.log_level.as_deref());
    let (message, attachments) = read_message(&args).await?;

    let app = load_app_config(&paths, &ProcessEnv).map_err(|e| CliError::usage(e.to_string()))?;
    // `-r`, `--session` and `-m` scope the turn exactly as in the REPL (scope/).
    let mut prepared = scoped::prepare(&paths, &args)?;
    let choice = crate::scope::choose_model(&app, &prepared.scope).map_err(CliError::usage)?;
    tracing::info!(model = %choice.id, "one-shot chat");
    attachments.check_model(&choice.id, choice.supports_images)?;

    let mcp = setup::load_mcp(global, &paths)?;
    let all_specs = mcp.servers.clone();
    let (specs, selection) = scoped::selected_specs(&app, &prepared.scope, mcp.servers);
    // `-a NAME`: the servers the agent and its delegates select (agent_chat.rs).
    let specs = crate::agent_chat::app_specs(&paths, &args, &app, specs, &all_specs)?;
    let runtime = setup::start_lazily(global, &paths, specs.clone()).await;
    let session = Session::builder(
        choice.provider,
        choice.settings,
        runtime.clone(),
        SpillStore::new(paths.mcp_resources_dir()),
    )
    .context(choice.context)
    .servers(selection)
    .max_tool_rounds(app.max_tool_rounds)
    .stream(if args.no_stream {
        StreamMode::Whole
    } else {
        StreamMode::Streaming
    })
    .approvals(ApprovalPolicies::from_specs(&specs))
    .exposure(coyote_mcp::meta::ExposurePolicies::from_specs(&specs))
    .budgets(coyote_mcp::render::ResultBudgets::from_specs(&specs))
    .build();
    // `-a NAME`: the turn runs in the agent's own session (agent_chat.rs).
    let mut agent = match crate::agent_chat::start(&paths, &args, &app, &runtime, &all_specs).await
    {
        Ok(agent) => agent,
        Err(error) => {
            runtime.shutdown().await;
            return Err(error);
        }
    };

    let output = Output::new(output_mode(&args, global, &app), Streams::std());
    let approver: Box<dyn Approver> = if args.yes {
        Box::new(ApproveAll)
    } else {
        Box::new(RefuseAll {
            note: Some(ONE_SHOT_REFUSAL_NOTE.to_owned()),
        })
    };
    // The signal watcher (installed before anything started) cancels the turn.
    let cancel = crate::signals::token().child_token();
    let ctx = TurnContext {
        events: &output,
        approver: approver.as_ref(),
        cancel,
    };
    let (session, conversation) = match agent.as_mut() {
        Some(agent) => (&agent.session, &mut agent.conversation),
        None => (&session, &mut prepared.conversation),
    };
    // `@SERVER:URI` mentions in the user's own text (not in piped material next to it, not in
    // attached files) are read now: one that cannot be read is an error before anything is
    // sent.
    let text = match session.expand_mentions(&message.own).await {
        Ok(own) => attachments.compose(&message.with_own(own)),
        Err(error) => {
            let error = CliError::failure(error.to_string());
            output.error(&error.message, error.code());
            if let Some(agent) = agent {
                agent.runtime.close().await;
            }
            runtime.shutdown().await;
            return Err(error);
        }
    };
    let message = Message::user_with_images(text, attachments.images);
    let progress = crate::ui::progress::line_observer(args.json);
    let turn = session.run_turn_message(conversation, message, &ctx);
    let result = coyote_mcp::progress::observe(progress, turn).await;
    output.finish();
    // Whatever happened, the conversation is valid: keep it in the session file.
    if let Err(error) = prepared.save() {
        output.error(&error.message, error.code());
    }
    if ctx.cancel.is_cancelled() {
        // The host sends `notifications/cancelled` for abandoned requests from detached tasks;
        // shutting the servers down at once would drop those messages. Bounded grace until the
        // runtime's shutdown drains them itself.
        tokio::time::sleep(crate::signals::CANCEL_FLUSH_GRACE).await;
    }
    if let Some(agent) = agent {
        agent.runtime.close().await;
    }
    runtime.shutdown().await;

    let outcome = match result {
        Ok(outcome) => outcome,
        Err(SessionError::Llm(error)) => {
            let error = CliError::failure(error.to_string());
            output.error(&error.message, error.code());
            return Err(error);
        }
    };
    match outcome.stop {
        StopReason::Answered => Ok(()),
        // The warning event already told the user.
        StopReason::MaxToolRounds { .. } => Err(CliError::silent()),
        StopReason::Cancelled => Err(crate::signals::stopped()),
    }
}

/// The message: the user's own text and the piped material beside it (stdin, unless `-f -`
/// attaches it).
struct Typed {
    /// The TEXT arguments, or piped stdin when there are none (then it is the message).
    own: String,
    /// Piped stdin next to TEXT arguments: material, sent inside `<stdin>` … `</stdin>`.
    material: Option<String>,
}

impl Typed {
    /// The message text with `own` (mentions expanded) for the user's text; the attached text
    /// files are added by [`Attachments::compose`].
    fn with_own(&self, own: String) -> String {
        match &self.material {
            Some(material) => input::compose(&[own], Some(material)).unwrap_or_default(),
            None => own,
        }
    }
}

/// The message ([`Typed`]) and the attachments (read off the runtime: files and stdin block).
async fn read_message(args: &ChatArgs) -> CliResult<(Typed, Attachments)> {
    let files = args.files.clone();
    let words = args.text.clone();
    tokio::task::spawn_blocking(move || {
        let stdin_attached = files.iter().any(|f| f == "-");
        let mut attachments = Attachments::default();
        let mut stdin = std::io::stdin().lock();
        for file in &files {
            let reader: Option<&mut dyn std::io::Read> =
                if file == "-" { Some(&mut stdin) } else { None };
            attachments.add(file, reader)?;
        }
        let piped = if stdin_attached || std::io::stdin().is_terminal() {
            None
        } else {
            Some(input::read_piped(&mut stdin)?)
        };
        let message = match input::compose(&words, piped.as_deref()) {
            // TEXT arguments: the user's text, with piped stdin as material.
            Ok(_) if input::compose(&words, None).is_ok() => Typed {
                own: words.join(" ").trim().to_owned(),
                material: piped.filter(|p| !p.trim().is_empty()),
            },
            // Piped stdin alone is the message.
            Ok(text) => Typed {
                own: text,
                material: None,
            },
            Err(_) if !attachments.is_empty() => Typed {
                own: String::new(),
                material: None,
            },
            Err(error) => return Err(error),
        };
        Ok((message, attachments))
    })
    .await
    .map_err(|e| CliError::failure(format!("cannot read the message: {e}")))?
}

fn output_mode(args: &ChatArgs, global: &GlobalArgs, app: &coyote_config::AppConfig) -> Mode {
    if args.json {
        return Mode::Json;
    }
    Mode::Text {
        answer: RenderOptions::for_stdout(global.raw, crate::setup::theme(global, app)),
        status_color: crate::term::caps().color_stderr,
        show_reasoning: args.show_reasoning,
    }
}
