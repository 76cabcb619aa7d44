//! Developer tools for measuring coyote; no shipped binary depends on this crate.
//!
//! [`tokens`] counts the tokens of what the model is given — the declarations of
//! `coyote mcp servers --json --declarations` and the shared system-prompt paragraph — with real
//! tokenizers: OpenAI's `o200k_base` and `cl100k_base` (embedded in `tiktoken-rs`) and,
//! optionally, a llama.cpp server's own tokenizer (`POST /tokenize`, the local model of
//! `scripts/e2e-local-llm`). `scripts/bench` reports the figures beside coyote's bytes/4
//! estimate.

pub mod tokens;
