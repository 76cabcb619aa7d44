//! The one integration-test binary of coyote-llm: providers against fake endpoints that speak
//! the real wire protocols (wiremock, plus a raw chunked-HTTP server for split SSE writes).

mod suite;
