//! Test modules; `support` holds the fakes, the invariant matchers and the recording clock.

mod anthropic;
mod common;
mod ollama;
mod openai;
mod responses;
mod support;
