//! Non-fatal findings, returned as data: the library never prints, the CLI decides how (and
//! whether, e.g. when it asks about trust interactively instead) to show them.

use std::fmt;
use std::path::PathBuf;

use crate::json_path::JsonPath;
use crate::trust::TrustStatus;

/// One warning about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The file.
    pub file: PathBuf,
    /// Where in the file; root for whole-file warnings.
    pub path: JsonPath,
    /// What was found.
    pub kind: WarningKind,
}

/// A kind of warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WarningKind {
    /// A key coyote does not know; ignored.
    UnknownKey {
        /// The key as written.
        key: String,
        /// The known key it is closest to, if any is close.
        suggestion: Option<&'static str>,
    },
    /// A key other clients use that coyote does not implement; ignored.
    UnsupportedKey {
        /// The key.
        key: &'static str,
        /// What to use instead.
        advice: &'static str,
    },
    /// A known key that has no effect on this kind of server (`env` on an HTTP server).
    UnusedKey {
        /// The key.
        key: &'static str,
        /// The server's transport.
        transport: &'static str,
    },
    /// The same key twice in one object; the last one wins (as in JavaScript).
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// Two keys set the same thing; `winner` is used.
    Superseded {
        /// The key that lost.
        key: &'static str,
        /// The key that is used.
        winner: &'static str,
    },
    /// A project-local mcp.json was found but not used.
    ProjectNotTrusted {
        /// Why it was not used.
        status: TrustStatus,
    },
    /// The trust store could not be read; nothing is trusted until it is fixed.
    TrustStoreUnreadable {
        /// Why it could not be read.
        reason: String,
    },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        match &self.kind {
            WarningKind::UnknownKey { key, suggestion } => {
                write!(
                    f,
                    "{file}: {}: unknown key \"{}\" (ignored)",
                    self.path,
                    key.escape_debug()
                )?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean \"{s}\"?"),
                    None => Ok(()),
                }
            }
            WarningKind::UnsupportedKey { key, advice } => {
                write!(
                    f,
                    "{file}: {}: \"{key}\" is not supported by coyote (ignored); {advice}",
                    self.path
                )
            }
            WarningKind::UnusedKey { key, transport } => write!(
                f,
                "{file}: {}: \"{key}\" has no effect on a {transport} server (ignored)",
                self.path
            ),
            WarningKind::DuplicateKey { key } => write!(
                f,
                "{file}: {}: \"{}\" appears more than once; the last one is used. Remove the \
                 others",
                self.path,
                key.escape_debug()
            ),
            WarningKind::Superseded { key, winner } => write!(
                f,
                "{file}: {}: \"{key}\" is overridden by \"{winner}\" (ignored)",
                self.path
            ),
            WarningKind::ProjectNotTrusted { status } => {
                let why = match status {
                    TrustStatus::Changed => "changed since you trusted it",
                    TrustStatus::Untrusted | TrustStatus::Trusted => "not trusted",
                };
                write!(
                    f,
                    "{file}: project MCP config {why}, ignored (it can start programs on this \
                     machine). To use it, review it and run coyote with --trust-project, or \
                     answer yes when coyote asks"
                )
            }
            WarningKind::TrustStoreUnreadable { reason } => write!(
                f,
                "{file}: cannot read the trusted-projects list ({reason}); no project MCP config \
                 is trusted. Fix: delete the file and trust your projects again"
            ),
        }
    }
}
