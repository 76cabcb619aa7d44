//! Integration tests: the `coyote-fake-mcp` binary and the in-process / HTTP fakes, driven
//! through rmcp's real client, with the server's own event log as the oracle.
//! `structure`: the module-structure rules of the workspace, checked on its sources;
//! `workspace`: the crate rules, dependencies, `rust-version` and file sizes of the workspace.
#![expect(
    clippy::expect_used,
    reason = "test helpers outside #[test] fns: a setup step that fails stops the test at once"
)]

mod support;

mod binary_basics;
mod binary_behaviours;
mod in_process_and_http;
mod structure;
mod workspace;
