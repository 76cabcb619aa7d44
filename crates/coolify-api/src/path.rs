//! Request paths below `/api/v1`, built so that no id can change them.
//!
//! The reference interpolates ids raw, so `uuid: "../servers"` becomes `GET /api/v1/servers`
//! and `x?reveal=true` smuggles a query string upstream. Here every caller-supplied id goes
//! through [`ApiPath::id`], which (a deliberate deviation from the reference server):
//! - refuses the empty string, `.` and `..` (WHATWG URL parsing also treats `%2e%2e` as `..`,
//!   so encoding alone is not enough), `/`, `\` and control characters;
//! - percent-encodes every byte outside the RFC 3986 unreserved set, so `?`, `#`, `%`, space
//!   and non-ASCII stay inside the one segment.
//!
//! Literal segments are `&'static str` chosen by this crate's code, never by a caller. Query
//! parameters keep insertion order (the reference's `URLSearchParams` order). Each is encoded
//! the way the reference encodes that parameter: [`ApiPath::query`] form-encodes
//! (`URLSearchParams`: a space is `+`), [`ApiPath::query_component`] percent-encodes like
//! `encodeURIComponent` (a space is `%20`; the reference uses it for `/deploy?tag=` and the
//! Hetzner token uuid).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::error::{ApiError, InvalidIdReason};

/// Everything except RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`) is encoded.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What `encodeURIComponent` leaves alone: `A-Z a-z 0-9 - _ . ! ~ * ' ( )`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// How one query parameter is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryEncoding {
    /// `application/x-www-form-urlencoded` (`URLSearchParams`): space → `+`.
    Form,
    /// `encodeURIComponent`: space → `%20`.
    Component,
}

/// Longest refused id echoed back in an error.
const ECHO_LIMIT: usize = 64;

/// A path below `/api/v1` plus its query, safe by construction.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApiPath {
    /// Encoded segments, each without slashes.
    segments: Vec<String>,
    query: Vec<(String, String, QueryEncoding)>,
}

impl ApiPath {
    /// A path starting with the literal segment `first` (e.g. `"applications"`).
    pub fn new(first: &'static str) -> Self {
        Self {
            segments: vec![first.to_owned()],
            query: Vec::new(),
        }
    }

    /// Append a literal segment chosen by code (never by a caller).
    pub fn lit(mut self, segment: &'static str) -> Self {
        self.segments.push(segment.to_owned());
        self
    }

    /// Append a caller-supplied id as exactly one segment. `what` names it in the error.
    pub fn id(mut self, what: &'static str, id: &str) -> Result<Self, ApiError> {
        validate_id(what, id)?;
        self.segments
            .push(utf8_percent_encode(id, SEGMENT).to_string());
        Ok(self)
    }

    /// Append a numeric id (no validation needed).
    pub fn num(mut self, id: u64) -> Self {
        self.segments.push(id.to_string());
        self
    }

    /// Append a form-encoded query parameter (order is kept).
    pub fn query(mut self, key: &'static str, value: impl ToString) -> Self {
        self.query
            .push((key.to_owned(), value.to_string(), QueryEncoding::Form));
        self
    }

    /// Append a query parameter encoded like `encodeURIComponent` (order is kept).
    pub fn query_component(mut self, key: &'static str, value: impl ToString) -> Self {
        self.query
            .push((key.to_owned(), value.to_string(), QueryEncoding::Component));
        self
    }

    /// Append a query parameter only when `value` is `Some`.
    pub fn query_opt<T: ToString>(self, key: &'static str, value: Option<T>) -> Self {
        match value {
            Some(v) => self.query(key, v),
            None => self,
        }
    }

    /// The encoded path, starting with `/` (e.g. `/applications/app-api/logs`), without query.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for segment in &self.segments {
            out.push('/');
            out.push_str(segment);
        }
        out
    }

    /// The query pairs in insertion order (decoded values).
    pub fn query_pairs(&self) -> Vec<(&str, &str)> {
        self.query
            .iter()
            .map(|(k, v, _)| (k.as_str(), v.as_str()))
            .collect()
    }

    /// The encoded query string without `?` (`None` when there is no parameter).
    pub fn encoded_query(&self) -> Option<String> {
        if self.query.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .query
            .iter()
            .map(|(k, v, encoding)| {
                let value = match encoding {
                    QueryEncoding::Form => {
                        url::form_urlencoded::byte_serialize(v.as_bytes()).collect()
                    }
                    QueryEncoding::Component => utf8_percent_encode(v, COMPONENT).to_string(),
                };
                let key: String = url::form_urlencoded::byte_serialize(k.as_bytes()).collect();
                format!("{key}={value}")
            })
            .collect();
        Some(parts.join("&"))
    }
}

impl std::fmt::Display for ApiPath {
    /// Path plus encoded query, e.g. `/deploy?tag=app-api&force=false`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.path())?;
        if let Some(encoded) = self.encoded_query() {
            write!(f, "?{encoded}")?;
        }
        Ok(())
    }
}

/// Check that `id` stays one segment; see the module docs for the rules.
pub fn validate_id(what: &'static str, id: &str) -> Result<(), ApiError> {
    let reason = if id.is_empty() {
        Some(InvalidIdReason::Empty)
    } else if id == "." || id == ".." {
        Some(InvalidIdReason::DotSegment)
    } else if id.contains(['/', '\\']) {
        Some(InvalidIdReason::Separator)
    } else if id.chars().any(char::is_control) {
        Some(InvalidIdReason::Control)
    } else {
        None
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(ApiError::InvalidId {
            what,
            value: clip(id),
            reason,
        }),
    }
}

fn clip(id: &str) -> String {
    match id.char_indices().nth(ECHO_LIMIT) {
        Some((cut, _)) => format!("{}…", &id[..cut]),
        None => id.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_one_encoded_segment() {
        let p = ApiPath::new("applications")
            .id("uuid", "x?reveal=true#f %")
            .unwrap();
        assert_eq!(p.path(), "/applications/x%3Freveal%3Dtrue%23f%20%25");
        let p = ApiPath::new("applications").id("uuid", "%2e%2e").unwrap();
        assert_eq!(p.path(), "/applications/%252e%252e");
    }

    #[test]
    fn traversal_is_refused() {
        for (bad, reason) in [
            ("", InvalidIdReason::Empty),
            ("..", InvalidIdReason::DotSegment),
            (".", InvalidIdReason::DotSegment),
            ("../servers", InvalidIdReason::Separator),
            ("a\\b", InvalidIdReason::Separator),
            ("a\nb", InvalidIdReason::Control),
        ] {
            match ApiPath::new("applications").id("uuid", bad) {
                Err(ApiError::InvalidId { reason: got, .. }) => assert_eq!(got, reason, "{bad:?}"),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn query_keeps_order_and_form_encodes() {
        let p = ApiPath::new("deploy")
            .query("tag", "a b&c")
            .query("force", false);
        assert_eq!(p.to_string(), "/deploy?tag=a+b%26c&force=false");
        let p = ApiPath::new("deploy")
            .query_component("tag", "a b&c(*)")
            .query("force", false);
        assert_eq!(p.to_string(), "/deploy?tag=a%20b%26c(*)&force=false");
    }
}
