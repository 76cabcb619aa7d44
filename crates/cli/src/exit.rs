//! Exit codes and the CLI's error type. Every failure is printed once, to stderr, as
//! `coyote: <message>` (sanitized, the prefix coloured when stderr allows it); the kind decides
//! the exit code.

use std::fmt;

pub const CODE_OK: u8 = 0;
/// A server, tool or model error.
pub const CODE_FAILURE: u8 = 1;
/// A usage or configuration error.
pub const CODE_USAGE: u8 = 2;
/// Interrupted by the user (Ctrl-C), like a shell's 128 + SIGINT.
pub const CODE_INTERRUPTED: u8 = 130;

/// Which exit code an error maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Server, tool or transport failure → exit 1.
    Failure,
    /// Bad arguments or configuration → exit 2.
    Usage,
    /// Already reported (e.g. a tool result with isError was printed) → exit 1, no message.
    Silent,
    /// The user interrupted (Ctrl-C) → exit 130, with the message if any.
    Interrupted,
    /// Already reported, with this exit code (`coyote mcp batch`: the highest code of its
    /// commands).
    Exit(u8),
}

#[derive(Debug)]
pub struct CliError {
    pub kind: ErrorKind,
    pub message: String,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            kind: ErrorKind::Usage,
            message: message.into(),
        }
    }
    pub fn failure(message: impl Into<String>) -> Self {
        CliError {
            kind: ErrorKind::Failure,
            message: message.into(),
        }
    }
    pub fn interrupted(message: impl Into<String>) -> Self {
        CliError {
            kind: ErrorKind::Interrupted,
            message: message.into(),
        }
    }
    pub fn silent() -> Self {
        CliError {
            kind: ErrorKind::Silent,
            message: String::new(),
        }
    }
    /// Exit with `code`, printing nothing (what failed was reported already).
    pub fn exit(code: u8) -> Self {
        CliError {
            kind: ErrorKind::Exit(code),
            message: String::new(),
        }
    }

    /// The exit code this error maps to.
    pub fn code(&self) -> u8 {
        match self.kind {
            ErrorKind::Failure | ErrorKind::Silent => CODE_FAILURE,
            ErrorKind::Usage => CODE_USAGE,
            ErrorKind::Interrupted => CODE_INTERRUPTED,
            ErrorKind::Exit(code) => code,
        }
    }

    /// Prints the message (if any) and returns the exit code.
    pub fn report(&self) -> u8 {
        match self.kind {
            ErrorKind::Silent => CODE_FAILURE,
            ErrorKind::Exit(code) => code,
            ErrorKind::Failure => {
                crate::term::error_line(&self.message);
                CODE_FAILURE
            }
            ErrorKind::Usage => {
                crate::term::error_line(&self.message);
                CODE_USAGE
            }
            ErrorKind::Interrupted => {
                if !self.message.is_empty() {
                    crate::term::error_line(&self.message);
                }
                CODE_INTERRUPTED
            }
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub type CliResult<T = ()> = Result<T, CliError>;
