//! The shared terminal floor of every front end (the REPL, one-shot chat, `coyote mcp …`, the
//! daemon's forwarder, `mcp_cmd/daemon/`): what they show and what they ask on a terminal.
//!
//! - [`screen`]: a turn's output — streamed answer, spinner, tool status lines, held server
//!   log lines — and the pause that lets one question at a time draw over it;
//! - [`questions`]: tool approval and a server's elicitation form, asked on a paused screen
//!   (declined without a terminal); [`form`] turns the form's schema into fields and answers,
//!   [`form_widgets`] draws them; [`client_questions`]: sampling consent and URL elicitation;
//! - [`log_view`]: server log lines, throttled per server (stderr, or through the screen);
//! - [`progress`]: a call's progress (`notifications/progress`) and a delegate's status line.
//!
//! This floor imports nothing of the front ends (or of `client`, `setup`, `scope` above it):
//! only `term`, `markdown` and the library crates.

pub mod client_questions;
pub mod form;
pub mod form_widgets;
pub mod log_view;
pub mod progress;
pub mod questions;
pub mod screen;
