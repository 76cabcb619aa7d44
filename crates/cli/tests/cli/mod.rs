mod common;
mod config_errors;
mod content;
mod everything;
mod fake;
