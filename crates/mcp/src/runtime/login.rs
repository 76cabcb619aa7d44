//! `coyote mcp login NAME` (and the REPL's `.mcp login NAME`): the one place a person's
//! sign-in starts. It forgets the server's tokens (keeping coyote's client registration),
//! connects with an interactive [`SignIn`], lists the tools (a server may ask for sign-in only
//! there), and closes again; the tokens stay in the store for every later command.

use std::sync::Arc;

use coyote_protocol::McpServerSpec;

use super::RuntimeOptions;
use crate::connect::auth::{self, AuthContext, Authorizer, SignIn};
use crate::connect::{self, ConnectOptions};
use crate::error::McpError;
use crate::handle::{HandleParts, ServerHandle};
use crate::server::{ServerState, StateCell};

/// What a login did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginReport {
    /// The server's name in mcp.json.
    pub server: String,
    /// A sign-in (or a client-credentials grant) ran; `false`: the server never asked.
    pub signed_in: bool,
    /// Tools listed after signing in.
    pub tools: usize,
    /// Where the tokens are kept (for the message).
    pub store: String,
}

/// Signs in to `spec` through `authorizer`; see the module header.
pub async fn login(
    spec: McpServerSpec,
    options: RuntimeOptions,
    authorizer: Arc<dyn Authorizer>,
) -> Result<LoginReport, McpError> {
    auth::oauth_http_spec(&spec)?;
    let mut auth_options = options.auth.clone();
    auth_options.sign_in = SignIn::Interactive(authorizer);
    let login_timeout = auth_options.login_timeout;
    let context = Arc::new(AuthContext::new(auth_options));
    auth::forget_tokens(&spec, &context).await?;
    let connect_options = ConnectOptions {
        hooks: options.hooks(),
        max_message_bytes: options.max_message_bytes,
        auth: context.clone(),
        protocol: options.protocol,
        remembered: None,
        blob_spill: None,
    };
    let connection = connect::connect(&spec, &connect_options)
        .await
        .map_err(|failure| failure.error)?;
    let state = Arc::new(StateCell::new());
    state.set(ServerState::Ready);
    let handle = ServerHandle::new(HandleParts {
        name: spec.name.clone(),
        peer: connection.service.peer().clone(),
        transport: spec.transport.label(),
        pid: None,
        // A sign-in may happen inside the listing: give it the login's time.
        call_timeout: spec.timeouts.call + login_timeout,
        generations: connection.generations.clone(),
        state,
        ended: connection.ended.clone(),
        max_message_bytes: options.max_message_bytes,
        oauth: connection.auth.is_some(),
        inputs: connection.inputs.clone(),
    });
    let listed = handle.list_tools().await;
    let signed_in = connection.auth.as_ref().is_some_and(|a| a.signed_in());
    let store = match &connection.auth {
        Some(a) => a.cell.store_description(),
        None => String::new(),
    };
    connection.close(options.shutdown).await;
    let tools = listed?.len();
    Ok(LoginReport {
        server: spec.name,
        signed_in,
        tools,
        store,
    })
}
