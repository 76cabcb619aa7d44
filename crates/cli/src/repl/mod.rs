//! The interactive REPL (`coyote` with no text on a terminal, or `coyote repl`).
//!
//! Threading: the reedline loop runs on the main thread, outside the
//! tokio runtime `main` built, and blocks on each turn with `Handle::block_on`. The completer
//! therefore may `block_on` a bounded RPC while the user presses Tab, and questions asked
//! during a turn (approval, elicitation) run `inquire` on a blocking thread while the turn's
//! future keeps running on the runtime.
//!
//! What a typed line does is decided once, by [`line::classify`]; `.prompt` results take the
//! other road, straight to the turn loop as a [`line::UserMessage`].
//!
//! Modules: `commands` (the REPL_COMMANDS table), `line` (typed line vs. chat message),
//! `completer`, `editor` (reedline), `prompt_cmd` (`.prompt`), `render` (turn output, drawn on
//! the shared [`crate::ui::screen::Screen`]; questions are [`crate::ui::questions`]), `views`
//! (`.info`, `.list`, `.mcp status`), `shell` (`!cmd`), `setup` (building the session from the
//! configuration).

pub mod agent_cmd;
mod client_cmd;
pub mod commands;
pub mod completer;
pub mod editor;
mod help;
pub mod line;
mod login_cmd;
pub mod macro_cmd;
mod outgoing;
pub mod prompt_cmd;
mod quiet_menu;
pub mod render;
mod scope_cmd;
pub mod session_cmd;
pub mod setup;
pub mod shell;
mod skills_cmd;
mod values;
pub mod views;
mod watch_cmd;
mod words;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use coyote_config::{AppConfig, ConfigPaths};
use coyote_mcp::{McpRuntime, SpillStore};
use coyote_protocol::McpServerSpec;
use coyote_session::{CancellationToken, Conversation, Session, StopReason, TurnContext};

use self::commands::{Command, ListTarget};
use self::completer::EnabledFilter;
use self::help::{fit_help, help_text};
use self::line::{LineAction, UserLine, UserMessage, classify};
use self::macro_cmd::Invocation;
use self::prompt_cmd::PromptContext;
use self::render::TurnRenderer;
use self::views::{InfoFacts, Listing, Redactor};
use crate::scope::{Scope, SharedSelection};
use crate::ui::questions::Questions;
use crate::ui::screen::Screen;

/// Bound of `.prompt`'s listing and `prompts/get` together.
pub const PROMPT_COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether the loop goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Exit,
}

/// Everything the REPL works with, built by [`setup`].
pub struct Repl {
    runtime_handle: tokio::runtime::Handle,
    session: Session,
    conversation: Conversation,
    screen: Screen,
    questions: Questions,
    specs: Vec<McpServerSpec>,
    spill: SpillStore,
    redactor: Redactor,
    app_config: Option<AppConfig>,
    history_file: PathBuf,
    log_file: Option<PathBuf>,
    /// Typed lines given a meaning by [`classify`] (a spy for the prompt-result test).
    classified_lines: usize,
    /// Role, agent, session and model choice (see `scope.rs`).
    scope: Scope,
    /// Where roles, macros and sessions live (`None` in tests without a config dir).
    paths: Option<ConfigPaths>,
    /// The session's server selection, shared with `.list` and completion.
    selection: SharedSelection,
    /// How deep macros are nested right now.
    macro_depth: usize,
    /// The running agent and the agent host (`.agent`, see `agent_cmd.rs`).
    agents: agent_cmd::AgentSlot,
    /// Files attached with `.file` for the next message.
    attachments: crate::attach::Attachments,
    /// `.watch`ed resources and their changes not yet told to the model.
    watches: watch_cmd::Watches,
}

/// The parts a [`Repl`] is made of.
pub struct ReplParts {
    pub runtime_handle: tokio::runtime::Handle,
    pub session: Session,
    pub screen: Screen,
    pub questions: Questions,
    pub specs: Vec<McpServerSpec>,
    pub spill: SpillStore,
    pub redactor: Redactor,
    pub app_config: Option<AppConfig>,
    pub history_file: PathBuf,
    pub log_file: Option<PathBuf>,
}

impl Repl {
    pub fn new(parts: ReplParts) -> Self {
        Repl {
            runtime_handle: parts.runtime_handle,
            conversation: Conversation::new(),
            screen: parts.screen,
            questions: parts.questions,
            specs: parts.specs,
            spill: parts.spill,
            redactor: parts.redactor,
            app_config: parts.app_config,
            history_file: parts.history_file,
            log_file: parts.log_file,
            classified_lines: 0,
            selection: Arc::new(std::sync::RwLock::new(
                parts.session.options().servers.clone(),
            )),
            session: parts.session,
            scope: Scope::default(),
            paths: None,
            macro_depth: 0,
            agents: agent_cmd::AgentSlot::default(),
            attachments: crate::attach::Attachments::default(),
            watches: watch_cmd::Watches::default(),
        }
    }

    /// Where roles, macros and sessions are read from and saved to.
    pub fn set_config_paths(&mut self, paths: ConfigPaths) {
        self.paths = Some(paths);
    }

    /// The current scope (role, agent layer, session, model choice).
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    pub fn runtime(&self) -> &McpRuntime {
        self.session.runtime()
    }

    #[cfg(test)]
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// How many typed lines went through the line classifier.
    #[cfg(test)]
    pub fn classified_lines(&self) -> usize {
        self.classified_lines
    }

    /// The enabled-server filter shared by completion and listings (the session's selection).
    pub fn enabled_filter(&self) -> EnabledFilter {
        // Read at each use, so `.role` and `.mcp enable|disable` reach completion too.
        let selection = self.selection.clone();
        Arc::new(move |name: &str| {
            selection
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .includes(name)
        })
    }

    /// Handles one typed line.
    pub fn handle_line(&mut self, line: UserLine) -> Flow {
        self.classified_lines += 1;
        match classify(line) {
            Ok(LineAction::Nothing) => Flow::Continue,
            Ok(LineAction::Chat(message)) => {
                self.chat(message);
                Flow::Continue
            }
            Ok(LineAction::Shell(command)) => {
                shell::run(&command, &self.screen);
                Flow::Continue
            }
            Ok(LineAction::Command(command)) => self.command(command),
            Ok(LineAction::Macro { name, args }) => self.run_macro(&name, &args, Invocation::Bare),
            Err(error) => {
                self.screen.line(&format!("coyote: {error}"));
                Flow::Continue
            }
        }
    }

    fn print(&self, text: &str) {
        self.screen.text(text);
        self.screen.finish();
    }

    fn command(&mut self, command: Command) -> Flow {
        let enabled = self.enabled_filter();
        match command {
            Command::Exit => return Flow::Exit,
            Command::Help => {
                let width = crate::term::caps().stdout_width().unwrap_or(usize::MAX);
                self.print(&fit_help(&help_text(), width));
            }
            Command::Clear => {
                self.conversation.clear();
                self.print("Started a new conversation.\n");
            }
            Command::Model(None) => {
                self.print(&format!("{}\n", self.session.model_label()));
            }
            Command::Model(Some(name)) => self.switch_model(&name),
            Command::Info => {
                let servers = views::servers(self.runtime(), &*enabled, &self.redactor);
                let exposure = self.runtime_handle.block_on(views::exposure(
                    self.session.dispatcher(),
                    &*enabled,
                    &self.redactor,
                ));
                let servers = format!("{servers}{exposure}");
                let usage = self.conversation.usage;
                let facts = InfoFacts {
                    model: self.session.model_label(),
                    usage_input: usage.input,
                    usage_output: usage.output,
                    discarded: (usage.discarded_attempts, usage.discarded_input_estimate),
                    messages: self.conversation.messages.len(),
                    always_approved: self.session.always_approved(),
                    history_file: self.history_file.display().to_string(),
                    log_file: self.log_file.as_ref().map(|p| p.display().to_string()),
                };
                let info = views::info(&facts, &servers, &self.redactor);
                // The scope lines go right after the model/messages/tokens block.
                let scope = self.redactor.redact(&self.scope_info());
                self.print(&format!("{scope}{info}"));
            }
            Command::List(ListTarget::Roles) => self.print(&self.list_roles()),
            Command::List(ListTarget::Macros) => self.print(&self.list_macros()),
            Command::List(ListTarget::Agents) => {
                let text = self.list_agents();
                self.print(&text);
            }
            Command::List(ListTarget::McpServers) | Command::McpStatus => {
                self.print(&views::servers(self.runtime(), &*enabled, &self.redactor));
            }
            Command::List(target) => {
                let what = match target {
                    ListTarget::Tools => Listing::Tools,
                    ListTarget::Prompts => Listing::Prompts,
                    ListTarget::Resources
                    | ListTarget::McpServers
                    | ListTarget::Roles
                    | ListTarget::Macros
                    | ListTarget::Agents => Listing::Resources,
                };
                let runtime = self.runtime().clone();
                let text = self.runtime_handle.block_on(views::list(
                    &runtime,
                    &*enabled,
                    what,
                    &self.redactor,
                ));
                self.print(&text);
            }
            Command::McpRestart(name) => self.restart(&name),
            Command::McpLogin(name) => self.login(&name),
            Command::McpLog { server, level } => self.mcp_log_command(&server, &level),
            Command::Roots(roots) => self.roots_command(&roots),
            Command::Watch(watch) => self.watch_command(watch),
            Command::Skills(server) => {
                let runtime = self.runtime().clone();
                let only = server.as_deref();
                let text = self.runtime_handle.block_on(skills_cmd::skills(
                    &runtime,
                    &*enabled,
                    only,
                    &self.redactor,
                ));
                self.print(&text);
            }
            Command::McpToggle(toggle) => self.mcp_toggle(&toggle),
            Command::Role(name) => self.role_command(name.as_deref()),
            Command::Agent(name) => self.agent_command(name.as_deref()),
            Command::Macro { name, args } => {
                return self.run_macro(&name, &args, Invocation::Explicit);
            }
            Command::Session(session) => self.session_command(&session),
            Command::File(path) => match self.attachments.add(&path, None) {
                Ok(()) => self.print(&format!(
                    "Attached {path}; it goes with your next message.\n"
                )),
                Err(error) => self.screen.line(&format!("coyote: {}", error.message)),
            },
            Command::Reasoning => {
                let text = self.screen.reasoning();
                if text.is_empty() {
                    self.print("No reasoning yet: the model has not streamed any.\n");
                } else {
                    self.print(&format!("{}\n", text.trim_end()));
                }
            }
            Command::Compact => self.compact_command(),
            Command::Prompt(args) => match self.resolve_prompt(&args) {
                Ok(message) => self.chat(message),
                Err(error) => self.screen.line(&format!(
                    "coyote: {}",
                    self.redactor.redact(&error.to_string())
                )),
            },
        }
        Flow::Continue
    }

    /// `.prompt`: the flattened result as a [`UserMessage`] (never a [`UserLine`]).
    pub fn resolve_prompt(
        &self,
        args: &str,
    ) -> Result<UserMessage, prompt_cmd::PromptCommandError> {
        let enabled = self.enabled_filter();
        let ctx = PromptContext {
            runtime: self.runtime(),
            spill: &self.spill,
            asker: &self.questions,
            enabled: &*enabled,
            timeout: PROMPT_COMMAND_TIMEOUT,
        };
        self.runtime_handle
            .block_on(prompt_cmd::resolve(args, &ctx))
    }

    fn restart(&mut self, name: &str) {
        let Some(spec) = self.specs.iter().find(|s| s.name == name).cloned() else {
            let known: Vec<&str> = self.specs.iter().map(|s| s.name.as_str()).collect();
            self.screen.line(&format!(
                "coyote: unknown MCP server '{name}'; configured: {}",
                known.join(", ")
            ));
            return;
        };
        let runtime = self.runtime().clone();
        let closed = self
            .runtime_handle
            .block_on(async { runtime.close_server(name).await });
        if !closed && runtime.state(name).is_some() {
            self.screen.line(&format!(
                "coyote: MCP server '{name}' is still starting; try again once it is ready or failed"
            ));
            return;
        }
        let _guard = self.runtime_handle.enter();
        runtime.spawn_start(vec![spec]);
        self.print(&format!(
            "Restarting MCP server '{name}' in the background; see `.mcp status`.\n"
        ));
    }

    fn switch_model(&mut self, requested: &str) {
        if self.app_config.is_none() {
            self.screen
                .line("coyote: no model configuration is loaded; see config.yaml");
            return;
        }
        // An explicit choice wins over the role's and agent's model (scope.rs).
        let mut scope = self.scope.clone();
        scope.model_override = Some(requested.to_owned());
        match self.apply_scope(scope) {
            Ok(()) => self.print(&format!("Model: {}\n", self.session.model_label())),
            Err(error) => self.screen.line(&format!("coyote: {error}")),
        }
    }

    /// Runs one turn for `message`; Ctrl-C cancels it (the REPL stays usable).
    pub fn chat(&mut self, message: UserMessage) {
        tracing::info!(origin = ?message.origin(), "user message");
        let Some(message) = self.outgoing(message) else {
            return;
        };
        let cancel = CancellationToken::new();
        self.questions.set_turn(Some(cancel.clone()));
        self.screen.set_in_turn(true);
        let renderer = TurnRenderer::new(self.screen.clone());
        let _spinner = self.screen.spinner_task(&self.runtime_handle);
        let progress = self.screen.progress_observer();
        let session = &self.session;
        let conversation = &mut self.conversation;
        let approver = &self.questions;
        let outcome = self.runtime_handle.block_on(async {
            let ctx = TurnContext {
                events: &renderer,
                approver,
                cancel: cancel.clone(),
            };
            let turn = session.run_turn_message(conversation, message, &ctx);
            let turn = coyote_mcp::progress::observe(progress, turn);
            tokio::pin!(turn);
            let mut interrupts = interrupt_signals();
            loop {
                tokio::select! {
                    outcome = &mut turn => break outcome,
                    () = next_interrupt(&mut interrupts) => cancel.cancel(),
                }
            }
        });
        self.questions.set_turn(None);
        self.screen.finish();
        self.screen.set_in_turn(false);
        self.autosave();
        match outcome {
            Ok(outcome) => {
                if outcome.stop == StopReason::Cancelled {
                    tracing::info!("turn cancelled by the user");
                }
            }
            Err(error) => self.screen.line(&format!(
                "coyote: {}",
                self.redactor.redact(&error.to_string())
            )),
        }
    }

    /// Closes every server (bounded); call before leaving.
    pub fn shutdown(&mut self) {
        self.unwatch(None);
        // An agent's own servers first (released through the factory), then the app's.
        self.leave_agent();
        let runtime = self.runtime().clone();
        self.runtime_handle.block_on(runtime.shutdown());
    }
}

/// SIGINT deliveries from now on (a fresh listener never sees earlier ones). `None` when
/// signals cannot be watched; then Ctrl-C cannot cancel a turn.
pub(crate) fn interrupt_signals() -> Option<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok()
}

pub(crate) async fn next_interrupt(signals: &mut Option<tokio::signal::unix::Signal>) {
    match signals {
        Some(s) => {
            if s.recv().await.is_none() {
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending::<()>().await,
    }
}

/// Reads lines until `.exit` or Ctrl-D.
pub fn run_loop(repl: &mut Repl, editor: &mut reedline::Reedline) {
    let prompt = editor::ReplPrompt;
    loop {
        let input = match editor.read_line(&prompt) {
            Ok(signal) => editor::Input::from(signal),
            Err(error) => {
                crate::term::error_line(&format!("the terminal failed: {error}"));
                break;
            }
        };
        match input {
            editor::Input::Line(text) => {
                if repl.handle_line(UserLine::typed(text)) == Flow::Exit {
                    break;
                }
            }
            editor::Input::Interrupted => continue,
            editor::Input::Exit => break,
        }
    }
}

#[cfg(test)]
mod test_repl;

#[cfg(test)]
#[path = "repl_tests.rs"]
mod tests;
