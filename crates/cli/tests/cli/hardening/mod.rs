//! Hardening: the real `coyote` binary against misbehaving servers, signals, hostile
//! input and planted secrets. Each module is one fault family; every test here failed before
//! its fix.

mod floods;
mod http_restart;
mod messages;
mod secrets;
mod signals;
mod utf8;

use std::path::PathBuf;

use super::common::Home;

/// `coyote.log` of a test home.
pub fn log_file(home: &Home) -> PathBuf {
    home.path().join("state").join("logs").join("coyote.log")
}

/// The log's text ("" when nothing was logged).
pub fn log_text(home: &Home) -> String {
    std::fs::read(log_file(home))
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}
