//! `coyote mcp login NAME` / `coyote mcp logout NAME`: the only commands that start or end a
//! sign-in. Login prints the authorization URL on stderr (and opens a browser), waits for the
//! redirect, stores the tokens, and says where; logout deletes them.

use coyote_config::{ConfigPaths, McpConfig};

use crate::exit::{CliError, CliResult};
use crate::setup;

pub async fn login(config: &McpConfig, paths: &ConfigPaths, name: &str) -> CliResult {
    let spec = single(config, name)?;
    let options = crate::client::RuntimeOptionsBuilder::new(paths).build();
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
    let deleted = coyote_mcp::auth::logout(&spec, &options)
        .await
        .map_err(|e| CliError::failure(e.to_string()))?;
    if deleted {
        crate::capture::stderr_line(&format!(
            "coyote: signed out of MCP server '{name}' (its tokens were deleted)"
        ));
    } else {
        crate::capture::stderr_line(&format!(
            "coyote: MCP server '{name}' had no stored sign-in"
        ));
    }
    Ok(())
}

fn single(config: &McpConfig, name: &str) -> CliResult<coyote_protocol::McpServerSpec> {
    setup::select(config, Some(name))?
        .into_iter()
        .next()
        .ok_or_else(|| CliError::usage(format!("unknown MCP server '{name}'")))
}
