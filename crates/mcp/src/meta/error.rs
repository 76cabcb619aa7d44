//! The dispatcher's error ([`DispatchError`]): why a meta-function call or a direct tool call
//! failed, worded for the model — what went wrong and what to call instead — plus whether it
//! is the caller's mistake ([`DispatchError::is_usage`]). Below the dispatcher, the argument
//! parser (`call`) and the actions, which all return it; it imports none of them.

use super::health::health_line;
use crate::catalog::CatalogKind;
use crate::error::McpError;
use crate::prompt::PromptArgsError;
use crate::render::RenderError;
use crate::server::ServerState;
use crate::uri_template::TemplateError;

/// Why a meta-function call failed. `Display` is written for the model: what went wrong and
/// what to call instead.
#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    /// The current request does not declare the name (whatever it looks like).
    #[error(
        "{name:?} is not a function you can call now; {}",
        callable_list(callable)
    )]
    NotDeclared {
        /// The name as called.
        name: String,
        /// The functions the current request declares.
        callable: Vec<String>,
    },
    /// The server cannot serve now; the text is its health line (what to tell the user).
    #[error("{}", health_line(server, state))]
    Unavailable {
        /// The server called.
        server: String,
        /// Its state.
        state: ServerState,
    },
    /// The arguments do not fit the function.
    #[error("{function}: {problem}")]
    BadArguments {
        /// The function called.
        function: String,
        /// What is wrong with the arguments.
        problem: String,
    },
    /// The item asked for is not in the server's catalog.
    #[error("{function}: {kind} {id:?} does not exist on server {server:?}; {hint}")]
    NotFound {
        /// The function called.
        function: String,
        /// The server asked.
        server: String,
        /// The kind of item asked for.
        kind: CatalogKind,
        /// Its id as given.
        id: String,
        /// What to call to find it.
        hint: String,
    },
    /// An item declared from the server's cached catalog is gone from the live one.
    #[error(
        "MCP server '{server}' changed its catalog since this request was declared: {kind} \
         {id:?} no longer exists. The next request declares what the server offers now; use \
         one of those."
    )]
    CatalogChanged {
        /// The server.
        server: String,
        /// The item's kind.
        kind: CatalogKind,
        /// Its id as called.
        id: String,
    },
    /// The server failed the request (in words for the model: a server waiting for sign-in says
    /// what to ask the user).
    #[error("{}", for_the_model(.0))]
    Server(#[from] McpError),
    /// Rendering the result failed.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A template could not be expanded.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// A prompt's arguments are incomplete.
    #[error(transparent)]
    PromptArguments(#[from] PromptArgsError),
}

/// A server error as the model reads it: a server waiting for sign-in says what to ask the user.
fn for_the_model(error: &McpError) -> String {
    match error {
        McpError::NeedsAuth { server } => health_line(server, &ServerState::NeedsAuth),
        McpError::NeedsScope { server, scope } => format!(
            "MCP server '{server}' needs more permissions (scope {scope}): ask the user to run \
             `coyote mcp login {server}`, then call it again."
        ),
        other => other.to_string(),
    }
}

impl DispatchError {
    /// A caller mistake (bad name or arguments) rather than a server or I/O failure — the CLI
    /// exits 2 for these, 1 for the rest.
    pub fn is_usage(&self) -> bool {
        match self {
            DispatchError::NotDeclared { .. }
            | DispatchError::BadArguments { .. }
            | DispatchError::NotFound { .. }
            | DispatchError::Template(_)
            | DispatchError::PromptArguments(_) => true,
            DispatchError::Render(e) => matches!(
                e,
                RenderError::InvalidPattern { .. } | RenderError::BadHandle { .. }
            ),
            DispatchError::Server(_)
            | DispatchError::Unavailable { .. }
            | DispatchError::CatalogChanged { .. } => false,
        }
    }
}

/// "callable functions: a, b, c" (or that there are none).
fn callable_list(callable: &[String]) -> String {
    if callable.is_empty() {
        "no functions are declared in this request".to_owned()
    } else {
        format!("the callable functions are: {}", callable.join(", "))
    }
}
