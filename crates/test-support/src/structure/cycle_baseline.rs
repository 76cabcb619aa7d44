//! The import cycles the workspace still has, as data (`data/module-cycles.toml`), and
//! [`CycleBaseline::compare`], which keeps that list exact: a cycle the list does not name is
//! a finding (a new knot), and so is an entry whose cycle is gone (the list only shrinks).
//!
//! A cycle is identified by where it is — crate, crate root, folder module (`""` for the
//! top-level modules) — and by the modules of its strongly connected component, so a knot
//! that grows or shrinks no longer matches its entry: the test then shows both the knot as it
//! is and the entry to update.
//!
//! Invariants: every entry has a unique name, a reason and at least two modules
//! ([`CycleBaseline::validate`]); findings come in a stable order (new cycles first, in the
//! order they were found, then stale entries in file order).

use std::collections::BTreeSet;
use std::fmt;

use serde::Deserialize;

use super::graph::Cycle;

/// The baseline file: the cycles tolerated today, each named and reasoned.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CycleBaseline {
    /// The tolerated cycles.
    #[serde(default, rename = "cycle")]
    pub cycles: Vec<KnownCycle>,
}

/// One tolerated cycle.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownCycle {
    /// A short name, shown when the entry goes stale.
    pub name: String,
    /// The package name (`coyote-cli`).
    #[serde(rename = "crate")]
    pub krate: String,
    /// The crate root the module tree starts from, relative to the crate's directory.
    #[serde(default = "default_root")]
    pub root: String,
    /// The folder module whose children form the cycle (`connect::auth`); `""` for the
    /// crate's top-level modules.
    #[serde(default)]
    pub folder: String,
    /// Every module of the cycle's strongly connected component.
    pub modules: BTreeSet<String>,
    /// Why it is tolerated for now, and what would break it.
    pub reason: String,
}

fn default_root() -> String {
    "src/lib.rs".to_owned()
}

/// A cycle found in the sources, with where it was found (the same keys as [`KnownCycle`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundCycle {
    /// The package name.
    pub krate: String,
    /// The crate root, relative to the crate's directory.
    pub root: String,
    /// The folder module, `""` for the top level.
    pub folder: String,
    /// The cycle, with the lines that make it.
    pub cycle: Cycle,
}

impl FoundCycle {
    fn matches(&self, known: &KnownCycle) -> bool {
        self.krate == known.krate
            && self.root == known.root
            && self.folder == known.folder
            && self.cycle.component == known.modules
    }
}

/// Where a cycle is, as shown to a reader: `coyote-mcp src/lib.rs, folder connect`.
fn place(krate: &str, root: &str, folder: &str) -> String {
    if folder.is_empty() {
        format!("{krate} {root}, top-level modules")
    } else {
        format!("{krate} {root}, folder {folder}")
    }
}

/// A difference between the sources and the baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CycleFinding {
    /// A cycle no entry names.
    New(FoundCycle),
    /// An entry whose cycle no longer exists as written.
    Gone(KnownCycle),
}

impl fmt::Display for CycleFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CycleFinding::New(found) => write!(
                f,
                "{}: {}\n  break it by moving the item both sides need below them; if it is \
                 what is left of a baseline entry's cycle, shrink that entry to these modules",
                place(&found.krate, &found.root, &found.folder),
                found.cycle
            ),
            CycleFinding::Gone(known) => write!(
                f,
                "{}: baseline entry `{}` names the cycle {{{}}}, which no longer exists as \
                 written; remove the entry from data/module-cycles.toml (or shrink it to the \
                 cycle that remains)",
                place(&known.krate, &known.root, &known.folder),
                known.name,
                known
                    .modules
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A baseline file that cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaselineError {
    /// Two entries share a name.
    #[error("two baseline entries are named `{name}`; names must be unique")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// An entry gives no reason.
    #[error("baseline entry `{name}` gives no reason; say why the cycle is tolerated")]
    NoReason {
        /// The entry.
        name: String,
    },
    /// An entry names fewer than two modules (no cycle at all).
    #[error("baseline entry `{name}` names fewer than two modules; a cycle needs two")]
    TooFewModules {
        /// The entry.
        name: String,
    },
}

impl CycleBaseline {
    /// Checks that every entry is named once, reasoned and names a possible cycle.
    pub fn validate(&self) -> Result<(), BaselineError> {
        let mut names = BTreeSet::new();
        for entry in &self.cycles {
            if !names.insert(entry.name.as_str()) {
                return Err(BaselineError::DuplicateName {
                    name: entry.name.clone(),
                });
            }
            if entry.reason.trim().is_empty() {
                return Err(BaselineError::NoReason {
                    name: entry.name.clone(),
                });
            }
            if entry.modules.len() < 2 {
                return Err(BaselineError::TooFewModules {
                    name: entry.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Every found cycle no entry names, then every entry no found cycle matches.
    pub fn compare(&self, found: &[FoundCycle]) -> Vec<CycleFinding> {
        let new = found
            .iter()
            .filter(|f| !self.cycles.iter().any(|k| f.matches(k)))
            .cloned()
            .map(CycleFinding::New);
        let gone = self
            .cycles
            .iter()
            .filter(|k| !found.iter().any(|f| f.matches(k)))
            .cloned()
            .map(CycleFinding::Gone);
        new.chain(gone).collect()
    }
}

#[cfg(test)]
#[path = "cycle_baseline_tests.rs"]
mod tests;
