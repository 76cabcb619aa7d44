//! Tab completion (docs/repl.md): dot-commands and their words from [`REPL_COMMANDS`], and
//! the live, staged completion of `.prompt`:
//!
//! | typed | suggestions | source |
//! |---|---|---|
//! | `.prompt <TAB>` | enabled, Ready, prompts-capable servers | local state, no RPC |
//! | `.prompt srv <TAB>` | srv's prompts with descriptions | `prompts/list`, live on every TAB |
//! | `.prompt srv name <TAB>` | `key=` per argument (description, `(required)`), typed keys excluded, no trailing space | the same live listing |
//! | `.role <TAB>`, `.macro <TAB>`, `.session load\|save <TAB>` | role, macro, session names | the config dir's files |
//! | `.mcp enable\|disable\|restart <TAB>` | configured servers | local state |
//!
//! Invariants:
//! - Completion never connects a new server and never authenticates. An idle (lazily started)
//!   server is started as on its first call ([`McpRuntime::acquire`]): while it starts, its
//!   prompts come from its cached catalog (and it is started for the next keypress); values
//!   (`completion/complete`) need it live, within the bound.
//! - One keypress is bounded as a whole by [`CompletionSource::rpc_timeout`] (default
//!   [`COMPLETION_RPC_TIMEOUT`], injectable) — every list and completion request of it
//!   together; on timeout or any error the suggestions are silently empty — a keystroke never
//!   shows an error or hangs the editor.
//! - No lock is held across an RPC: the handle is cloned out of the runtime first.
//! - Bridge: reedline's `Completer` is synchronous. The REPL loop runs on the main thread
//!   *outside* the runtime and blocks on each turn with `Handle::block_on`, so the completer may
//!   `block_on` too. If this ever runs inside a runtime thread, `block_in_place` is used (needs
//!   the multi-thread runtime that `main` builds).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use coyote_mcp::McpRuntime;
use reedline::{Completer, CompletionResult, Span, Suggestion};

use super::commands::{ListTarget, MCP_SUBCOMMANDS, REPL_COMMANDS};
use super::values::COMPLETION_RPC_TIMEOUT;
use super::words::quote_value;

mod mentions;
mod position;

use self::position::SESSION_SUBCOMMANDS;
pub use self::position::{DefinitionDir, Position, Stage, position};

/// Which servers are enabled in the current context (by default every configured one).
pub type EnabledFilter = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// One suggestion, before it is placed on the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub description: Option<String>,
    /// `false` for `key=` (the cursor lands ready for the value).
    pub append_whitespace: bool,
}

impl Candidate {
    fn word(value: &str, description: Option<&str>) -> Self {
        Candidate {
            value: value.to_owned(),
            description: description.map(str::to_owned),
            append_whitespace: true,
        }
    }
}

/// The data behind completion: the runtime (local state and live RPCs) and its bounds.
#[derive(Clone)]
pub struct CompletionSource {
    runtime: McpRuntime,
    enabled: EnabledFilter,
    rpc_timeout: Duration,
    /// Where role, macro and session names come from (`None`: not completed).
    config: Option<coyote_config::ConfigPaths>,
}

impl CompletionSource {
    pub fn new(runtime: McpRuntime, enabled: EnabledFilter) -> Self {
        CompletionSource {
            runtime,
            enabled,
            rpc_timeout: COMPLETION_RPC_TIMEOUT,
            config: None,
        }
    }

    /// Completes role, macro and session names from this config dir.
    pub fn with_config(mut self, paths: coyote_config::ConfigPaths) -> Self {
        self.config = Some(paths);
        self
    }

    /// Role, macro or session names (local files, no RPC).
    fn definition_names(&self, dir: DefinitionDir) -> Vec<Candidate> {
        let Some(paths) = self.config.as_ref() else {
            return Vec::new();
        };
        let names: Vec<(String, Option<String>)> = match dir {
            DefinitionDir::Roles => coyote_config::list_roles(&paths.roles_dir())
                .items
                .into_iter()
                .map(|r| (r.name, r.description))
                .collect(),
            DefinitionDir::Macros => {
                coyote_config::list_macros(&paths.macros_dir(), &super::macro_cmd::builtin_names())
                    .items
                    .into_iter()
                    .map(|m| (m.name, m.description))
                    .collect()
            }
            DefinitionDir::Sessions => coyote_config::SessionStore::new(paths.sessions_dir())
                .list()
                .into_iter()
                .map(|e| (e.name, None))
                .collect(),
        };
        names
            .into_iter()
            .map(|(name, description)| Candidate {
                value: name,
                description,
                append_whitespace: true,
            })
            .collect()
    }

    /// Replaces the RPC bound (tests).
    #[cfg(test)]
    pub fn with_rpc_timeout(mut self, timeout: Duration) -> Self {
        self.rpc_timeout = timeout;
        self
    }

    /// Candidates for a position, filtered by its partial word (prefix match); empty when the
    /// whole keypress does not finish within the bound.
    pub async fn candidates(&self, at: &Position) -> Vec<Candidate> {
        match tokio::time::timeout(self.rpc_timeout, self.unbounded_candidates(at)).await {
            Ok(candidates) => candidates,
            Err(_) => {
                tracing::debug!(timeout = ?self.rpc_timeout, "completion timed out");
                Vec::new()
            }
        }
    }

    async fn unbounded_candidates(&self, at: &Position) -> Vec<Candidate> {
        let all = match &at.stage {
            Stage::None => Vec::new(),
            Stage::Mention => return self.mention_candidates(&at.partial).await,
            Stage::Command => REPL_COMMANDS
                .iter()
                .map(|c| Candidate::word(c.word, Some(c.description)))
                .collect(),
            Stage::ListTarget => ListTarget::ALL
                .iter()
                .map(|(_, w)| Candidate::word(w, None))
                .collect(),
            Stage::McpSubcommand => MCP_SUBCOMMANDS
                .iter()
                .map(|w| Candidate::word(w, None))
                .collect(),
            Stage::McpServer => self
                .runtime
                .server_names()
                .iter()
                .map(|n| Candidate::word(n, None))
                .collect(),
            Stage::SessionSubcommand => SESSION_SUBCOMMANDS
                .iter()
                .map(|w| Candidate::word(w, None))
                .collect(),
            Stage::Definition(dir) => self.definition_names(*dir),
            Stage::PromptServer => self.prompt_servers(),
            Stage::PromptName { server } => self.prompt_names(server).await,
            Stage::PromptArgKey {
                server,
                prompt,
                typed_keys,
            } => self.argument_keys(server, prompt, typed_keys).await,
            Stage::PromptArgValue {
                server,
                prompt,
                key,
                given,
            } => {
                let typed = at.partial.split_once('=').map_or("", |(_, v)| v);
                // The server matches the prefix itself (it may match more loosely).
                return self
                    .argument_values(server, prompt, key, given, typed)
                    .await;
            }
        };
        all.into_iter()
            .filter(|c| c.value.starts_with(at.partial.as_str()))
            .collect()
    }

    /// Stage 1: enabled, Ready (or idle with a cached catalog), prompts-capable servers, from
    /// local state only (no RPC).
    pub fn prompt_servers(&self) -> Vec<Candidate> {
        self.runtime
            .server_features()
            .into_iter()
            .filter(|f| f.prompts && (self.enabled)(&f.name))
            .map(|f| Candidate::word(&f.name, None))
            .collect()
    }

    /// Stage 2: the server's prompts, listed live.
    pub async fn prompt_names(&self, server: &str) -> Vec<Candidate> {
        self.list_prompts(server)
            .await
            .into_iter()
            .map(|p| {
                let description = p.description.or(p.title);
                Candidate::word(&p.name, description.as_deref())
            })
            .collect()
    }

    /// Stage 3: `key=` for each argument of the prompt not typed yet.
    pub async fn argument_keys(
        &self,
        server: &str,
        prompt: &str,
        typed: &BTreeSet<String>,
    ) -> Vec<Candidate> {
        let prompts = self.list_prompts(server).await;
        let Some(found) = prompts.into_iter().find(|p| p.name == prompt) else {
            return Vec::new();
        };
        found
            .arguments
            .into_iter()
            .filter(|a| !typed.contains(&a.name))
            .map(|a| {
                let mut description = a.description.or(a.title).unwrap_or_default();
                if a.required {
                    if !description.is_empty() {
                        description.push(' ');
                    }
                    description.push_str("(required)");
                }
                Candidate {
                    value: format!("{}=", a.name),
                    description: (!description.is_empty()).then_some(description),
                    append_whitespace: false,
                }
            })
            .collect()
    }

    /// Stage 4: `key=value` for each value the server offers (`completion/complete` with the
    /// other typed arguments as context); empty when it offers no completion.
    pub async fn argument_values(
        &self,
        server: &str,
        prompt: &str,
        key: &str,
        given: &BTreeMap<String, String>,
        typed: &str,
    ) -> Vec<Candidate> {
        if !(self.enabled)(server) {
            return Vec::new();
        }
        // An idle server is started for it (the keypress's bound still holds).
        let Ok(handle) = self.runtime.acquire(server).await else {
            return Vec::new();
        };
        let mut context = given.clone();
        context.remove(key);
        let Some(values) = super::values::ArgumentValues::for_prompt(handle, prompt, key, context)
        else {
            return Vec::new();
        };
        values
            .with_timeout(self.rpc_timeout)
            .values(typed)
            .await
            .into_iter()
            .map(|v| Candidate::word(&format!("{key}={}", quote_value(&v)), None))
            .collect()
    }

    /// The live prompt list of an enabled, Ready, prompts-capable server; empty otherwise, on
    /// error and on timeout (silently: a keystroke never surfaces an error).
    async fn list_prompts(&self, server: &str) -> Vec<coyote_mcp::PromptInfo> {
        if !(self.enabled)(server) {
            return Vec::new();
        }
        // An idle server answers from its cached catalog now and is started for the next
        // keypress; any other state that is not Ready has nothing to offer.
        let Ok(handle) = self.runtime.server(server) else {
            let Some(cached) = self.runtime.cached_catalog(server) else {
                return Vec::new();
            };
            let (runtime, name) = (self.runtime.clone(), server.to_owned());
            tokio::spawn(async move {
                if let Err(error) = runtime.acquire(&name).await {
                    tracing::debug!(server = %name, %error, "completion could not start it");
                }
            });
            return if cached.features().prompts {
                cached.prompts.clone()
            } else {
                Vec::new()
            };
        };
        if !handle.features().prompts {
            return Vec::new();
        }
        match tokio::time::timeout(self.rpc_timeout, handle.list_prompts()).await {
            Ok(Ok(prompts)) => prompts,
            Ok(Err(error)) => {
                tracing::debug!(server, %error, "prompt completion: listing failed");
                Vec::new()
            }
            Err(_) => {
                tracing::debug!(server, timeout = ?self.rpc_timeout, "prompt completion timed out");
                Vec::new()
            }
        }
    }
}

/// How long the suggestions for one line and cursor are reused: reedline may ask more than
/// once for one keypress (menu and hint), and the keypress's bound must hold for all of them.
pub const SAME_KEYPRESS: Duration = Duration::from_secs(1);

/// The reedline adapter: synchronous `complete` over [`CompletionSource`].
pub struct ReplCompleter {
    source: CompletionSource,
    runtime: tokio::runtime::Handle,
    /// The last line, cursor, when, and what was suggested.
    last: Option<(String, usize, std::time::Instant, Vec<Suggestion>)>,
}

impl ReplCompleter {
    pub fn new(source: CompletionSource, runtime: tokio::runtime::Handle) -> Self {
        ReplCompleter {
            source,
            runtime,
            last: None,
        }
    }

    /// [`Self::suggestions`], reused for the same line and cursor within [`SAME_KEYPRESS`].
    pub fn suggestions_once(&mut self, line: &str, pos: usize) -> Vec<Suggestion> {
        if let Some((last_line, last_pos, at, found)) = &self.last
            && last_line == line
            && *last_pos == pos
            && at.elapsed() < SAME_KEYPRESS
        {
            return found.clone();
        }
        let found = self.suggestions(line, pos);
        self.last = Some((
            line.to_owned(),
            pos,
            std::time::Instant::now(),
            found.clone(),
        ));
        found
    }

    /// The suggestions for `line` with the cursor at `pos`.
    pub fn suggestions(&self, line: &str, pos: usize) -> Vec<Suggestion> {
        let at = position(line, pos);
        if at.stage == Stage::None {
            return Vec::new();
        }
        let future = self.source.candidates(&at);
        // Main-thread-block_on dependency: see the module docs.
        let candidates = if tokio::runtime::Handle::try_current().is_ok() {
            tokio::task::block_in_place(|| self.runtime.block_on(future))
        } else {
            self.runtime.block_on(future)
        };
        let span = Span::new(at.start, pos.min(line.len()));
        candidates
            .into_iter()
            // Names and descriptions come from servers: the menu draws them on the terminal.
            .map(|c| Suggestion {
                value: crate::term::sanitize(&c.value).into_owned(),
                description: c
                    .description
                    .map(|d| crate::term::sanitize(&d).into_owned()),
                span,
                append_whitespace: c.append_whitespace,
                ..Suggestion::default()
            })
            .collect()
    }
}

impl Completer for ReplCompleter {
    fn complete(&mut self, line: &str, pos: usize) -> CompletionResult {
        CompletionResult::fresh(self.suggestions_once(line, pos))
    }
}

#[cfg(test)]
#[path = "completer_tests.rs"]
mod tests;
