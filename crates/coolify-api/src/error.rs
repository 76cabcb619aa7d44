//! Typed errors of the Coolify client.
//!
//! Two enums: [`BuildError`] for configuration problems found while building a client (bad
//! base URL, unreadable token file, malformed header), and [`ApiError`] for everything a request
//! can hit. Invariants:
//! - no message ever contains the access token: upstream messages are scrubbed before they are
//!   stored (see `client::scrub`), and token values are never formatted anywhere;
//! - the `Display` of [`ApiError::Status`] is exactly the reference server's message
//!   (`body.message` or `HTTP <status>: <reason>`, then ` - field: m1, m2; …`, then ` (<hint>)`),
//!   so a tool can answer `Error: {err}` with parity;
//! - callers branch on variants and accessors ([`ApiError::status`],
//!   [`ApiError::is_routing_catch_all`]), never on message text.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

/// A problem with the client configuration, found by [`crate::ClientBuilder::build`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The base URL does not parse or is not http(s).
    #[error(
        "Coolify base URL is not usable ({reason}); give the root URL of the instance, e.g. https://coolify.example.com"
    )]
    BaseUrl {
        /// Why it was refused (never contains a token).
        reason: String,
    },
    /// The inline token is empty.
    #[error("Coolify access token is required; set a non-empty token or a token file")]
    EmptyToken,
    /// The token file could not be read at startup.
    #[error(
        "Coolify access token file {path} could not be read ({reason}); check the path and its permissions"
    )]
    TokenFileUnreadable {
        /// The configured path.
        path: PathBuf,
        /// The I/O error text.
        reason: String,
    },
    /// The token file exists but holds only whitespace.
    #[error("Coolify access token file is empty: {path}")]
    TokenFileEmpty {
        /// The configured path.
        path: PathBuf,
    },
    /// A header name or value is not valid HTTP. The value itself is never echoed.
    #[error(
        "extra header {name:?} is not a valid HTTP header ({reason}); check the name and value"
    )]
    Header {
        /// The header name as given (names are not secret).
        name: String,
        /// Which part is invalid.
        reason: &'static str,
    },
    /// The underlying HTTP client could not be built (TLS setup).
    #[error("could not build the HTTP client: {0}")]
    Http(String),
}

/// Why an id was refused as a path segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidIdReason {
    /// The id is the empty string.
    Empty,
    /// The id is `.` or `..`, which URL parsers treat as a path step.
    DotSegment,
    /// The id contains `/` or `\`, which could add path segments.
    Separator,
    /// The id contains a control character.
    Control,
}

impl std::fmt::Display for InvalidIdReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Empty => "it is empty",
            Self::DotSegment => "'.' and '..' would change the request path",
            Self::Separator => "'/' and '\\' would change the request path",
            Self::Control => "it contains a control character",
        })
    }
}

/// Everything a request to Coolify can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// Coolify answered with a non-2xx status. `Display` is the reference-compatible message.
    #[error("{message}")]
    Status {
        /// HTTP status code.
        status: u16,
        /// The request path below `/api/v1` (encoded form, no query).
        path: String,
        /// The composed message: upstream `message`, validation `errors`, known-quirk hint.
        message: String,
        /// The upstream body, parsed like a success body (JSON, or a string). Unsanitized:
        /// use it for decisions (e.g. the routing catch-all), never show it to a user.
        body: Value,
    },
    /// The connection failed (refused, DNS, TLS, reset before an answer).
    #[error(
        "Failed to connect to Coolify server at {base_url}. Please check if the server is running and accessible."
    )]
    Connect {
        /// The configured base URL.
        base_url: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// No complete answer within the request timeout.
    #[error(
        "Coolify server at {base_url} did not answer {method} {path} within {}. Check that the server is up and reachable, or raise {setting} (seconds).",
        seconds(*.after)
    )]
    Timeout {
        /// The configured base URL.
        base_url: String,
        /// HTTP method.
        method: String,
        /// The request path below `/api/v1`.
        path: String,
        /// The timeout that fired.
        after: Duration,
        /// The setting that configures it (e.g. `COOLIFY_REQUEST_TIMEOUT`), named so the
        /// message says what to change.
        setting: String,
    },
    /// The response body could not be read after the status arrived.
    #[error("reading the response of {path} from Coolify failed ({reason}); retry the call")]
    Body {
        /// The request path below `/api/v1`.
        path: String,
        /// The transport error text.
        reason: String,
    },
    /// The current token (e.g. a rotated token file) cannot be sent in an HTTP header.
    #[error(
        "the Coolify access token contains characters that cannot be sent in an HTTP header (e.g. a line break inside it); fix the token or token file"
    )]
    TokenNotSendable,
    /// The request URL could not be built (should not happen: the base URL is checked at build).
    #[error("could not build the request URL for {path} ({reason}); check COOLIFY_BASE_URL")]
    Url {
        /// The request path below `/api/v1`.
        path: String,
        /// The parser's reason.
        reason: String,
    },
    /// An id would have changed the request path; nothing was sent.
    #[error(
        "invalid {what} {value:?}: {reason}. Pass the exact id (uuid, name or number) of the resource; nothing was sent to Coolify"
    )]
    InvalidId {
        /// What the id names (e.g. "uuid", "environment name").
        what: &'static str,
        /// The refused id, cut to 64 chars.
        value: String,
        /// Why it was refused.
        reason: InvalidIdReason,
    },
    /// A 2xx body did not have the shape a typed method needs.
    #[error(
        "Coolify returned an unexpected shape for {path}: {detail}; check the Coolify version with get_version"
    )]
    Decode {
        /// The request path below `/api/v1`.
        path: String,
        /// What did not match.
        detail: String,
    },
}

/// `30 s`, `0.2 s`: a duration as the seconds a user configures.
fn seconds(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{secs} s")
    }
}

impl ApiError {
    /// The HTTP status of an upstream error answer, if this is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// True for Coolify's routing catch-all (`404` whose body has a `docs` key or whose message
    /// is exactly `Not found.`): the route does not exist, as opposed to a controller's
    /// "resource not found".
    pub fn is_routing_catch_all(&self) -> bool {
        match self {
            Self::Status {
                status: 404, body, ..
            } => is_routing_catch_all_body(body),
            _ => false,
        }
    }

    /// True when the method was rejected by the router (405 or the catch-all 404), so nothing
    /// ran and retrying with another method is safe.
    pub fn is_method_rejected(&self) -> bool {
        self.status() == Some(405) || self.is_routing_catch_all()
    }

    /// True for failures of the transport (connect or timeout), as opposed to an answer.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Self::Connect { .. } | Self::Timeout { .. })
    }
}

/// The catch-all body test shared by [`ApiError::is_routing_catch_all`].
pub(crate) fn is_routing_catch_all_body(body: &Value) -> bool {
    match body {
        Value::Object(map) => {
            map.contains_key("docs")
                || map.get("message").and_then(Value::as_str) == Some("Not found.")
        }
        _ => false,
    }
}
