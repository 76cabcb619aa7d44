//! The crate's errors. Every message names the file, the JSON path and the fix; callers (the
//! CLI maps any `ConfigError` to exit 2) never match on the wording.
//!
//! Invariant: no message and no `Debug` output contains an `env` value, a header value, a URL
//! or the text of a default (they are often secrets). Names of keys, variables and servers are
//! fine: they are what the user needs to find the mistake.

use std::fmt;
use std::io;
use std::path::PathBuf;

mod wording;

use crate::expand::VarProblem;
use crate::json_path::JsonPath;

/// Everything that can go wrong while finding, loading, editing or trusting configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// No home directory and no explicit coyote directories.
    #[error(
        "cannot determine the home directory. Fix: set HOME, or set COYOTE_CONFIG_DIR, \
         COYOTE_STATE_DIR and COYOTE_CACHE_DIR"
    )]
    NoHomeDir,

    /// A file operation failed.
    #[error("cannot {op} {}: {source}{}", path.display(), op.fix_after(source))]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done.
        op: IoOp,
        /// The I/O error.
        #[source]
        source: io::Error,
    },

    /// mcp.json is not JSON.
    #[error(
        "{}:{line}:{column}: invalid JSON: {message}. Fix: correct the syntax at that position \
         (mcp.json is strict JSON: no comments, no trailing commas, keys in double quotes)",
        path.display()
    )]
    Syntax {
        /// The file.
        path: PathBuf,
        /// Line of the error (1-based).
        line: usize,
        /// Column of the error (1-based).
        column: usize,
        /// The parser's message.
        message: String,
    },

    /// mcp.json is JSON but not a valid configuration.
    #[error("{}", DisplayInvalid { path, problems })]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every problem found, in document order.
        problems: Vec<Problem>,
    },

    /// `coyote mcp add` would overwrite a server.
    #[error(
        "{}: server \"{name}\" already exists. Fix: choose another name, remove it first with \
         `coyote mcp remove {name}`, or replace it with `coyote mcp add --force {name} …`",
        path.display()
    )]
    ServerExists {
        /// The file edited.
        path: PathBuf,
        /// The server name.
        name: String,
    },

    /// A command-line argument has the wrong form.
    #[error("{flag} expects {expected}. Fix: write it as {example}")]
    BadArgument {
        /// The flag, e.g. `--env`.
        flag: &'static str,
        /// What it takes.
        expected: &'static str,
        /// An example of it.
        example: &'static str,
    },

    /// `coyote mcp remove` names a server the file does not have.
    #[error("{}: no server named \"{name}\" ({}). Fix: use one of the names listed", path.display(), DisplayKnown(known))]
    UnknownServer {
        /// The file edited.
        path: PathBuf,
        /// The name given.
        name: String,
        /// The servers the file has.
        known: Vec<String>,
    },
}

/// The file operation that failed (selects the fix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoOp {
    /// Reading a file.
    Read,
    /// Writing a file.
    Write,
    /// Creating a directory.
    CreateDir,
    /// Renaming a temporary file over the original.
    Replace,
}

impl IoOp {
    /// `". Fix: …"`, or nothing when `source` is a read limit that says its own fix.
    fn fix_after(self, source: &io::Error) -> String {
        match crate::bounded::read_fix(source, self.fix()) {
            "" => String::new(),
            fix => format!(". Fix: {fix}"),
        }
    }

    fn fix(self) -> &'static str {
        match self {
            IoOp::Read => "check that the file exists and that you may read it",
            IoOp::Write => "check free disk space and that you may write to the directory",
            IoOp::CreateDir => {
                "check that the parent directory exists and that you may write to it"
            }
            IoOp::Replace => "check that you may write to the directory holding the file",
        }
    }
}

impl fmt::Display for IoOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IoOp::Read => "read",
            IoOp::Write => "write",
            IoOp::CreateDir => "create directory",
            IoOp::Replace => "replace",
        })
    }
}

struct DisplayKnown<'a>(&'a [String]);

impl fmt::Display for DisplayKnown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("the file has no servers");
        }
        write!(f, "servers: {}", self.0.join(", "))
    }
}

struct DisplayInvalid<'a> {
    path: &'a PathBuf,
    problems: &'a [Problem],
}

impl fmt::Display for DisplayInvalid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problems {
            [one] => write!(f, "{}: {one}", self.path.display()),
            many => {
                write!(f, "{}: {} problems:", self.path.display(), many.len())?;
                for p in many {
                    write!(f, "\n  - {p}")?;
                }
                Ok(())
            }
        }
    }
}

/// One thing wrong in an mcp.json document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where: `mcpServers.github.env.TOKEN`.
    pub path: JsonPath,
    /// The server entry it belongs to, if any.
    pub server: Option<String>,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path)?;
        if let Some(server) = &self.server {
            write!(f, "server \"{server}\": ")?;
        }
        write!(f, "{}", self.kind)
    }
}

/// The JSON shape a key requires (selects the example in the fix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// A JSON object.
    Object,
    /// A string.
    String,
    /// An array of strings.
    StringArray,
    /// An object whose values are strings (`env`, `headers`).
    StringMap,
    /// `true` or `false`.
    Bool,
    /// Seconds, a number greater than zero.
    Seconds,
    /// A TCP port, 1 to 65535.
    Port,
    /// A whole number, 0 or more.
    WholeNumber,
    /// A whole number of bytes greater than zero.
    Bytes,
}

impl Expected {
    fn describe(self) -> &'static str {
        match self {
            Expected::Object => "an object",
            Expected::String => "a string",
            Expected::StringArray => "an array of strings",
            Expected::StringMap => "an object of strings",
            Expected::Bool => "true or false",
            Expected::Seconds => "a number of seconds greater than 0",
            Expected::Port => "a port number from 1 to 65535",
            Expected::WholeNumber => "a whole number (0 or more)",
            Expected::Bytes => "a whole number of bytes greater than 0",
        }
    }

    fn example(self) -> &'static str {
        match self {
            Expected::Object => "{ ... }",
            Expected::String => "\"text\"",
            Expected::StringArray => "[\"-y\", \"some-package\"]",
            Expected::StringMap => "{\"NAME\": \"value\"}",
            Expected::Bool => "true",
            Expected::Seconds => "60",
            Expected::Port => "8765",
            Expected::WholeNumber => "4096",
            Expected::Bytes => "20000",
        }
    }
}

/// What is wrong, with the fix in its `Display`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProblemKind {
    /// A value of the wrong JSON type; `found` is a type name, never the value.
    WrongType {
        /// The type the key needs.
        expected: Expected,
        /// The JSON type found.
        found: &'static str,
    },
    /// The entry has neither `command` nor `url`.
    NoTransport,
    /// The entry has both `command` and `url`.
    CommandAndUrl,
    /// A key the entry's transport requires is missing (`command` for stdio, `url` for http).
    MissingKey {
        /// The missing key.
        key: &'static str,
        /// The transport that needs it.
        transport: &'static str,
    },
    /// A key that contradicts the declared `type`.
    KeyConflictsWithType {
        /// The key.
        key: &'static str,
        /// The declared `type`.
        declared: String,
    },
    /// `type` and `transportType` disagree.
    ConflictingTypes {
        /// The value of `type`.
        type_value: String,
        /// The value of `transportType`.
        transport_type_value: String,
    },
    /// Invalid server name.
    BadName {
        /// The name as written.
        name: String,
        /// Why it is rejected.
        reason: NameProblem,
    },
    /// A string that must not be empty is.
    Empty,
    /// A string outside its allowed set (`type`, `approve`, `expose`).
    UnknownValue {
        /// The value as written.
        found: String,
        /// The values the key takes.
        allowed: Vec<&'static str>,
        /// The allowed value closest to it, if any is close.
        suggestion: Option<&'static str>,
    },
    /// A `${…}` that cannot be expanded.
    Variable(VarProblem),
    /// A URL that does not parse or is not http(s); `reason` never contains the URL.
    BadUrl {
        /// Why it is rejected.
        reason: String,
    },
    /// An environment variable name containing `=` or NUL, or empty.
    BadEnvName {
        /// The name as written.
        name: String,
    },
    /// `bearerTokenEnv` is not a variable name.
    BadVarName {
        /// The name as written.
        name: String,
    },
    /// A header name with characters HTTP does not allow.
    BadHeaderName {
        /// The name as written.
        name: String,
    },
    /// A header value containing a line break or another control character.
    BadHeaderValue,
    /// A string containing a NUL byte (cannot be passed to a process).
    NulByte,
    /// A URL that must be https (`clientMetadataUrl`, `authServerMetadataUrl`); `reason`
    /// never contains the URL.
    NotHttps {
        /// Why (scheme, parse error), never the URL.
        reason: String,
    },
    /// An `oauth` key that only another grant uses.
    OAuthKeyNeedsGrant {
        /// The key.
        key: &'static str,
        /// The grant that uses it (`client_credentials`, `jwt_bearer`, `enterprise`).
        grant: &'static str,
    },
    /// An `oauth` key the chosen grant needs.
    MissingOAuthKey {
        /// The missing key.
        key: &'static str,
        /// Why the grant needs it.
        needed_for: &'static str,
    },
    /// A number of seconds above [`MAX_TIMEOUT_SECS`].
    SecondsOverMaximum,
    /// Two keys that say the same thing in different ways; only one may be set.
    ExclusiveKeys {
        /// The key reported.
        key: &'static str,
        /// The key it excludes.
        other: &'static str,
    },
}

/// Why a server name is rejected (names become part of function names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameProblem {
    /// The name is empty.
    Empty,
    /// The name is longer than `MAX_SERVER_NAME_BYTES`.
    TooLong {
        /// Its length in bytes.
        bytes: usize,
    },
    /// The name holds a character other than letters, digits, `_` and `-`.
    BadChar {
        /// The first such character.
        ch: char,
    },
}

/// Largest accepted timeout (`startupTimeoutSec`, `toolTimeoutSec`, …), in seconds: 7 days.
/// Anything larger is a mistake (and `1e20` does not even fit a `Duration`).
pub const MAX_TIMEOUT_SECS: u64 = 7 * 24 * 60 * 60;

/// Longest accepted server name, in bytes.
pub const MAX_SERVER_NAME_BYTES: usize = 40;
