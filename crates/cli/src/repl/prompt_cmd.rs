//! `.prompt SERVER NAME [key=value …]`: named arguments (values may be
//! quoted), missing required arguments asked for interactively, and the flattened result
//! returned as a [`UserMessage`] for the turn loop.
//!
//! Invariant: the result leaves this module only as a `UserMessage`, which the line
//! classifier cannot accept — server-controlled text is chatted, never executed.

use std::collections::BTreeMap;
use std::time::Duration;

use coyote_mcp::prompt::{DeclaredArgument, KvParseError, missing_required, parse_kv_args};
use coyote_mcp::{McpError, McpRuntime, MetaKind, PromptInfo, RenderContext, SpillStore};
use futures::future::BoxFuture;

use super::line::UserMessage;
use super::values::{ArgumentValues, QuestionValues};
use crate::term::sanitize;
use crate::ui::questions::{Interactivity, Questions};

/// Asks the user for one missing argument; `None` when they gave up (Esc, Ctrl-C, no
/// terminal). `values` offers the server's values as the user types, when it completes.
pub trait ArgumentAsker: Send + Sync {
    fn ask(
        &self,
        prompt: &str,
        argument: &MissingArgument,
        values: Option<ArgumentValues>,
    ) -> BoxFuture<'_, Option<String>>;
}

/// A required argument the user did not type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingArgument {
    pub name: String,
    pub description: Option<String>,
}

/// Why `.prompt` did not produce a message; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum PromptCommandError {
    #[error("usage: .prompt SERVER NAME [key=value …] (Tab completes servers, prompts and keys)")]
    Usage,
    #[error("{0}")]
    Arguments(#[from] KvParseError),
    #[error(transparent)]
    Server(#[from] McpError),
    #[error(
        "MCP server '{server}' is not enabled in this conversation; `.mcp enable {server}` to \
         use it"
    )]
    NotEnabled { server: String },
    #[error("MCP server '{server}' does not offer prompts; see `.list prompts`")]
    NoPrompts { server: String },
    #[error(
        "MCP server '{server}' has no prompt '{name}'; its prompts: {}",
        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
    )]
    UnknownPrompt {
        server: String,
        name: String,
        known: Vec<String>,
    },
    #[error(
        "prompt '{name}' does not take {}; it takes: {}",
        unknown.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "),
        if declared.is_empty() { "no arguments".to_owned() } else { declared.join(", ") }
    )]
    UnknownArguments {
        name: String,
        unknown: Vec<String>,
        declared: Vec<String>,
    },
    #[error("prompt '{name}' needs {}; nothing was sent", missing.join(", "))]
    MissingArguments { name: String, missing: Vec<String> },
}

/// What `.prompt` needs besides the typed arguments.
pub struct PromptContext<'a> {
    pub runtime: &'a McpRuntime,
    pub spill: &'a SpillStore,
    pub asker: &'a dyn ArgumentAsker,
    /// The conversation's server selection: `.prompt` obeys it like the model's calls do.
    pub enabled: &'a (dyn Fn(&str) -> bool + Send + Sync),
    /// Bound of the prompt listing and of `prompts/get` together (the server's own call
    /// timeout applies to each request as well).
    pub timeout: Duration,
}

/// Parses `.prompt`'s arguments, asks for the missing ones, gets the prompt and flattens it.
pub async fn resolve(
    args: &str,
    ctx: &PromptContext<'_>,
) -> Result<UserMessage, PromptCommandError> {
    let (server, rest) = next_word(args).ok_or(PromptCommandError::Usage)?;
    let (name, rest) = next_word(rest).ok_or(PromptCommandError::Usage)?;
    let mut provided = parse_kv_args(rest)?;
    if ctx.runtime.state(server).is_some() && !(ctx.enabled)(server) {
        return Err(PromptCommandError::NotEnabled {
            server: server.to_owned(),
        });
    }
    // An idle server (declared from its cached catalog) starts now.
    let handle = ctx.runtime.acquire(server).await?;
    if !handle.features().prompts {
        return Err(PromptCommandError::NoPrompts {
            server: server.to_owned(),
        });
    }
    let prompts = bounded(ctx.timeout, server, "prompts/list", handle.list_prompts()).await?;
    let prompt = find_prompt(server, name, prompts)?;
    check_known(&prompt, &provided)?;
    ask_missing(&handle, &prompt, &mut provided, ctx.asker).await?;
    let result = bounded(
        ctx.timeout,
        server,
        "prompts/get",
        handle.get_prompt(name, provided),
    )
    .await?;
    let flattened = coyote_mcp::prompt::flatten(
        &result,
        &RenderContext {
            server,
            spill: ctx.spill,
            read_function: &MetaKind::Read.function_name(server),
            max_result_bytes: coyote_mcp::render::MAX_RESULT_BYTES,
        },
    );
    Ok(UserMessage::from_prompt(server, name, flattened))
}

/// The first whitespace-separated word and the rest.
fn next_word(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    if s.is_empty() {
        return None;
    }
    Some(match s.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest),
        None => (s, ""),
    })
}

async fn bounded<T>(
    timeout: Duration,
    server: &str,
    method: &str,
    future: impl Future<Output = Result<T, McpError>>,
) -> Result<T, McpError> {
    tokio::time::timeout(timeout, future)
        .await
        .unwrap_or_else(|_| {
            Err(McpError::Timeout {
                server: server.to_owned(),
                phase: coyote_mcp::TimeoutPhase::Call {
                    method: method.to_owned(),
                },
                after: timeout,
            })
        })
}

fn find_prompt(
    server: &str,
    name: &str,
    prompts: Vec<PromptInfo>,
) -> Result<PromptInfo, PromptCommandError> {
    let known: Vec<String> = prompts.iter().map(|p| p.name.clone()).collect();
    prompts
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| PromptCommandError::UnknownPrompt {
            server: server.to_owned(),
            name: name.to_owned(),
            known,
        })
}

fn check_known(
    prompt: &PromptInfo,
    provided: &BTreeMap<String, String>,
) -> Result<(), PromptCommandError> {
    let declared: Vec<String> = prompt.arguments.iter().map(|a| a.name.clone()).collect();
    let unknown: Vec<String> = provided
        .keys()
        .filter(|k| !declared.contains(k))
        .cloned()
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(PromptCommandError::UnknownArguments {
            name: prompt.name.clone(),
            unknown,
            declared,
        })
    }
}

async fn ask_missing(
    handle: &coyote_mcp::ServerHandle,
    prompt: &PromptInfo,
    provided: &mut BTreeMap<String, String>,
    asker: &dyn ArgumentAsker,
) -> Result<(), PromptCommandError> {
    let declared: Vec<DeclaredArgument<'_>> = prompt
        .arguments
        .iter()
        .map(|a| DeclaredArgument {
            name: &a.name,
            description: a.description.as_deref(),
            required: a.required,
        })
        .collect();
    let missing: Vec<MissingArgument> = missing_required(provided, &declared)
        .into_iter()
        .map(|a| MissingArgument {
            name: a.name.to_owned(),
            description: a.description.map(str::to_owned),
        })
        .collect();
    for (i, argument) in missing.iter().enumerate() {
        let values = ArgumentValues::for_prompt(
            handle.clone(),
            &prompt.name,
            &argument.name,
            provided.clone(),
        );
        match asker.ask(&prompt.name, argument, values).await {
            Some(value) => {
                provided.insert(argument.name.clone(), value);
            }
            None => {
                return Err(PromptCommandError::MissingArguments {
                    name: prompt.name.clone(),
                    missing: missing[i..].iter().map(|a| a.name.clone()).collect(),
                });
            }
        }
    }
    Ok(())
}

/// The terminal's questions ask for a missing argument too, offering the server's values as
/// the user types.
impl ArgumentAsker for Questions {
    fn ask(
        &self,
        prompt: &str,
        argument: &MissingArgument,
        values: Option<ArgumentValues>,
    ) -> BoxFuture<'_, Option<String>> {
        // The server's values as the user types (the question runs on a blocking thread).
        let runtime = tokio::runtime::Handle::try_current().ok();
        let values = values
            .zip(runtime)
            .map(|(v, runtime)| QuestionValues::new(v, runtime));
        let label = sanitize(&format!("{} for prompt `{prompt}`", argument.name)).into_owned();
        let help = argument
            .description
            .as_deref()
            .map(|d| sanitize(d).into_owned());
        Box::pin(async move {
            if self.mode() == Interactivity::None {
                return None;
            }
            self.blocking(move || {
                let mut text = inquire::Text::new(&label).with_validator(|t: &str| {
                    Ok(if t.is_empty() {
                        inquire::validator::Validation::Invalid("required".into())
                    } else {
                        inquire::validator::Validation::Valid
                    })
                });
                if let Some(help) = help.as_deref() {
                    text = text.with_help_message(help);
                }
                if let Some(values) = values {
                    text = text.with_autocomplete(values);
                }
                text.prompt().ok()
            })
            .await
            .flatten()
        })
    }
}

#[cfg(test)]
#[path = "prompt_cmd_tests.rs"]
mod tests;
