//! The one integration test binary of coyote-mcp (ARCHITECTURE.md): the host API driven
//! against real processes and servers through the public API only.

mod host;
