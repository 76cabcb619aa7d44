//! Integration tests for coolify-mcp, named after the numbered acceptance items they cover
//! (`item_NN_…`). Every test runs against the loopback Coolify fixture; nothing leaves
//! 127.0.0.1.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns: a setup step that fails stops the test at once"
)]

mod common;

mod audit;
mod boot;
mod bundle;
mod canary;
mod coyote_modern;
mod coyote_tasks;
mod doctor;
mod elicitation;
mod fidelity;
mod golden;
mod golden_calls;
mod guarded;
mod hardening;
mod http_limits;
mod logs;
mod modern;
mod oauth;
mod oauth_hardening;
mod oauth_limits;
mod oauth_user_token;
mod process;
mod prompts;
mod protocol;
mod redis_state;
mod replicas;
mod resources;
mod sdk_peers;
mod tasks;
mod tools;
mod tools_more;
