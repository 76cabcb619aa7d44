//! A prompt argument's values from its server (`completion/complete`), for `.prompt … key=<TAB>`
//! and for the question that asks a missing argument: the typed prefix and the arguments
//! already given (as `context`, so a dependent argument gets values that fit them), bounded by
//! [`COMPLETION_RPC_TIMEOUT`] and silent on failure — a keystroke never shows an error.
//! Only a server that advertises `completions` is asked.

use std::collections::BTreeMap;
use std::time::Duration;

use coyote_mcp::{CompletionRef, ServerHandle};

/// Bound of one keypress's completion, all its requests together (docs/repl.md: 2 s); the
/// completer's and this module's.
pub const COMPLETION_RPC_TIMEOUT: Duration = Duration::from_secs(2);

/// Where one argument's values come from.
#[derive(Clone)]
pub struct ArgumentValues {
    handle: ServerHandle,
    prompt: String,
    argument: String,
    context: BTreeMap<String, String>,
    timeout: Duration,
}

impl std::fmt::Debug for ArgumentValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgumentValues")
            .field("server", &self.handle.name())
            .field("prompt", &self.prompt)
            .field("argument", &self.argument)
            .finish_non_exhaustive()
    }
}

impl ArgumentValues {
    /// `None` when the server offers no completion.
    pub fn for_prompt(
        handle: ServerHandle,
        prompt: &str,
        argument: &str,
        context: BTreeMap<String, String>,
    ) -> Option<Self> {
        handle.features().completions.then(|| ArgumentValues {
            handle,
            prompt: prompt.to_owned(),
            argument: argument.to_owned(),
            context,
            timeout: COMPLETION_RPC_TIMEOUT,
        })
    }

    /// Replaces the bound (the completer's own, injectable in tests).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The server's values for `prefix`; empty on error or timeout.
    pub async fn values(&self, prefix: &str) -> Vec<String> {
        let target = CompletionRef::Prompt(self.prompt.clone());
        let request = self
            .handle
            .complete_with(target, &self.argument, prefix, &self.context);
        match tokio::time::timeout(self.timeout, request).await {
            Ok(Ok(found)) => found.values,
            Ok(Err(error)) => {
                tracing::debug!(server = self.handle.name(), %error, "value completion failed");
                Vec::new()
            }
            Err(_) => {
                tracing::debug!(server = self.handle.name(), "value completion timed out");
                Vec::new()
            }
        }
    }
}

/// The question's autocompleter: runs on the question's blocking thread, so it may block on
/// the runtime; the last answer is kept, so redraws for the same input ask once.
#[derive(Clone)]
pub struct QuestionValues {
    values: ArgumentValues,
    runtime: tokio::runtime::Handle,
    last: Option<(String, Vec<String>)>,
}

impl QuestionValues {
    pub fn new(values: ArgumentValues, runtime: tokio::runtime::Handle) -> Self {
        QuestionValues {
            values,
            runtime,
            last: None,
        }
    }

    fn lookup(&mut self, input: &str) -> Vec<String> {
        if let Some((typed, found)) = &self.last
            && typed == input
        {
            return found.clone();
        }
        let found: Vec<String> = self
            .runtime
            .block_on(self.values.values(input))
            .into_iter()
            // Server text shown in the question's list.
            .map(|v| crate::term::sanitize(&v).into_owned())
            .collect();
        self.last = Some((input.to_owned(), found.clone()));
        found
    }
}

impl inquire::Autocomplete for QuestionValues {
    fn get_suggestions(&mut self, input: &str) -> Result<Vec<String>, inquire::CustomUserError> {
        Ok(self.lookup(input))
    }

    fn get_completion(
        &mut self,
        input: &str,
        highlighted: Option<String>,
    ) -> Result<inquire::autocompletion::Replacement, inquire::CustomUserError> {
        if highlighted.is_some() {
            return Ok(highlighted);
        }
        let found = self.lookup(input);
        Ok(match found.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        })
    }
}
