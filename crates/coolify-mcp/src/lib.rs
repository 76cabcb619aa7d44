//! coolify-mcp: an MCP server for the Coolify self-hosted PaaS.
//!
//! The crate is a library plus a thin binary (`main.rs`) so tests can drive the server
//! in-process. `lib.rs` only declares modules and re-exports the entry points.
#![deny(clippy::print_stdout)]

pub mod audit;
pub mod backend;
pub mod backend_impl;
pub mod call;
pub mod call_ctx;
pub mod capabilities;
pub mod config;
pub mod confirm;
pub mod docs;
pub mod doctor;
pub mod follow;
pub mod http;
pub mod http_limits;
pub mod instances;
pub mod instructions;
pub mod json;
pub mod log_mask;
pub mod nonce;
pub mod oauth;
pub mod projection;
pub mod prompts;
pub mod request_state;
pub mod resources;
pub mod sanitize;
pub mod server;
pub mod shared;
pub mod state_url;
pub mod tasks;
pub mod tools;
pub mod untrusted;
pub mod wire;

pub use backend::{ApiError, ApiRequest, Backend, BackendFactory, HttpMethod};
pub use call_ctx::{Mode, Timing};
pub use config::{Command, Config, StartupError, Transport};
pub use server::{CoolifyServer, ServerOptions};

/// The version reported by `get_mcp_version` and `serverInfo`.
pub const MCP_SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The package name reported by `get_mcp_version`.
pub const MCP_PACKAGE_NAME: &str = "coolify-mcp";
