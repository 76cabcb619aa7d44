//! Exit codes and the CLI's error type. Every failure is printed once, to stderr, as
//! `coyote: <message>`; the kind decides the exit code.

use std::fmt;

pub const CODE_OK: u8 = 0;
/// A server, tool or model error.
pub const CODE_FAILURE: u8 = 1;
/// A usage or configuration error.
pub const CODE_USAGE: u8 = 2;

/// Which exit code an error maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Server, tool or transport failure → exit 1.
    Failure,
    /// Bad arguments or configuration → exit 2.
    Usage,
    /// Already reported (e.g. a tool result with isError was printed) → exit 1, no message.
    Silent,
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
    pub fn silent() -> Self {
        CliError {
            kind: ErrorKind::Silent,
            message: String::new(),
        }
    }

    /// Prints the message (if any) and returns the exit code.
    pub fn report(&self) -> u8 {
        match self.kind {
            ErrorKind::Silent => CODE_FAILURE,
            ErrorKind::Failure => {
                eprintln!("coyote: {}", self.message);
                CODE_FAILURE
            }
            ErrorKind::Usage => {
                eprintln!("coyote: {}", self.message);
                CODE_USAGE
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
