//! Domain types shared by every coyote crate: MCP server specs and the function declarations
//! a model sees. Plain data with serde only — no I/O, no tokio, no rmcp (ARCHITECTURE.md).

pub mod function;
pub mod server;

pub use function::FunctionDeclaration;
pub use server::{
    ApprovalPolicy, Exposure, HttpSpec, McpServerSpec, McpTransport, StdioSpec, Timeouts,
    redact_url,
};
