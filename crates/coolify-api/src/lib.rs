//! coolify-api: a typed client for the Coolify REST API (`/api/v1`), with no MCP in it.
//!
//! One [`CoolifyClient`] per Coolify instance. Build it with [`CoolifyClient::builder`]
//! (base URL + [`TokenSpec`], extra headers, timeouts); call the endpoint methods (raw
//! `serde_json::Value` bodies, plus `*_typed` variants backed by [`models`]). Ids can never
//! change the request path ([`ApiPath`]); errors are [`ApiError`] and never contain the token.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod client;
pub mod endpoints;
mod error;
mod hints;
pub mod models;
mod path;
pub mod probe;
#[cfg(test)]
mod tls_tests;
mod token;

pub use client::{
    ClientBuilder, CoolifyClient, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TIMEOUT_SETTING, HttpMethod, LegacyEndpoint,
};
pub use endpoints::applications::{
    ApplicationSource, ControlAction, DeleteOptions, EnvTarget, LogsQuery, unwrap_logs,
};
pub use endpoints::deployments::{DeployTarget, Force, SkipTake, looks_like_uuid};
pub use endpoints::{Paging, ResourceKind};
pub use error::{ApiError, BuildError, InvalidIdReason};
pub use hints::error_hint;
pub use path::{ApiPath, QueryEncoding, validate_id};
pub use probe::{ProbeAuth, ProbeError, ProbeResponse, Prober};
pub use token::TokenSpec;
