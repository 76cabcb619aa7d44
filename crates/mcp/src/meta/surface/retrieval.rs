//! The `retrieve` exposure's part of the [`Surface`]: the budget a retrieve server's ranked
//! tools get beside its meta-functions, and the preview of what a request would declare
//! (`coyote mcp retrieve`). The ranking itself is [`super::super::retrieve`]'s, a pure
//! function; this block only feeds it the surface's listing and settings.

use coyote_protocol::RetrieveSettings;

use super::Surface;
use crate::meta::declarations::{Shape, ToolAccess, declare};
use crate::meta::direct::DirectNames;
use crate::meta::exposure::{DIRECT_MAX_TOKENS, direct_tools, estimate_tokens};
use crate::meta::retrieve::{RetrieveContext, Retrieved, named, select};
use crate::meta::{MetaKind, mcp_meta_function_names};
use crate::runtime::McpRuntime;
use crate::server::McpServerFeatures;

impl Surface {
    /// The server's retrieve settings, the ranked tools' budget cut so that they and the
    /// meta-functions (`kinds`) declared beside them stay within [`DIRECT_MAX_TOKENS`] — no more
    /// per request than a server `auto` declares directly.
    pub(in crate::meta) fn retrieve_settings(
        &self,
        features: &McpServerFeatures,
        kinds: &[MetaKind],
    ) -> RetrieveSettings {
        let mut settings = self.policies.retrieve(&features.name);
        let meta = estimate_tokens(&declare(&Shape {
            server: &features.name,
            kinds,
            tools: ToolAccess::Invoke,
            resources: features.resources,
            skills: None,
        }));
        settings.max_tokens = settings
            .max_tokens
            .min(DIRECT_MAX_TOKENS.saturating_sub(meta));
        settings
    }

    /// What `retrieve` would declare of `server` for `context` (whatever its exposure), with
    /// the function names a declaration set would give them; `None` when the server's tools
    /// cannot be listed now.
    pub(crate) async fn preview(
        &self,
        runtime: &McpRuntime,
        server: &str,
        context: &RetrieveContext,
    ) -> Option<Vec<Retrieved>> {
        let Some(Ok(source)) = Surface::source(runtime, server) else {
            return None;
        };
        let listed = self.tool_listing(&source).await?;
        let features = source.features();
        let settings = self.retrieve_settings(&features, &self.meta_kinds(&features));
        let chosen = select(server, &listed.tools, context, settings);
        let reserved = mcp_meta_function_names(server).into_iter().collect();
        let names = DirectNames::build(&direct_tools(server, &listed.tools), &reserved);
        Some(named(&chosen, &names))
    }
}
