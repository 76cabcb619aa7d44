//! The handshake result (rmcp's `ServerPeerInfo`) → our [`ServerInfo`]: what the server said
//! about itself and which capabilities it advertised.

use rmcp::model::ServerPeerInfo;

use crate::server::{ServerCapabilityFlags, ServerInfo};

/// What the server said about itself; only the transport and pid when the handshake result is
/// unavailable.
pub(crate) fn server_info(
    peer: Option<&ServerPeerInfo>,
    transport: &str,
    pid: Option<u32>,
) -> ServerInfo {
    let Some(peer) = peer else {
        return ServerInfo {
            transport: transport.to_owned(),
            pid,
            ..ServerInfo::default()
        };
    };
    let caps = &peer.capabilities;
    ServerInfo {
        protocol_version: Some(peer.protocol_version.as_str().to_owned()),
        server_name: peer.server_info.as_ref().map(|i| i.name.clone()),
        server_version: peer.server_info.as_ref().map(|i| i.version.clone()),
        server_title: peer.server_info.as_ref().and_then(|i| i.title.clone()),
        instructions: peer.instructions.clone(),
        capabilities: ServerCapabilityFlags {
            tools: caps.tools.is_some(),
            tools_list_changed: caps
                .tools
                .as_ref()
                .and_then(|t| t.list_changed)
                .unwrap_or(false),
            resources: caps.resources.is_some(),
            resources_subscribe: caps
                .resources
                .as_ref()
                .and_then(|r| r.subscribe)
                .unwrap_or(false),
            resources_list_changed: caps
                .resources
                .as_ref()
                .and_then(|r| r.list_changed)
                .unwrap_or(false),
            prompts: caps.prompts.is_some(),
            prompts_list_changed: caps
                .prompts
                .as_ref()
                .and_then(|p| p.list_changed)
                .unwrap_or(false),
            completions: caps.completions.is_some(),
            logging: caps.logging.is_some(),
            skills: caps.supports_skills(),
            tasks: false,
        },
        transport: transport.to_owned(),
        pid,
    }
}
