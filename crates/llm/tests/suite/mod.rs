//! Test modules; `support` holds the fakes, the invariant matchers and the recording clock.

mod anthropic;
mod common;
mod openai;
mod support;
