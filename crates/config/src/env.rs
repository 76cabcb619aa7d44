//! Environment lookup, injected rather than read from the process globally, so the loader is a
//! pure function of its inputs and tests never mutate the process environment.
//!
//! Invariant: nothing in this crate calls `std::env::var` except [`ProcessEnv`].

use std::collections::{BTreeMap, HashMap};

/// Where `${VAR}` and the `COYOTE_*_DIR`/`XDG_*` variables are looked up.
pub trait EnvLookup {
    /// The variable's value; `None` when unset or not valid UTF-8 (such a value cannot be
    /// placed into a JSON string anyway).
    fn var(&self, name: &str) -> Option<String>;
}

/// The real process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl EnvLookup for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// A fixed set of variables (tests, or a caller that sandboxes the environment).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct MapEnv(BTreeMap<String, String>);

impl MapEnv {
    /// An empty environment.
    pub fn new() -> Self {
        MapEnv(BTreeMap::new())
    }

    /// Adds one variable (builder style).
    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.0.insert(name.into(), value.into());
        self
    }

    /// Sets one variable.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(name.into(), value.into());
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for MapEnv {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        MapEnv(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

// Values may be secrets: Debug shows names only.
impl std::fmt::Debug for MapEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

impl EnvLookup for MapEnv {
    fn var(&self, name: &str) -> Option<String> {
        self.0.get(name).cloned()
    }
}

impl EnvLookup for BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

impl EnvLookup for HashMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}
