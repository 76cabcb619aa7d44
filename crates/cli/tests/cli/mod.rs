mod common;
mod config_errors;
mod everything;
mod fake;
