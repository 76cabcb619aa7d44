//! Host tests: the runtime against the `coyote-fake-mcp` binary over stdio and the fake
//! server over streamable HTTP. Deadlines are injected through the specs (tiny where a test
//! wants a timeout, generous elsewhere) and tests assert which path fired, never durations.

mod client_features;
mod http;
mod input_required;
mod legacy_sse;
mod negotiation;
mod restart;
mod standalone_stream;
mod stdio;
mod stdio_failures;
mod support;
mod url_required;
