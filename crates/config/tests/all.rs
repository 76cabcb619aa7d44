//! Integration tests of coyote-config's public API, the way the CLI uses it: a temp home per
//! test, an injected environment, whole values compared (snapshots for text people read).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns: a setup step that fails stops the test at once"
)]

#[path = "suite/common.rs"]
mod common;
#[path = "suite/compat.rs"]
mod compat;
#[path = "suite/docs.rs"]
mod docs;
#[path = "suite/edit.rs"]
mod edit;
#[path = "suite/errors.rs"]
mod errors;
#[path = "suite/limits.rs"]
mod limits;
#[path = "suite/project.rs"]
mod project;
#[path = "suite/providers_doc.rs"]
mod providers_doc;
