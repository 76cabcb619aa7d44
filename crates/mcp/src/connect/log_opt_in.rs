//! Server log messages at protocol 2026-07-28: `logging/setLevel` is gone, and a server sends
//! `notifications/message` only for requests that opt in through their own metadata
//! (`_meta["io.modelcontextprotocol/logLevel"]`). [`LogOptIn`] is the transport layer that
//! stamps every outgoing 2026-07-28 request with the connection's current threshold — the one
//! `--mcp-log-level` sets and `.mcp log` changes — so server logs work as they do at
//! 2025-11-25.
//!
//! Invariant: only requests that already carry 2026-07-28 metadata (rmcp adds it to every
//! request of a connection that negotiated 2026-07-28) are touched; a 2025-11-25 connection's
//! messages go out unchanged.
#![expect(
    deprecated,
    reason = "rmcp marks logging deprecated (SEP-2577); the 2026-07-28 opt-in is what servers implement"
)]

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{ClientRequest, GetMeta, JsonRpcMessage, LoggingLevel};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::client_handler::{Generations, McpLogLevel};

/// A transport whose 2026-07-28 requests opt in to server logs at the current threshold.
pub(crate) struct LogOptIn<T> {
    inner: T,
    generations: Arc<Generations>,
}

impl<T> LogOptIn<T> {
    pub(crate) fn new(inner: T, generations: Arc<Generations>) -> Self {
        LogOptIn { inner, generations }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for LogOptIn<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        mut item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &mut item {
            stamp(&mut request.request, self.generations.log_threshold.get());
        }
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Adds the log level to `request`'s metadata when it is a 2026-07-28 request.
pub(crate) fn stamp(request: &mut ClientRequest, level: McpLogLevel) {
    let modern = request
        .get_meta()
        .protocol_version()
        .is_some_and(|version| !version.has_initialize());
    if modern {
        request.get_meta_mut().set_log_level(wire_level(level));
    }
}

/// The wire spelling of `level`.
fn wire_level(level: McpLogLevel) -> LoggingLevel {
    match level {
        McpLogLevel::Debug => LoggingLevel::Debug,
        McpLogLevel::Info => LoggingLevel::Info,
        McpLogLevel::Notice => LoggingLevel::Notice,
        McpLogLevel::Warning => LoggingLevel::Warning,
        McpLogLevel::Error => LoggingLevel::Error,
        McpLogLevel::Critical => LoggingLevel::Critical,
        McpLogLevel::Alert => LoggingLevel::Alert,
        McpLogLevel::Emergency => LoggingLevel::Emergency,
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ListToolsRequest, PaginatedRequestParams, ProtocolVersion};

    use super::*;

    fn list(version: Option<ProtocolVersion>) -> ClientRequest {
        let mut request = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(
            PaginatedRequestParams::default(),
        ));
        if let Some(version) = version {
            request.get_meta_mut().set_protocol_version(version);
        }
        request
    }

    #[test]
    fn only_2026_07_28_requests_carry_the_level() {
        let mut modern = list(Some(ProtocolVersion::V_2026_07_28));
        stamp(&mut modern, McpLogLevel::Debug);
        assert_eq!(modern.get_meta().log_level(), Some(LoggingLevel::Debug));
        let json = serde_json::to_value(&modern).unwrap();
        assert_eq!(
            json["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
            "debug"
        );
        for version in [Some(ProtocolVersion::V_2025_11_25), None] {
            let mut legacy = list(version);
            stamp(&mut legacy, McpLogLevel::Debug);
            assert_eq!(legacy.get_meta().log_level(), None);
        }
    }
}
