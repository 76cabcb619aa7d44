//! Test modules; `support` holds the fakes, the invariant matchers and the recording clock.

mod anthropic;
mod azure;
mod bedrock;
mod common;
mod gemini;
mod ollama;
mod openai;
mod responses;
mod support;
