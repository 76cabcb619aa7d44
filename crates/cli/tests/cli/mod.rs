mod chat;
mod common;
mod config_errors;
mod content;
mod docs;
mod everything;
mod fake;
mod repl;
