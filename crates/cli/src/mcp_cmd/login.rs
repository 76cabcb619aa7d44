//! `coyote mcp login NAME` / `coyote mcp logout NAME`: the only commands that start or end a
//! sign-in. Login prints the authorization URL on stderr (and opens a browser), waits for the
//! redirect, stores the tokens, and says where (a grant without a browser says each step);
//! logout revokes them at the authorization server where it can, deletes them, and says which.

use coyote_config::{ConfigPaths, McpConfig};
use coyote_mcp::auth::Revocation;

use crate::exit::{CliError, CliResult};
use crate::setup;

pub async fn login(config: &McpConfig, paths: &ConfigPaths, name: &str) -> CliResult {
    let spec = single(config, name)?;
    let mut options = crate::client::RuntimeOptionsBuilder::new(paths).build();
    options.auth.progress = Some(std::sync::Arc::new(|step: &str| {
        crate::capture::stderr_line(&format!("coyote: {step}"));
    }));
    let report = coyote_mcp::login(spec, options, setup::login_authorizer())
        .await
        .map_err(|e| CliError::failure(e.to_string()))?;
    if report.signed_in {
        crate::capture::stderr_line(&format!(
            "coyote: signed in to MCP server '{name}' ({} tools); the tokens are kept in {}",
            report.tools, report.store
        ));
    } else {
        crate::capture::stderr_line(&format!(
            "coyote: MCP server '{name}' answered without asking for sign-in ({} tools); \
             nothing was stored",
            report.tools
        ));
    }
    Ok(())
}

pub async fn logout(config: &McpConfig, paths: &ConfigPaths, name: &str) -> CliResult {
    let spec = single(config, name)?;
    let options = crate::client::auth_options(paths);
    let report = coyote_mcp::auth::logout(&spec, &options)
        .await
        .map_err(|e| CliError::failure(e.to_string()))?;
    let line = match (&report.revocation, report.forgot) {
        (_, false) => format!("coyote: MCP server '{name}' had no stored sign-in"),
        (Revocation::Revoked { endpoint }, true) => format!(
            "coyote: signed out of MCP server '{name}' (its tokens were revoked at {endpoint} \
             and deleted)"
        ),
        (Revocation::NotOffered, true) => format!(
            "coyote: signed out of MCP server '{name}' (its tokens were deleted; its \
             authorization server offers no revocation, so they stay valid until they expire)"
        ),
        (Revocation::Failed { endpoint, answer }, true) => format!(
            "coyote: signed out of MCP server '{name}' (its tokens were deleted, but revoking \
             them at {endpoint} failed: {answer}; they stay valid until they expire)"
        ),
        (_, true) => format!("coyote: signed out of MCP server '{name}' (its sign-in was deleted)"),
    };
    crate::capture::stderr_line(&line);
    Ok(())
}

fn single(config: &McpConfig, name: &str) -> CliResult<coyote_protocol::McpServerSpec> {
    setup::select(config, Some(name))?
        .into_iter()
        .next()
        .ok_or_else(|| CliError::usage(format!("unknown MCP server '{name}'")))
}
