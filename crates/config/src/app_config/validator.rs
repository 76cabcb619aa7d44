//! The validating half of config.yaml parsing that every part shares: [`Validator`] (the file
//! being read and the environment it resolves keys from) and its error constructor, which
//! names the file, the key and the fix; and the check every `api_base` passes.

use std::path::Path;

use super::AppConfigError;
use crate::env::EnvLookup;

/// What config.yaml validation reads besides the Raw shapes.
pub(super) struct Validator<'a> {
    /// The file, named in every error.
    pub(super) path: &'a Path,
    /// Where `api_key_env` variables (and AWS settings) are looked up.
    pub(super) env: &'a dyn EnvLookup,
}

impl Validator<'_> {
    /// `path: `key`: problem. Fix: fix`.
    pub(super) fn invalid(
        &self,
        key: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) -> AppConfigError {
        AppConfigError::Invalid {
            path: self.path.to_owned(),
            key: key.into(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

/// The base must be an absolute http(s) URL. The problem text never repeats the URL (it may
/// carry credentials).
pub(super) fn check_api_base(base: &str) -> Result<(), String> {
    match url::Url::parse(base.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(()),
        Ok(url) => Err(format!(
            "the URL's scheme is \"{}\"; only http and https are supported",
            url.scheme()
        )),
        Err(e) => Err(format!("is not a URL ({e})")),
    }
}
