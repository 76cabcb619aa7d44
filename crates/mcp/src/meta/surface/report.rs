//! `coyote mcp servers` / `.info`: one server's exposure as the next request would see it —
//! the same plan and declarations a request makes, without replacing the callable set.

use std::collections::BTreeSet;

use super::{Plan, Surface, plan_declarations};
use crate::meta::direct::DirectNames;
use crate::meta::exposure::{EffectiveExposure, ExposureReport, direct_tools, estimate_tokens};
use crate::meta::health::health_declaration;
use crate::meta::retrieve::RetrieveContext;
use crate::runtime::McpRuntime;
use crate::server::ServerState;

impl Surface {
    /// `coyote mcp servers` / `.info`: the server's exposure as the next request would see it.
    pub(crate) async fn report(&self, runtime: &McpRuntime, server: &str) -> ExposureReport {
        let configured = self.policies.get(server);
        let source = match Self::source(runtime, server) {
            Some(Ok(source)) => source,
            unavailable => {
                let state = match unavailable {
                    Some(Err(state)) => state,
                    Some(Ok(_)) | None => ServerState::Closed,
                };
                let declarations = vec![health_declaration(server, &state)];
                return ExposureReport {
                    configured,
                    effective: EffectiveExposure::Meta,
                    tools: None,
                    direct_tokens: None,
                    declared_tokens: estimate_tokens(&declarations),
                    declarations,
                };
            }
        };
        let listed = self.tool_listing(&source).await;
        let plan = self.plan(&source, &RetrieveContext::default()).await;
        let effective = match &plan {
            Plan::Direct { .. } => EffectiveExposure::Direct,
            Plan::Retrieve { .. } => EffectiveExposure::Retrieve,
            Plan::Meta { .. } | Plan::Unavailable { .. } => EffectiveExposure::Meta,
        };
        let names = match &plan {
            Plan::Direct {
                features, listed, ..
            }
            | Plan::Retrieve {
                features, listed, ..
            } => DirectNames::build(
                &direct_tools(&features.name, &listed.tools),
                &BTreeSet::new(),
            ),
            Plan::Meta { .. } | Plan::Unavailable { .. } => DirectNames::default(),
        };
        let declarations = plan_declarations(&plan, &names);
        ExposureReport {
            configured,
            effective,
            tools: listed.as_ref().map(|l| l.tools.len()),
            direct_tokens: listed.as_ref().map(|l| l.direct_tokens),
            declared_tokens: estimate_tokens(&declarations),
            declarations,
        }
    }
}
